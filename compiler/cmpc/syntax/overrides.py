"""`--set PATH=VALUE` and `--unset PATH`: edit a value of the spec's syntax tree before checking."""

from __future__ import annotations

from dataclasses import dataclass, replace

from cmpc.diagnostics import Diagnostic, error
from cmpc.language import vocabulary as V
from cmpc.source import SourceFile, Span
from cmpc.syntax import tree as st
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import values_text

# Keys whose entries carry `key value` options after the value: `--set` replaces the value only,
# and `KEY.OPTION` reaches one option (`system.b300.price.as_of`).
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
# A price's own provenance: when `--set` gives a new amount, the spec's source and date described
# the old one, so they are dropped unless `--set` gives them too.
PRICE_PROVENANCE = ("source", "as_of")
SOURCE_PREFIX = "--set #"  # the name of each override's source file (`--set #1`, ...)


@dataclass(frozen=True)
class Override:
    """One `--set PATH=VALUE` (or, with no value, one `--unset PATH`)."""

    path: str
    value: str | None  # None: remove the key
    was: str | None = None  # the spec's own value, as written there; None: the spec had none

    @property
    def text(self) -> str:
        """The command-line text, as diagnostics show it."""
        return f"--unset {self.path}" if self.value is None else f"--set {self.path}={self.value}"


def parse_override(text: str) -> Override | None:
    path, sep, value = text.partition("=")
    if not sep or not path.strip() or not value.strip():
        return None
    return Override(path.strip(), value.strip())


def parse_unset(text: str) -> Override | None:
    path = text.strip()
    return Override(path, None) if path and "=" not in path else None


def from_command_line(span: Span | None) -> bool:
    """Whether text at this span was given by `--set` rather than written in the spec."""
    return span is not None and span.file.startswith(SOURCE_PREFIX)


def apply_overrides(
    spec: st.Spec, overrides: list[Override]
) -> tuple[st.Spec, list[Diagnostic], dict[str, SourceFile], list[Override]]:
    """The spec with each override applied; values are parsed with the spec's own literals.

    The overrides are returned with the spec value each one replaced (`was`), so a report can
    say what the reviewed spec said.

    Each override's source file holds its command-line text, so a diagnostic about its value
    shows `--set PATH=VALUE` with a caret under the value.
    """
    diagnostics: list[Diagnostic] = []
    sources: dict[str, SourceFile] = {}
    root = spec.root
    applied = list(overrides)
    for n, override in enumerate(overrides, 1):
        name = f"{SOURCE_PREFIX}{n}" if override.value is not None else f"--unset #{n}"
        display = SourceFile(name, override.text)
        sources[name] = display
        whole = Span(name, 0, len(override.text))
        value: tuple[st.Alternative, ...] | None = None
        if override.value is not None:
            # `v` then spaces up to the value: the value's offsets are those of the shown text
            head = len(override.text) - len(override.value)
            parsed, problems = parse_spec(SourceFile(name, "v" + " " * (head - 1) + override.value))
            if parsed is None or parsed.root.body is not None:
                diagnostics += problems or [
                    error(
                        "E501",
                        f"`{override.text}`: the value is not a plain value",
                        Span(name, head, len(override.text)),
                        label="a value as a spec writes it, without `{ ... }`",
                    )
                ]
                continue
            value = parsed.root.alternatives
        steps = _steps(override.path)
        was: list[str] = []
        new_root, problem = _set(root, steps, value, was)
        if problem:
            path_start = len("--unset ") if override.value is None else len("--set ")
            diagnostics.append(
                error(
                    "E501",
                    f"cannot apply `{override.text}`: {problem}",
                    Span(name, path_start, path_start + len(override.path))
                    if override.path
                    else whole,
                    label="this path",
                    help="paths name blocks and keys, e.g. `cost.utilization`, "
                    "`latency.statistic`, `system.mi355x.price`, `system.mi355x.price.as_of`",
                )
            )
            continue
        root = new_root
        # a path set twice: the spec's value is what the first one replaced
        first = next((o for o in applied[: n - 1] if _steps(o.path) == steps), None)
        spec_value = first.was if first is not None else (was[0] if was else None)
        applied[n - 1] = replace(override, was=spec_value)
    return replace(spec, root=root), diagnostics, sources, applied


def _steps(path: str) -> list[str]:
    """A path's steps as the spec names them: aliases resolved, a leading `comparison` dropped."""
    steps = [ALIASES.get(s, s) for s in path.split(".") if s]
    return steps[1:] if steps and steps[0] == "comparison" else steps


def _named(child: st.Entry, label: str) -> bool:
    return (
        len(child.atoms) == 1
        and isinstance(child.atoms[0], st.Name)
        and child.atoms[0].value == label
    )


