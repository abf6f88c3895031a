"""`--set PATH=VALUE`: replace a scalar of the spec's syntax tree before it is checked."""

from __future__ import annotations

from dataclasses import dataclass, replace

from cmpc.diagnostics import Diagnostic, error
from cmpc.language import vocabulary as V
from cmpc.source import SourceFile
from cmpc.syntax import tree as st
from cmpc.syntax.parser import parse_spec

# Keys whose entries carry `key value` options after the value: `--set` replaces the value only.
OPTIONS_OF = {
    "price": V.PRICE_OPTIONS,
    "power": V.POWER_OPTIONS,
    "memory": V.MEMORY_OPTIONS,
    "accelerator": V.ACCELERATOR_OPTIONS,
    "engine": V.ENGINE_OPTIONS,
    "runs": V.RUNS_OPTIONS,
    "throughput": V.THROUGHPUT_OPTIONS,
    "ratio": V.RATIO_OPTIONS,
}
NAMED_BLOCKS = {"system", "source", "claim"}
ALIASES = {"systems": "system", "sources": "source", "claims": "claim"}


@dataclass(frozen=True)
class Override:
    """One `--set`: the path as written and the value's text."""

    path: str
    value: str


def parse_override(text: str) -> Override | None:
    path, sep, value = text.partition("=")
    if not sep or not path.strip() or not value.strip():
        return None
    return Override(path.strip(), value.strip())


def apply_overrides(
    spec: st.Spec, overrides: list[Override]
) -> tuple[st.Spec, list[Diagnostic], dict[str, SourceFile]]:
    """The spec with each override applied; values are parsed with the spec's own literals."""
    diagnostics: list[Diagnostic] = []
    sources: dict[str, SourceFile] = {}
    root = spec.root
    for n, override in enumerate(overrides, 1):
        name = f"--set #{n}"
        # Parse `path-leaf VALUE` as one entry, so the value gets the same literal rules.
        source = SourceFile(name, f"v {override.value}")
        sources[name] = source
        parsed, problems = parse_spec(source)
        if parsed is None or parsed.root.body is not None:
            diagnostics += problems or [
                error("E501", f"`--set {override.path}` value is not a plain value", file=name)
            ]
            continue
        steps = [ALIASES.get(s, s) for s in override.path.split(".") if s]
        if steps and steps[0] == "comparison":
            steps = steps[1:]
        new_root, problem = _set(root, steps, parsed.root.alternatives, override.path)
        if problem:
            diagnostics.append(
                error(
                    "E501",
                    f"cannot apply `--set {override.path}`: {problem}",
                    file=name,
                    help="paths name blocks and keys, e.g. `cost.utilization`, "
                    "`latency.statistic`, `system.mi355x.price`",
                )
            )
            continue
        root = new_root
    return replace(spec, root=root), diagnostics, sources


def _set(
    entry: st.Entry, steps: list[str], value: tuple[st.Alternative, ...], path: str
) -> tuple[st.Entry, str | None]:
    if not steps:
        return entry, "the path is empty"
    key, rest = steps[0], steps[1:]
    label = None
    if key in NAMED_BLOCKS:
        if not rest:
            return entry, f"`{key}` needs a name, e.g. `{key}.NAME.KEY`"
        label, rest = rest[0], rest[1:]
    body = list(entry.body or ())
    for i, child in enumerate(body):
        if child.key.value != key:
            continue
        if label is not None and not (
            len(child.atoms) == 1
            and isinstance(child.atoms[0], st.Name)
            and child.atoms[0].value == label
        ):
            continue
        if rest:
            new_child, problem = _set(child, rest, value, path)
        else:
            new_child, problem = _replace_value(child, value), None
        if problem:
            return entry, problem
        body[i] = new_child
        return replace(entry, body=tuple(body)), None
    if label is not None:
        return entry, f"no `{key} {label}` in the spec"
    if rest:  # an absent block: create it, so `--set cost.utilization=40%` works without `cost`
        created, problem = _set(st.Entry(key=st.Name(value=key), body=()), rest, value, path)
        if problem:
            return entry, problem
        return replace(entry, body=(*body, created)), None
    return replace(entry, body=(*body, st.Entry(key=st.Name(value=key), alternatives=value))), None


def _replace_value(entry: st.Entry, value: tuple[st.Alternative, ...]) -> st.Entry:
    """New leading value, keeping the entry's options (`basis owning ...`) and body."""
    options = OPTIONS_OF.get(entry.key.value)
    atoms = entry.atoms
    if options and len(value) == 1:
        cut = next(
            (i for i, a in enumerate(atoms) if isinstance(a, st.Name) and a.value in options),
            len(atoms),
        )
        new_atoms = value[0].atoms + atoms[cut:]
        return replace(entry, alternatives=(st.Alternative(atoms=new_atoms),))
    return replace(entry, alternatives=value)
