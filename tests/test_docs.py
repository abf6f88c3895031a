"""The documentation's examples do what the documentation says they do."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[1]
LANGUAGE = REPO / "docs" / "language.md"
CI = REPO / "docs" / "ci.md"
FENCE = re.compile(r"^```cmp (spec|top|system)((?: [EW]\d{3})*)\n(.*?)^```$", re.M | re.S)

# A minimal comparison that checks clean: `top` examples go inside it, `system` examples
# inside its system `mi355x`; an entry the example gives itself replaces the harness's own.
TOP = {
    "question": 'question "Which serves more tokens per GPU?"',
    "baseline": "baseline b300",
    "source inferencex": (
        'source inferencex { title "InferenceX"; role third_party; snapshot 2026-10-09 }'
    ),
    "source semianalysis_tco": (
        'source semianalysis_tco { title "TCO model"; role third_party; snapshot 2026-08-14 }'
    ),
    "latency": "latency { metric tpot; statistic p90; target 50 tok/s/user }",
    "tokens": "tokens { count input + output; reused included }",
    "normalize": "normalize per gpu",
    "system mi355x": "system mi355x {\n{mi355x}\n}",
    "system b300": "system b300 {\n{b300}\n}",
}
SYSTEM = {
    "accelerator": 'accelerator "X" x 8',
    "parallel": "parallel tp 8",
    "cache_hit_rate": "cache_hit_rate unknown",
    "reported": "reported { source inferencex; statistic p90; ratio {ratio} }",
}
RATIO = {"mi355x": "1.244 to b300", "b300": "1"}
NAMED = {"system", "source", "claim"}


def _keys(text: str) -> set[str]:
    """The example's own top-level entries, as the harness names them (`system a`, `latency`)."""
    keys, depth = set(), 0
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if depth == 0 and words:
            key = words[0]
            keys.add(f"{key} {words[1]}" if key in NAMED and len(words) > 1 else key)
        depth += line.count("{") - line.count("}")
    return keys


def _system(name: str, example: str = "") -> str:
    own = _keys(example)
    if "runs" in own:  # a system's data is runs or reported figures, never both
        own.add("reported")
    lines = [v.replace("{ratio}", RATIO[name]) for k, v in SYSTEM.items() if k not in own]
    return "\n".join([*lines, example])


def _spec(kind: str, example: str) -> str:
    if kind == "spec":
        return example
    own = _keys(example) if kind == "top" else set()
    entries = [v for k, v in TOP.items() if k not in own]
    body = "\n".join([*entries, example if kind == "top" else ""])
    body = body.replace("{mi355x}", _system("mi355x", example if kind == "system" else ""))
    return 'comparison "docs example" {\n' + body.replace("{b300}", _system("b300")) + "\n}\n"


def _examples():
    text = LANGUAGE.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        kind, codes, example = match.group(1), match.group(2).split(), match.group(3)
        yield pytest.param(kind, sorted(codes), example, id=f"language.md:{line}")


EXAMPLES = list(_examples())


def test_the_language_reference_has_examples_of_every_kind():
    assert {p.values[0] for p in EXAMPLES} == {"spec", "top", "system"}
    assert any(p.values[0] == "spec" and not p.values[1] for p in EXAMPLES)


@pytest.mark.parametrize(("kind", "codes", "example"), EXAMPLES)
def test_every_language_example_checks_as_its_fence_says(kind, codes, example):
    """`cmp spec` blocks are whole specs; blocks without codes check clean."""
    spec = _spec(kind, example)
    _, diagnostics = compile_source(SourceFile("example.cmp", spec))
    found = sorted(d.code for d in diagnostics)
    assert found == codes, (spec, [d.message for d in diagnostics])


def _pre_commit_example() -> tuple[str, list[str]]:
    text = CI.read_text(encoding="utf-8")
    block = re.search(r"```yaml\nrepos:\n(.*?)```", text, re.S)
    assert block, "docs/ci.md has no pre-commit example"
    rev = re.search(r"^\s*rev:\s*(\S+)", block.group(1), re.M)
    assert rev, "the pre-commit example has no `rev:`"
    return rev.group(1), re.findall(r"^\s*- id:\s*(\S+)", block.group(1), re.M)


def test_the_pre_commit_example_pins_a_commit_that_ships_its_hooks():
    """pre-commit checks `rev` out with git: it must be a tag or commit that exists (the
    repository has no tags, so a SHA), and the hooks the example names must be defined there."""
    rev, ids = _pre_commit_example()
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"`rev: {rev}` is not a pinned commit"
    hooks = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert hooks.returncode == 0, hooks.stderr
    defined = re.findall(r"^- id:\s*(\S+)", hooks.stdout, re.M)
    assert ids and set(ids) <= set(defined), (ids, defined)
    current = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert set(ids) <= set(re.findall(r"^- id:\s*(\S+)", current, re.M))


def test_every_hook_entry_is_a_cmpc_verb():
    from cmpc.cli import main

    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    entries = re.findall(r"^\s*entry:\s*(.+)$", hooks, re.M)
    assert entries
    for entry in entries:
        program, *args = entry.split()
        assert program == "cmpc"
        assert main([*args, str(REPO / "specs" / "synthetic-sweep.cmp")]) == 0, entry
