"""Untrusted text made inert where cmpc shows it: terminals and logs, GitHub, CSV, reports.

Spec strings, file names and run-file fields are written by whoever sends the pull request.
Each place they are shown has one function here, and every rendering of that place calls it.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# Characters that act instead of being read: controls (C0, DEL, C1: ESC starts terminal
# sequences, a line break starts a new log line), bidirectional controls and marks (the Trojan
# Source trick reorders what a reader sees), zero-width and invisible characters, line and
# paragraph separators, and what no text encoding can hold (lone surrogates, U+FFFE/U+FFFF).
_BEYOND_C0 = (
    "\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffb\ud800-\udfff\ufffe\uffff"
)
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


HIDDEN_TEXT = f"[\x00-\x1f{_BEYOND_C0}]"  # `hidden_pattern`'s text


# The patterns are compiled at their first use (together a thirtieth of `cmpc check`), and
# ASCII text is tested first at C speed: a clean spec compiles none of them.
@functools.cache
def hidden_pattern() -> re.Pattern[str]:
    """Every character a reader would not see as written (`HIDDEN`)."""
    return re.compile(HIDDEN_TEXT)


@functools.cache
def _json_hidden() -> re.Pattern[str]:
    return re.compile(f"[{_BEYOND_C0}]")  # the JSON encoder escapes C0 itself


def __getattr__(name: str) -> Any:
    if name == "HIDDEN":
        return hidden_pattern()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def plain_ascii(text: str, allowed: str = "") -> bool:
    """Whether `text` is ASCII holding no hidden character but those in `allowed`."""
    shown = _PRINTABLE_ASCII + allowed.encode("ascii")
    return text.isascii() and not text.encode("ascii").translate(None, shown)


def _shown(match: re.Match) -> str:
    ch = match.group()
    return _SHORT.get(ch) or f"\\u{ord(ch):04X}"


def visible(text: object) -> str:
    """Text with every hidden character written out: `\\n`, `\\r`, `\\t`, else `\\u202E`."""
    text = str(text)
    return text if plain_ascii(text) else hidden_pattern().sub(_shown, text)


def terminal_text(text: object) -> str:
    """Untrusted text for a terminal or a CI log: one line, nothing a terminal would act on."""
    return visible(text)


def json_text(document: str) -> str:
    """A JSON document whose strings hold hidden characters as `\\u` escapes: a reader decodes
    the same strings, a terminal shows only printable text."""
    if document.isascii() and "\x7f" not in document:
        return document
    return _json_hidden().sub(lambda m: f"\\u{ord(m.group()):04x}", document)


def github_message(text: str) -> str:
    """The message of a GitHub workflow command: `%`, CR and LF encoded as GitHub requires."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A property value (`file=`, `title=`) of a workflow command: also `:` and `,` encoded."""
    return github_message(text).replace(":", "%3A").replace(",", "%2C")


# OWASP's CSV injection rule: a cell starting with one of these is read as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER_TEXT = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?|[+-]?inf|nan"


def csv_cell(text: str) -> str:
    """A CSV text cell that no spreadsheet runs as a formula: a leading `'` unless a number."""
    if text.startswith(_FORMULA_START) and not re.fullmatch(NUMBER_TEXT, text):
        return "'" + text
    return text
