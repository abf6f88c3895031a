"""Read a JSON document whose big numeric arrays go straight into numpy, not Python lists."""

from __future__ import annotations

import itertools
import json
import mmap
import re
import warnings
from dataclasses import dataclass

import numpy as np

PIECE = 4 << 20  # bytes of array text converted at a time: bounds the temporary copies
_PLACEHOLDER = b'"__cmpc_array_%d__"'
_SPACE = b" \t\r\n"


class TraceError(ValueError):
    """Malformed input: `record` says where (e.g. `line 3, column 7` or "`itls[4]`")."""

    def __init__(self, message: str, record: str | None = None, code: str = "E301"):
        super().__init__(message)
        self.record = record
        self.code = code


@dataclass(frozen=True, eq=False)
class Ragged:
    """A list of number lists, flattened: `values` and per-row `counts`."""

    values: np.ndarray
    counts: np.ndarray


def line_col(data: bytes | mmap.mmap, offset: int) -> str:
    """`line L, column C` of a byte offset (1-based)."""
    line = data.count(b"\n", 0, offset) + 1 if isinstance(data, bytes) else _mm_lines(data, offset)
    start = data.rfind(b"\n", 0, offset) + 1
    return f"line {line}, column {offset - start + 1}"


def _mm_lines(mm: mmap.mmap, offset: int) -> int:
    count, pos = 1, 0
    while True:
        pos = mm.find(b"\n", pos, offset)
        if pos < 0:
            return count
        count += 1
        pos += 1


def _reject_constant(name: str):
    raise TraceError(f"`{name}` is not a number JSON allows", code="E306")


def loads(text: bytes | str, where: str | None = None):
    """json.loads that rejects NaN/Infinity and reports the position as a TraceError."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise TraceError(
            f"invalid JSON: {exc.msg}", where or f"line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise TraceError("JSON nested too deeply", where) from None


def parse_number_text(text: bytes, key: str) -> np.ndarray:
    """Comma-separated JSON numbers (no brackets) to float64; exact like Python's float()."""
    if not text.strip(_SPACE):
        return np.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = np.fromstring(text, dtype=np.float64, sep=",")
    expected = text.count(b",") + 1
    if values.size != expected:
        raise TraceError(f"`{key}` holds something other than numbers", f"`{key}`", code="E305")
    if not np.all(np.isfinite(values)):
        raise TraceError(f"`{key}` holds NaN or Infinity", f"`{key}`", code="E306")
    return values


def _array_span(data, key: str) -> tuple[int, int] | None:
    """Byte span of the number array value of a top-level-looking `"key":`, or None."""
    pattern = re.compile(rb'"' + re.escape(key.encode()) + rb'"\s*:\s*\[')
    match = pattern.search(data)
    if match is None:
        return None
    start = match.end() - 1
    bound = data.find(b'"', start)
    bound = len(data) if bound < 0 else bound
    end = data.rfind(b"]", start, bound)
    if end < 0:
        return None
    return start, end + 1


def _ragged(data, start: int, end: int, key: str) -> Ragged:
    """Parse `[[n, ...], [...], ...]` (or a flat `[n, ...]` as one row) between start and end."""
    inner_open = data.find(b"[", start + 1, end)
    if inner_open < 0:  # a flat array: one row
        values = parse_number_text(bytes(data[start + 1 : end - 1]), key)
        return Ragged(values, np.array([values.size], dtype=np.int64))
    counts: list[int] = []
    pieces: list[np.ndarray] = []
    buffer: list[bytes] = []
    buffered = 0
    pos = start + 1
    row = 0
    while True:
        opening = data.find(b"[", pos, end - 1)
        if opening < 0:
            tail = bytes(data[pos : end - 1]).strip(_SPACE)
            if tail:
                raise TraceError(
                    f"`{key}` is not a list of number lists", f"`{key}[{row}]`", "E305"
                )
            break
        between = bytes(data[pos:opening]).strip(_SPACE)
        if between not in (b"", b",") or (row and between != b","):
            raise TraceError(f"`{key}` is not a list of number lists", f"`{key}[{row}]`", "E305")
        closing = data.find(b"]", opening, end)
        if closing < 0:
            raise TraceError(f"`{key}` is cut short", f"`{key}[{row}]`", "E301")
        body = bytes(data[opening + 1 : closing])
        if b"[" in body:
            raise TraceError(f"`{key}[{row}]` is not a list of numbers", f"`{key}[{row}]`", "E305")
        if body.strip(_SPACE):
            counts.append(body.count(b",") + 1)
            buffer.append((row, body))
            buffered += len(body)
        else:
            counts.append(0)
        if buffered >= PIECE:
            pieces.append(_parse_rows(buffer, key, row))
            buffer, buffered = [], 0
        pos = closing + 1
        row += 1
    if buffer:
        pieces.append(_parse_rows(buffer, key, row))
    total = sum(counts)
    values = np.empty(total)
    at = 0
    for piece in pieces:
        values[at : at + piece.size] = piece
        at += piece.size
    return Ragged(values, np.asarray(counts, dtype=np.int64))


