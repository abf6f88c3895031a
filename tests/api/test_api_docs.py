"""The Python examples in docs/api.md run, in order, from the repository's root."""

from __future__ import annotations

import re

from .helpers import REPO

DOC = REPO / "docs" / "api.md"


def test_every_python_example_in_the_api_page_runs(monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(REPO)  # the examples name specs/synthetic-sweep.cmp
    scope: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), scope)  # our own documentation
    assert scope["gated"].exit_code == 3  # type: ignore[attr-defined]
    assert "error[E810]" in capsys.readouterr().out
