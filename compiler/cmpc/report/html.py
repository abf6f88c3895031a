"""report.md -> report.html: a self-contained page (figures inline, footnotes rendered, a table
of contents, hover text and legend toggles from one small vendored script); raw HTML in the
Markdown is never passed, and nothing is fetched when the page is built or viewed."""

from __future__ import annotations

import base64
import hashlib
import html as htmllib
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererProtocol
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
line-height:1.45;color:#222}.cmpc-table{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;margin:1rem 0}
td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top;text-align:left;
overflow-wrap:anywhere}code{font-size:.9em;overflow-wrap:anywhere}
blockquote{border-left:4px solid #c00;margin:1rem 0;padding:.25rem 1rem;background:#fff4f4}
.footnotes{font-size:.9em}svg{max-width:100%;height:auto}figure{margin:1rem 0}
nav.cmpc-toc{border:1px solid #ddd;background:#fafafa;padding:.5rem 1rem;margin:1rem 0}
nav.cmpc-toc ul{margin:.25rem 0;padding-left:1.25rem}.cmpc-hidden{display:none}
.cmpc-legend{cursor:pointer}.cmpc-off{opacity:.35}figure svg *{pointer-events:none}
figure svg .cmpc-point,figure svg .cmpc-legend,figure svg .cmpc-legend *{pointer-events:auto}
#cmpc-tooltip{position:fixed;z-index:10;pointer-events:none;background:#fff;border:1px solid #888;
padding:.3rem .5rem;font-size:.8rem;box-shadow:0 1px 4px rgba(0,0,0,.25);max-width:28rem}
@media print{nav.cmpc-toc{display:none}}"""

SCRIPT = "interactive.js"

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", re.DOTALL)


def _parser(figures: Mapping[str, str | bytes]) -> MarkdownIt:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from mdit_py_plugins.anchors import anchors_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table").use(footnote_plugin).use(anchors_plugin, min_level=2, max_level=3)
    assert isinstance(md.renderer, RendererHTML)  # the default renderer, whose rules we extend
    default_image = md.renderer.rules["image"]

    def image(
        renderer: RendererProtocol,
        tokens: Sequence[Token],
        idx: int,
        options: OptionsDict,
        env: EnvType,
    ) -> str:
        src = tokens[idx].attrGet("src")
        content = figures.get(src) if isinstance(src, str) else None
        if isinstance(content, str) and isinstance(src, str) and src.endswith(".svg"):
            return f'<figure class="cmpc-figure">{_PROLOGUE.sub("", content, count=1)}</figure>'
        return default_image(tokens, idx, options, env)

    md.add_render_rule("image", image)

    def table_open(
        renderer: RendererProtocol,
        tokens: Sequence[Token],
        idx: int,
        options: OptionsDict,
        env: EnvType,
    ) -> str:
        return '<div class="cmpc-table"><table>\n'

    def table_close(
        renderer: RendererProtocol,
        tokens: Sequence[Token],
        idx: int,
        options: OptionsDict,
        env: EnvType,
    ) -> str:
        return "</table></div>\n"

    md.add_render_rule("table_open", table_open)  # a wide table scrolls; the page does not
    md.add_render_rule("table_close", table_close)
    return md


def script() -> str:
    """The page's vendored script (compiler/cmpc/report/static/interactive.js)."""
    return resources.files("cmpc.report").joinpath("static", SCRIPT).read_text(encoding="utf-8")


def _contents(tokens: Sequence[Token]) -> str:
    """The table of contents: every level-2 and level-3 heading, linked by its anchor."""
    items: list[tuple[int, str, str]] = []
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag in ("h2", "h3") and t.attrGet("id"):
            text = "".join(c.content for c in tokens[i + 1].children or [] if c.type != "softbreak")
            items.append((int(t.tag[1]), str(t.attrGet("id")), text))
    if not items:
        return ""
    out = ['<nav class="cmpc-toc" aria-label="Contents"><strong>Contents</strong>\n<ul>']
    open_sub = False
    for level, anchor, text in items:
        if level == 3 and not open_sub:
            out.append("<ul>")
            open_sub = True
        elif level == 2 and open_sub:
            out.append("</ul>")
            open_sub = False
        link = f'<li><a href="#{htmllib.escape(anchor)}">{htmllib.escape(text)}</a></li>'
        out.append(link)
    if open_sub:
        out.append("</ul>")
    out.append("</ul></nav>\n")
    return "\n".join(out)


def to_html(markdown: str, title: str, files: Mapping[str, str | bytes]) -> str:
    """A standalone page; spec text stays text because raw HTML in Markdown is not passed.

    The Content-Security-Policy admits only the page's own style and its one script (by hash),
    so the page cannot fetch anything, whatever a spec or a template puts in it.
    """
    md = _parser(files)
    env: dict[str, object] = {}
    tokens = md.parse(markdown, env)
    body = md.renderer.render(tokens, md.options, env)
    toc = _contents(tokens)
    if toc:  # after the title: the first heading is the report's h1
        end = body.find("</h1>")
        cut = end + len("</h1>\n") if end >= 0 else 0
        body = body[:cut] + toc + body[cut:]
    code = script()
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
    plain = re.sub(r"\\(.)", r"\1", str(title))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{htmllib.escape(plain)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f'{body}<div id="cmpc-tooltip" role="tooltip" hidden></div>\n'
        f"<script>{code}</script>\n</body>\n</html>\n"
    )
