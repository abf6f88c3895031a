"""report.md -> report.html for preview: footnotes rendered, figures inline, raw HTML disabled."""

from __future__ import annotations

import html as htmllib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererProtocol
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
line-height:1.45;color:#222}table{border-collapse:collapse;margin:1rem 0}
td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top;text-align:left}
code{font-size:.9em}blockquote{border-left:4px solid #c00;margin:1rem 0;padding:.25rem 1rem;
background:#fff4f4}.footnotes{font-size:.9em}svg{max-width:100%;height:auto}"""

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
    return md


def to_html(markdown: str, title: str, files: Mapping[str, str | bytes]) -> str:
    """A standalone page; spec text stays text because raw HTML in Markdown is not passed."""
    body = _parser(files).render(markdown)
    plain = re.sub(r"\\(.)", r"\1", str(title))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{htmllib.escape(plain)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{body}</body>\n</html>\n"
    )