def _set(
    entry: st.Entry,
    steps: list[str],
    value: tuple[st.Alternative, ...] | None,
    was: list[str],
) -> tuple[st.Entry, str | None]:
    """The entry with the value at `steps` replaced; `was` receives the text it replaced."""
    if not steps:
        return entry, "the path is empty"
    key, rest = steps[0], steps[1:]
    label = None
    if key in NAMED_BLOCKS:
        if not rest:
            return entry, f"`{key}` needs a name, e.g. `{key}.NAME.KEY`"
        label, rest = rest[0], rest[1:]
    body = list(entry.body or ())
    candidates = [
        i for i, c in enumerate(body) if c.key.value == key and (label is None or _named(c, label))
    ]
    options = OPTIONS_OF.get(key, {})
    if candidates and rest and key == "price" and rest[0] not in options:
        # `price.SCENARIO[.PART]`: the price of that scenario (its basis when it names none)
        scenario, rest = rest[0], rest[1:]
        candidates = [
            i for i in candidates if _option_text(body[i], "scenario", "basis") == scenario
        ]
        if not candidates:
            return entry, f"no price of scenario `{scenario}` in the spec"
    if candidates:
        i = candidates[0]
        child = body[i]
        if rest and key in OPTIONS_OF and rest[0] in options and len(rest) == 1:
            if (old := _option_atoms(child, rest[0])) is not None:
                was.append(values_text((st.Alternative(atoms=old),)))
            new_child, problem = _set_option(child, rest[0], value)
        elif rest and child.body is None and child.alternatives:
            # a value line (`normalize per gpu`): a key under it would be a block it is not
            return entry, f"`{key}` is a value, not a block: set it whole, e.g. `{key}=...`"
        elif rest:
            new_child, problem = _set(child, rest, value, was)
        elif value is None:  # removed whole: what it was, its basis and source included
            was.append(values_text(child.alternatives) if child.alternatives else "{ ... }")
            del body[i]
            return replace(entry, body=tuple(body)), None
        else:
            was.append(_leading_text(child))
            new_child, problem = _replace_value(child, value), None
        if problem:
            return entry, problem
        body[i] = new_child
        return replace(entry, body=tuple(body)), None
    if label is not None:
        return entry, f"no `{key} {label}` in the spec"
    if value is None:
        return entry, f"no `{key}` in the spec to remove"
    if rest:  # an absent block: create it, so `--set cost.utilization=40%` works without `cost`
        created, problem = _set(st.Entry(key=st.Name(value=key), body=()), rest, value, was)
        if problem:
            return entry, problem
        return replace(entry, body=(*body, created)), None
    return replace(entry, body=(*body, st.Entry(key=st.Name(value=key), alternatives=value))), None


def _leading_text(entry: st.Entry) -> str:
    """An entry's value without its `key value` options: `1.50 USD/gpu/h` of a price; a
    block's is `{ ... }` (a report says `was { ... } in the spec`, not `was `` `)."""
    if entry.body and not entry.alternatives:
        return "{ ... }"
    options = OPTIONS_OF.get(entry.key.value)
    if not options or len(entry.alternatives) != 1:
        return values_text(entry.alternatives)
    atoms = entry.atoms
    cut = next((i for i, a in enumerate(atoms) if _is_key(a, options)), len(atoms))
    return values_text((st.Alternative(atoms=atoms[:cut]),))


def _option_text(entry: st.Entry, *names: str) -> str | None:
    """The first of the named options an entry gives (inline or in its body), as a word."""
    for name in names:
        atoms = _option_atoms(entry, name)
        if atoms and isinstance(atoms[0], st.Name):
            return atoms[0].value
    return None


def _option_atoms(entry: st.Entry, name: str) -> tuple[st.Atom, ...] | None:
    start, end = _inline(entry, name)
    if start is not None:
        return entry.atoms[start + 1 : end]
    for child in entry.body or ():
        if child.key.value == name:
            return child.atoms
    return None


def _inline(entry: st.Entry, name: str) -> tuple[int | None, int]:
    """Where an inline option sits among the entry's atoms: (index of its key, end of its value)."""
    options = OPTIONS_OF.get(entry.key.value, {})
    atoms = entry.atoms
    for i, atom in enumerate(atoms):
        if isinstance(atom, st.Name) and atom.value == name:
            end = next(
                (j for j, a in enumerate(atoms) if j > i and _is_key(a, options)),
                len(atoms),
            )
            return i, end
    return None, len(atoms)


def _is_key(atom: st.Atom, options: dict[str, bool]) -> bool:
    return isinstance(atom, st.Name) and atom.value in options


def _set_option(
    entry: st.Entry, name: str, value: tuple[st.Alternative, ...] | None
) -> tuple[st.Entry, str | None]:
    """Set (or remove, with no value) one option of an entry, wherever the spec wrote it."""
    if value is not None and len(value) != 1:
        return entry, f"`{name}` takes one value, not alternatives"
    atoms = list(entry.atoms)
    start, end = _inline(entry, name)
    body = list(entry.body or ())
    in_body = next((i for i, c in enumerate(body) if c.key.value == name), None)
    if value is None and start is None and in_body is None:
        return entry, f"`{entry.key.value}` has no `{name}` to remove"
    new = [] if value is None else [st.Name(value=name), *value[0].atoms]
    if start is not None:
        atoms[start:end] = new
    elif in_body is not None:
        if value is None:
            del body[in_body]
        else:
            body[in_body] = replace(body[in_body], alternatives=value)
    else:
        atoms += new
    return _with(entry, tuple(atoms), tuple(body) if entry.body is not None else None), None


def _with(
    entry: st.Entry, atoms: tuple[st.Atom, ...], body: tuple[st.Entry, ...] | None
) -> st.Entry:
    return replace(entry, alternatives=(st.Alternative(atoms=atoms),), body=body)


def _replace_value(entry: st.Entry, value: tuple[st.Alternative, ...]) -> st.Entry:
    """New leading value, keeping the entry's options (`basis owning ...`) and body.

    A price's spec-given source and date are dropped: they were the old amount's.
    """
    options = OPTIONS_OF.get(entry.key.value)
    if not options or len(value) != 1:
        return replace(entry, alternatives=value)
    atoms = entry.atoms
    cut = next(
        (i for i, a in enumerate(atoms) if isinstance(a, st.Name) and a.value in options),
        len(atoms),
    )
    new = replace(entry, alternatives=(st.Alternative(atoms=value[0].atoms + atoms[cut:]),))
    if entry.key.value != "price":
        return new
    for name in PRICE_PROVENANCE:
        given = _option_atoms(new, name)
        if given is not None and not any(from_command_line(a.span) for a in given):
            new, _ = _set_option(new, name, None)
    return new
