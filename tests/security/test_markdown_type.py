"""The report's Markdown type escapes on composition, as `markupsafe.Markup` does for HTML: spec
text spliced into cmpc's Markdown by `+`, `%`, `.format` or `.join` is escaped, and no report
module builds Markdown from an f-string (which would splice it raw)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cmpc.report.context import Context
from cmpc.report.html import to_html
from cmpc.report.text import Md, escape

COMPILER = Path(__file__).resolve().parents[2] / "compiler" / "cmpc"
# Markdown link, emphasis, raw HTML, a table cell break, a list marker and a hidden character.
HOSTILE = "- *x* [a](javascript:alert(1)) <img src=x onerror=alert(1)> | `c` \u202e"
SAFE = escape(HOSTILE)

COMPOSED = {
    "md + text": lambda: Md("label: ") + HOSTILE,
    "text + md": lambda: HOSTILE + Md(" :label"),
    "md % text": lambda: Md("label: %s") % HOSTILE,
    "md % (text,)": lambda: Md("label: %s") % (HOSTILE,),
    "md % {text}": lambda: Md("label: %(v)s") % {"v": HOSTILE},
    "md.format(text)": lambda: Md("label: {}").format(HOSTILE),
    "md.format(v=text)": lambda: Md("label: {v}").format(v=HOSTILE),
    "md.format(text!r)": lambda: Md("label: {!s}").format(HOSTILE),
    "md.format_map": lambda: Md("label: {v}").format_map({"v": HOSTILE}),
    "md.join": lambda: Md(", ").join(["label:", HOSTILE]),
}


@pytest.mark.parametrize("how", sorted(COMPOSED))
def test_composing_markdown_with_spec_text_escapes_it(how):
    result = COMPOSED[how]()
    assert isinstance(result, Md)
    assert SAFE in result
    assert "\u202e" not in result
    raw = re.search(r"(?<!\\)[*\[\]<>|`]", result)  # a markup character without its backslash
    assert raw is None, f"{how} spliced {raw.group()!r} raw into {result!r}"


def test_composing_markdown_keeps_markdown_and_numbers_as_they_are():
    bold = Md("**bold**")
    assert Md("{} and {}").format(bold, HOSTILE) == f"**bold** and {SAFE}"
    assert bold + Md(" x") == "**bold** x" and bold * 2 == "**bold****bold**"
    assert Md("{:.2f} ms, %d runs").format(1.5) % 3 == "1.50 ms, 3 runs"
    assert Md("; ").join([bold, "*b*"]) == "**bold**; \\*b\\*"


def test_a_section_composes_spec_text_escaped():
    """A label and a source status from the results reach a sentence only escaped."""
    results = {
        "systems": {"a": {"label": HOSTILE, "data": "reported", "source": "s"}},
        "sources": [{"name": "s", "title": HOSTILE, "status": "*unverified*"}],
    }
    text = Context.of(results).origin_text("a")
    assert text == f"reported by {SAFE}, \\*unverified\\*; not recomputed by cmpc"


def test_markdown_is_not_html_safe_so_html_output_still_escapes_it():
    """`Md` claims to be Markdown, never HTML: no `__html__`, so jinja2 and markupsafe escape it
    for HTML, and the HTML preview renders its characters as text."""
    assert not hasattr(Md("x"), "__html__")
    page = to_html(Md("label: ") + "<script>alert(1)</script>", "t", {})
    from cmpc.report.html import script

    page = page.replace(f"<script>{script()}</script>", "")  # cmpc's own page script
    assert "<script>" not in page and "&lt;script&gt;" in page


def _md_built_from_unescaped_text(tree: ast.AST) -> list[int]:
    """Lines where `Md(...)` wraps an f-string, a `+`/`%` of strings, or a plain `str`'s
    `.format`/`.join`: text spliced before it became Markdown, so nothing escaped it."""
    lines = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func
        if not (name == "Md" or (isinstance(name, ast.Name) and name.id == "Md")):
            continue
        arg = node.args[0]
        spliced = isinstance(arg, ast.JoinedStr | ast.BinOp) or (
            isinstance(arg, ast.Call)
            and isinstance(arg.func, ast.Attribute)
            and arg.func.attr in ("format", "join")
            and isinstance(arg.func.value, ast.Constant)
        )
        if spliced:
            lines.append(node.lineno)
    return lines


def test_no_module_builds_markdown_by_splicing_strings():
    """`text.py` is exempt: it is the escaper, the one place that turns text into Markdown."""
    found = {}
    for path in sorted(COMPILER.rglob("*.py")):
        if path == COMPILER / "report" / "text.py":
            continue
        lines = _md_built_from_unescaped_text(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[str(path.relative_to(COMPILER))] = lines
    assert not found, f"Md(f'...') or Md(str + str) splices text unescaped: {found}"


def test_the_check_finds_an_f_string():
    assert _md_built_from_unescaped_text(ast.parse('Md(f"{x}")\nT.Md("a" + b)')) == [1, 2]
    assert _md_built_from_unescaped_text(ast.parse('Md("{}").format(x)\nMd(y)')) == []
