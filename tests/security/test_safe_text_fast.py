"""safe_text's ASCII fast paths answer as its patterns do (they spare compiling them)."""

from __future__ import annotations

import re

from cmpc import safe_text
from cmpc.check.hidden import hidden_characters
from cmpc.source import SourceFile

# every character up to U+02FF and the hidden ones beyond, alone and inside ASCII text
CHARS = [chr(c) for c in range(0x300)] + ["\u061c", "\u200b", "\u202e", "\u2066", "\ufeff"]
CHARS += ["\ud800", "\ufffe", "\uffff", "é", "💥"]
TEXTS = ["", "plain text", "a\tb\nc\r\n"] + [f"x{c}y" for c in CHARS] + CHARS


def test_visible_and_json_text_equal_their_patterns():
    hidden = safe_text.hidden_pattern()
    json_hidden = re.compile(hidden.pattern.replace("\x00-\x1f", ""))
    for text in TEXTS:
        assert safe_text.visible(text) == hidden.sub(safe_text._shown, text), repr(text)
        expected = json_hidden.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        assert safe_text.json_text(text) == expected, repr(text)


def test_plain_ascii_is_no_match_of_the_pattern_outside_the_allowed():
    hidden = safe_text.hidden_pattern()
    for text in TEXTS:
        for allowed in ("", "\t\n\r"):
            matches = [m.group() for m in hidden.finditer(text) if m.group() not in allowed]
            assert safe_text.plain_ascii(text, allowed) == (text.isascii() and not matches)


def test_hidden_characters_found_as_before_and_the_old_name_still_answers():
    assert safe_text.HIDDEN is safe_text.hidden_pattern()
    for text in TEXTS:
        source = SourceFile("s.cmp", text)
        lines = {
            source.line_col(m.start())[0]
            for m in safe_text.HIDDEN.finditer(text)
            if m.group() not in "\t\n\r"
        }
        assert len(hidden_characters(source)) == len(lines), repr(text)
