"""Every golden report parses as GitHub would read it: its tables are tables, its footnote
references resolve and render apart (GitHub runs `[^a][^b]` together as one superscript "12")."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
REPORTS = sorted(GOLDEN.glob("*/report.md"))


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").use(footnote_plugin)


def _table_blocks(text: str) -> list[list[str]]:
    """Runs of consecutive lines that start with `|` (outside code fences)."""
    blocks: list[list[str]] = []
    fenced, current = False, []
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("|"):
            current.append(line)
            continue
        if current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def test_there_are_golden_reports():
    assert len(REPORTS) >= 5


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.parent.name)
def test_every_table_parses_with_its_rows_and_columns(path: Path):
    text = path.read_text(encoding="utf-8")
    tokens = _parser().parse(text)
    tables = []
    for i, t in enumerate(tokens):
        if t.type == "table_open":
            rows = cells = 0
            j = i
            while tokens[j].type != "table_close":
                rows += tokens[j].type == "tr_open"
                cells += tokens[j].type in ("td_open", "th_open")
                j += 1
            tables.append((rows, cells))
    blocks = _table_blocks(text)
    assert len(tables) == len(blocks), "a `|` block did not parse as a table"
    for (rows, cells), block in zip(tables, blocks, strict=True):
        assert rows == len(block) - 1, block[0]  # every line but the delimiter row is a row
        columns = block[1].count("---")
        assert cells == rows * columns, f"{block[0]}: a row has the wrong number of cells"


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.parent.name)
def test_every_footnote_reference_resolves_and_renders_apart(path: Path):
    text = path.read_text(encoding="utf-8")
    md = _parser()
    env: dict = {}
    tokens = md.parse(text, env)
    defined = set(env.get("footnotes", {}).get("refs", {}))
    written = set(re.findall(r"\[\^([A-Za-z0-9_-]+)\](?!:)", text))
    assert {f":{k}" for k in written} <= defined, "a reference without its definition"
    refs = 0
    for block in tokens:
        children = block.children or []
        for a, b in itertools.pairwise(children):
            assert not (a.type == b.type == "footnote_ref"), f"{path.name}: adjacent footnotes"
        refs += sum(c.type == "footnote_ref" for c in children)
    assert refs >= len(written)
    html = md.render(text)
    assert "[^" not in html  # every reference and definition became a footnote
    assert ('class="footnotes"' in html) == bool(written)
