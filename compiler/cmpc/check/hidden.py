"""Hidden characters in a spec's text: one W008 warning for each line that holds any."""

from __future__ import annotations

import unicodedata

from cmpc.diagnostics import Diagnostic, warning
from cmpc.safe_text import hidden_pattern, plain_ascii, visible
from cmpc.source import SourceFile

_LAYOUT = "\t\n\r"  # tabs and line breaks (CRLF included) are how text is laid out


def hidden_characters(source: SourceFile) -> list[Diagnostic]:
    """W008 at each line holding a bidi control, zero-width or control character."""
    found: dict[int, list[int]] = {}
    if plain_ascii(source.text, _LAYOUT):
        return []
    for match in hidden_pattern().finditer(source.text):
        if match.group() not in _LAYOUT:
            found.setdefault(source.line_col(match.start())[0], []).append(match.start())
    return [_warn(source, offsets) for offsets in found.values()]


def _warn(source: SourceFile, offsets: list[int]) -> Diagnostic:
    chars = dict.fromkeys(source.text[i] for i in offsets)
    names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'control').lower()}" for c in chars)
    return warning(
        "W008",
        f"hidden character{'s' * (len(chars) > 1)} in the spec: {names}",
        source.span(offsets[0], offsets[-1] + 1),
        label="shown as " + ", ".join(f"`{visible(c)}`" for c in chars),
        notes=("it makes the text read differently from what it holds (Trojan Source)",),
        help="delete it; reports and diagnostics show it written out, never acting on it",
    )
