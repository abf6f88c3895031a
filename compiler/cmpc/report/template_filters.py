"""What report templates see besides the results: the output finalizer and cmpc's filters.

Shared by the jinja2 environment (report/environment.py) and the precompiled templates'
runtime (report/template_runtime.py), so both render with the very same functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cmpc.report import text as T


def finalize(value: object) -> str:
    """Every `{{ ... }}` output: cmpc's Markdown passes, numbers are formatted, text escaped."""
    if isinstance(value, T.Md):
        return value
    if value is None:
        return T.DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return T.number(value)
    return T.escape(value)


def footnote_mark(notes: Mapping[str, object], key: str) -> T.Md | None:
    """The mark `[^key]` of a footnote the report defines; None for an unknown key."""
    if key not in notes:
        return None
    return T.Md("[^{}]").format(key)


def unknown_footnote(notes: Mapping[str, object], key: str) -> str:
    """The template error of `fn(key)` for a key no footnote has."""
    return f"no footnote `{key}`; defined: {', '.join(notes)}"


def mdjoin(items: Iterable[object], separator: str = ", ") -> T.Md:
    """`join` that keeps cmpc's Markdown and escapes everything else (jinja's `join` would
    return plain text, which the output then escapes a second time)."""
    sep = T.SPECIAL.sub(r"\\\1", " ".join(str(separator).splitlines()))
    return T.Md(sep).join(items)


FILTERS = {
    "mdjoin": mdjoin,
    "pct": T.percent,
    "num": T.number,
    "ratio": T.ratio,
    "usd": T.usd,
    "gb": T.gigabytes,
    "md": T.escape,
    "code": T.code,
    "link": T.link,
}
