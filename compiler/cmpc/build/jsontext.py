"""JSON text as `json.dumps(doc, sort_keys=True, indent=2)` writes it, with fewer steps.

CPython's C encoder cannot indent (3.11), so with `indent` json runs its Python encoder
(18 M instructions for the benchmark sweep's results.json). Here a container of scalars only
is written by that C encoder, its item separator a line end and the indent of its items; the
containers above them are walked in Python, each scalar written as json's Python encoder
writes it (the same C string escape, the same `repr`s): 12 M instructions. Anything else json
may meet (a key that is not a string, a type it would hand to `default`, a cycle) falls back
to json.dumps itself, so the text, or the error, is json's. tests/test_jsontext.py compares
the two on every showcase spec's results and on generated documents.
"""

from __future__ import annotations

import json
import json.encoder
from json.encoder import encode_basestring_ascii
from typing import Any

INFINITY = float("inf")
# json's C encoder (None on a Python without json's C module); typeshed does not declare it
c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_SCALARS = {str, int, float, bool, type(None)}  # exact types: json writes them alike in C
_LEAF_WRITERS: dict[str, Any] = {}  # by the indent of the items: json's C encoder


class _NotPlain(Exception):
    """A value json.dumps treats in a way this writer does not: let json write the document."""


def indented(doc: object) -> str:
    """`json.dumps(doc, sort_keys=True, indent=2)`, byte for byte."""
    parts: list[str] = []
    try:
        _write(doc, parts, "\n")
    except (_NotPlain, RecursionError):
        return json.dumps(doc, sort_keys=True, indent=2)
    return "".join(parts)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _write(value: object, out: list[str], newline: str) -> None:
    """Append `value`'s text; `newline` is a line end and the indent of `value`'s own line."""
    if isinstance(value, str):
        out.append(encode_basestring_ascii(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(_float(value))
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        if all(type(item) in _SCALARS for item in value) and _leaf(value, inner, out, newline):
            return
        separator = "[" + inner
        for item in value:
            out.append(separator)
            separator = "," + inner
            _write(item, out, inner)
        out.append(newline + "]")
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        if not all(type(key) is str for key in value):
            raise _NotPlain  # json converts such keys (and sorts them first): its own path
        inner = newline + "  "
        plain = all(type(item) in _SCALARS for item in value.values())
        if plain and _leaf(value, inner, out, newline):
            return
        separator = "{" + inner
        for key, item in sorted(value.items()):
            out.append(separator + encode_basestring_ascii(key) + ": ")
            separator = "," + inner
            _write(item, out, inner)
        out.append(newline + "}")
    else:
        raise _NotPlain


def _leaf(value: object, inner: str, out: list[str], newline: str) -> bool:
    """Append a container of scalars as json's C encoder writes it with `inner` between its
    items (json's indented text, but for the first item's line and the closing one)."""
    if c_make_encoder is None:
        return False  # a Python without json's C module: the walk above writes it
    writer = _LEAF_WRITERS.get(inner)
    if writer is None:
        writer = c_make_encoder(
            None, None, encode_basestring_ascii, None, ": ", "," + inner, True, False, True
        )
        _LEAF_WRITERS[inner] = writer
    text = "".join(writer(value, 0))
    out.append(text[0] + inner + text[1:-1] + newline + text[-1])
    return True
