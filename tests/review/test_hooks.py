"""The pre-commit hooks: `cmpc-fmt` rewrites a spec in place, `cmpc-fmt-check` only reports."""

from __future__ import annotations

import re
from pathlib import Path

from cmpc.cli import main

from .conftest import SPEC

HOOKS = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()


def entry(hook: str) -> list[str]:
    found = re.search(rf"^- id: {hook}\n(?:  .*\n)*?  entry: (.+)$", HOOKS, re.M)
    assert found, hook
    program, *args = found.group(1).split()
    assert program == "cmpc"
    return args


def test_the_fixing_hook_rewrites_and_the_checking_hook_only_reports(tmp_path, capsys):
    """pre-commit passes the staged files after the entry; a formatter hook changes them and
    pre-commit fails the commit because files changed, whatever the exit code."""
    untidy = SPEC.replace("  baseline y", "  baseline    y").replace(
        "  normalize per gpu", "normalize per gpu"
    )
    spec = tmp_path / "s.cmp"
    spec.write_text(untidy, encoding="utf-8")
    assert main([*entry("cmpc-fmt-check"), str(spec)]) == 1
    assert spec.read_text() == untidy
    assert "would reformat" in capsys.readouterr().out
    assert main([*entry("cmpc-fmt"), str(spec)]) == 0
    assert spec.read_text() == SPEC
    assert main([*entry("cmpc-fmt-check"), str(spec)]) == 0
    assert main([*entry("cmpc-check"), str(spec)]) == 0
