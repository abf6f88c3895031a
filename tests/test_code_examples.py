"""Every registered code's Wrong and Fixed examples: compiled where they are whole specs, and
otherwise marked (`context` in codes/*.toml) with where they are exercised instead."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.diagnostics import codes
from cmpc.source import SourceFile

FIXTURES = Path(__file__).parent / "diagnostics"
CONTEXTS = {"spec", "fragment", "build", "trace", "cli"}
TESTS = "\n".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.rglob("*.py"))


def _example(explanation: str, heading: str) -> str:
    found = re.search(heading + r":\n\n((?:    .*\n|\n)+)", explanation + "\n")
    assert found, f"no indented {heading} example"
    return textwrap.dedent(found.group(1)).strip("\n") + "\n"


def _codes(source: str) -> set[str]:
    _, diagnostics = compile_source(SourceFile("example.cmp", source))
    return {d.code for d in diagnostics}


@pytest.mark.parametrize("code", sorted(codes()))
def test_every_code_says_where_its_examples_compile(code: str):
    info = codes()[code]
    assert info.context in CONTEXTS, f"{code}: context {info.context!r}"
    if info.context == "spec":
        wrong, fixed = _example(info.explanation, "Wrong"), _example(info.explanation, "Fixed")
        assert code in _codes(wrong), f"{code}: its Wrong example does not produce it"
        assert _codes(fixed) == set(), f"{code}: its Fixed example does not check clean"
    elif info.context == "fragment":
        # the example shows the lines that matter; the whole spec is the code's fixture
        assert list(FIXTURES.glob(f"{code}-*.cmp")), f"{code}: a fragment needs a fixture"
        fixed = _example(info.explanation, "Fixed")
        assert code not in _codes(fixed), f"{code}: its Fixed fragment still produces it"
    else:
        # needs data files, a build or a command line: a test elsewhere must produce it
        fixture = list(FIXTURES.glob(f"{code}-*.cmp"))
        assert fixture or f'"{code}"' in TESTS, f"{code}: no test exercises it"