def _parse_rows(rows: list[tuple[int, bytes]], key: str, last_row: int) -> np.ndarray:
    text = b",".join(body for _, body in rows)
    try:
        return parse_number_text(text, key)
    except TraceError:
        for row, body in rows:  # slow path only to name the bad row
            try:
                parse_number_text(body, key)
            except TraceError as exc:
                raise TraceError(
                    str(exc).replace(f"`{key}`", f"`{key}[{row}]`", 1), f"`{key}[{row}]`", exc.code
                ) from None
        raise


def load(path: str, arrays: tuple[str, ...] = ()) -> tuple[object, dict[str, Ragged]]:
    """The document with each named top-level number array replaced by a `Ragged`.

    Falls back to plain json for the arrays when their text is not where expected.
    """
    with open(path, "rb") as handle:
        try:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # empty file cannot be mapped
            data = b""
    try:
        return _load(data, arrays)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def _load(data, arrays: tuple[str, ...]) -> tuple[object, dict[str, Ragged]]:
    spans = []
    for key in arrays:
        span = _array_span(data, key)
        if span is not None:
            spans.append((span, key))
    spans.sort()
    if not spans or any(a[0][1] > b[0][0] for a, b in itertools.pairwise(spans)):
        return loads(bytes(data)), {}
    raggeds: dict[str, Ragged] = {}
    parts: list[bytes] = []
    pos = 0
    for number, ((start, end), key) in enumerate(spans):
        parts.append(bytes(data[pos:start]))
        parts.append(_PLACEHOLDER % number)
        raggeds[key] = _ragged(data, start, end, key)
        if isinstance(data, mmap.mmap) and end - start > PIECE:
            data.madvise(
                mmap.MADV_DONTNEED,
                start - start % mmap.PAGESIZE,
                end - start + start % mmap.PAGESIZE,
            )
        pos = end
    parts.append(bytes(data[pos:]))
    try:
        doc = loads(b"".join(parts))
    except TraceError:  # re-read whole to report the position in the original text
        return loads(bytes(data)), {}
    if not isinstance(doc, dict) or any(
        doc.get(key) != (_PLACEHOLDER % number).decode().strip('"')
        for number, (_, key) in enumerate(spans)
    ):
        return loads(bytes(data)), {}
    for key in raggeds:
        doc[key] = None
    return doc, raggeds


def load_bytes(data: bytes, arrays: tuple[str, ...] = ()) -> tuple[object, dict[str, Ragged]]:
    """`load` for a document already in memory (one JSONL line)."""
    return _load(data, arrays)


def take_arrays(line: bytes, patterns: dict[str, re.Pattern]) -> tuple[bytes, dict[str, bytes]]:
    """Cut flat number arrays out of one JSONL line: (line with nulls, name -> inner text).

    Each pattern's group 1 must span the array including its brackets.
    """
    found: dict[str, bytes] = {}
    spans = []
    for name, pattern in patterns.items():
        match = pattern.search(line)
        if match:
            spans.append((match.start(1), match.end(1), name))
    if not spans:
        return line, found
    spans.sort()
    parts = []
    pos = 0
    for start, end, name in spans:
        if start < pos:
            return line, {}
        parts.append(line[pos:start])
        parts.append(b"null")
        found[name] = line[start + 1 : end - 1]
        pos = end
    parts.append(line[pos:])
    return b"".join(parts), found


class RaggedBuilder:
    """Collects the text of one number array per record and parses them in large batches."""

    def __init__(self, key: str):
        self.key = key
        self.counts: list[int] = []
        self._rows: list[bytes] = []
        self._where: list[str] = []
        self._size = 0
        self._pieces: list[np.ndarray] = []

    def add(self, text: bytes | None, where: str) -> None:
        """One record's array body (between the brackets); None or empty for no entries."""
        if text is None or not text.strip(_SPACE):
            self.counts.append(0)
            return
        if b"[" in text or b"{" in text:
            raise TraceError(f"`{self.key}` should be a flat list of numbers", where, "E305")
        self.counts.append(text.count(b",") + 1)
        self._rows.append(text)
        self._where.append(where)
        self._size += len(text)
        if self._size >= PIECE:
            self._flush()

    def _flush(self) -> None:
        if not self._rows:
            return
        try:
            self._pieces.append(parse_number_text(b",".join(self._rows), self.key))
        except TraceError:
            for body, where in zip(self._rows, self._where, strict=True):
                try:
                    parse_number_text(body, self.key)
                except TraceError as exc:
                    raise TraceError(str(exc), where, exc.code) from None
            raise
        self._rows, self._where, self._size = [], [], 0

    def finish(self) -> Ragged:
        self._flush()
        total = sum(p.size for p in self._pieces)
        values = np.empty(total)
        at = 0
        for piece in self._pieces:
            values[at : at + piece.size] = piece
            at += piece.size
        return Ragged(values, np.asarray(self.counts, dtype=np.int64))


def read_document(path: str):
    """A whole (small) JSON file, NaN/Infinity rejected, errors as TraceError."""
    with open(path, "rb") as handle:
        return loads(handle.read())
