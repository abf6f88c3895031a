"""Every spec in specs/ checks clean (no errors, no warnings) and is in canonical format."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.source import SourceFile
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import format_spec

SPECS = sorted((Path(__file__).resolve().parents[1] / "specs").glob("*.cmp"))


def test_specs_exist():
    assert SPECS, "no specs found"


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_checks_clean(path: Path):
    source = SourceFile(path.name, path.read_text(encoding="utf-8"))
    comparison, diagnostics = compile_source(source)
    assert diagnostics == [] and comparison is not None


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_spec_is_canonically_formatted(path: Path):
    text = path.read_text(encoding="utf-8")
    spec, _ = parse_spec(SourceFile(path.name, text))
    assert format_spec(spec, text) == text
