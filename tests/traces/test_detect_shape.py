"""detect._shape: one search for the first line's end, the same shapes as splitting the head."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pytest

from cmpc.traces import detect
from cmpc.traces.jsonscan import TraceError


def _split_shape(head: str) -> str:
    """The shape as it was computed before: the head split at its first newline, twice."""
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return "empty"
    if text[0] == "[":
        return "array"
    if text[0] != "{":
        return "other"
    first = text.split("\n", 1)[0].strip()
    rest = text.split("\n", 1)[1].lstrip() if "\n" in text else ""
    if rest.startswith("{"):
        try:
            json.loads(first)
        except ValueError:
            return "object"
        except RecursionError:
            raise TraceError("JSON nested too deeply", "line 1", "E301") from None
        return "lines"
    return "object"


def _shape_or_error(shape, head: str) -> str:
    try:
        return shape(head)
    except TraceError as exc:
        return f"error {exc.code}"


def test_regexs_whitespace_is_strs_so_the_line_after_starts_where_lstrip_stops():
    space = re.compile(r"\s")
    differ = [c for c in range(sys.maxunicode + 1) if bool(space.match(chr(c))) != chr(c).isspace()]
    assert differ == []


def test_shapes_equal_the_split_heads_on_seeded_synthetic_heads():
    rng = np.random.default_rng(31)  # seeded synthetic heads from JSON-ish pieces
    pieces = ['{"a": 1}', "{", "}", "[", "\n", "\r\n", " ", "\t", "\ufeff", "\u2028", "\x1c",
              "\u00a0", '"x"', "1", "{}", "[[", "\n{", "\n \u3000{"]  # fmt: skip
    heads = ["", "\n", "{}", '{"a": 1}\n{"b": 2}\n', '{"a":\n{"b": 2}', "[1]", "x",
             "{" * 5000 + "\n{"]  # fmt: skip
    heads += ["".join(rng.choice(pieces, int(rng.integers(1, 12)))) for _ in range(3000)]
    for head in heads:
        assert _shape_or_error(detect._shape, head) == _shape_or_error(_split_shape, head), head


@pytest.mark.parametrize("lines", [1, 3])
def test_a_one_line_document_and_json_lines(lines):
    head = "\n".join(json.dumps({"k": i}) for i in range(lines)) + "\n"
    assert detect._shape(head) == ("object" if lines == 1 else "lines")


def test_a_head_is_empty_exactly_when_stripping_its_blanks_and_bom_bytes_leaves_nothing():
    rng = np.random.default_rng(37)  # seeded synthetic heads of blank, BOM and other bytes
    alphabet = np.frombuffer(b"\xef\xbb\xbf \t\r\n{x\x00\xff\x0b\x0c", dtype=np.uint8)
    heads = [b"", b"\xef\xbb\xbf", b" \n", b"\x0b", b" " * 5000 + b"{"]
    heads += [rng.choice(alphabet, int(rng.integers(0, 9))).tobytes() for _ in range(4000)]
    for head in heads:
        assert detect.is_empty(head) == (not head.strip(b"\xef\xbb\xbf \t\r\n")), head
