"""Read a JSON document whose big numeric arrays go straight into numpy, not Python lists.

Over 700 lines on purpose: one job (scanning JSON and JSONL text into numpy columns, within the
record limits) on one axis; its pieces share the buffer and the limit checks of that one scan.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from cmpc.limits import Limits
from cmpc.traces.readpass import open_input
from cmpc.traces.table import offsets_from_counts, row_sums

try:
    from cmpc import _fastscan  # optional C scanner (setup.py); the numpy code below is exact too
except ImportError:
    _fastscan = None  # type: ignore[assignment]  # not built: the numpy code below serves
if not all(hasattr(_fastscan, f) for f in ("scan_numbers", "scan_rows", "scan_rows_into")):
    _fastscan = None  # type: ignore[assignment]  # built from older source (editable install)

PIECE = 4 << 20  # bytes of array text parsed at a time: bounds the temporary copies
RESERVE = 1 << 22  # numbers a ragged array has room for before it grows (32 MiB of addresses)
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


@dataclass(frozen=True, eq=False)
class RowSums:
    """A list of number lists read without keeping its numbers: per-row `sums` and `counts`,
    and `negative`, the (row, value) of each row's first negative number (a valid trace has
    none)."""

    sums: np.ndarray
    counts: np.ndarray
    negative: tuple[tuple[int, float], ...] = ()


class _Bytes:
    """A document already in memory."""

    def __init__(self, data: bytes):
        self.data = data
        self.size = len(data)

    def read(self, lo: int, hi: int) -> bytes:
        return self.data[lo:hi]

    def find(self, sub: bytes, lo: int, hi: int) -> int:
        return self.data.find(sub, lo, hi)

    def rfind(self, sub: bytes, lo: int, hi: int) -> int:
        return self.data.rfind(sub, lo, hi)

    def search(self, pattern: re.Pattern, lo: int = 0):
        match = pattern.search(self.data, lo)
        return None if match is None else (match.start(), match.end())


class _File:
    """A document read block by block: never held whole, so it costs no resident memory.

    The last searched block is kept: a read or search that starts inside it takes its bytes
    from there, so searching for a key and then reading what follows reads each byte once."""

    SCAN = 1 << 20  # bytes searched at a time
    OVERLAP = 4096  # kept between searched blocks: longer than any key pattern's match

    def __init__(self, handle):
        self.handle = handle
        try:
            self.size = os.fstat(handle.fileno()).st_size
        except io.UnsupportedOperation:  # bytes read ahead into memory (readpass.Held)
            self.size = handle.seek(0, os.SEEK_END)
        self._buffer: bytearray | None = None
        self._base = self._held = 0  # the buffer holds the file's bytes [_base, _base + _held)

    def read(self, lo: int, hi: int) -> bytes:
        hi = min(hi, self.size)
        kept = b""
        if self._buffer is not None and self._base <= lo < self._base + self._held:
            upto = min(hi, self._base + self._held)
            with memoryview(self._buffer) as view:  # one copy, not a slice's and then bytes'
                kept = bytes(view[lo - self._base : upto - self._base])
            lo += len(kept)
            if lo >= hi:
                return kept
        self.handle.seek(lo)
        rest = self.handle.read(max(0, hi - lo))
        return kept + rest if kept else rest

    def _fill(self, pos: int, hi: int, room: int = SCAN + OVERLAP) -> tuple[bytearray, int]:
        """Bytes from `pos` (at most to `hi`, at most `room` of them) in one reused buffer: a
        fresh block per search costs more in page faults than the search itself."""
        # never more than the file holds: a small file's buffer is not a zeroed megabyte
        need = max(1, min(room, self.size))
        if self._buffer is None or len(self._buffer) < need:
            held = self._buffer
            self._buffer = bytearray(max(need, min(self.SCAN + self.OVERLAP, self.size)))
            if held is not None:
                self._buffer[: self._held] = held[: self._held]
        buffer = self._buffer
        want = max(0, min(min(hi, self.size) - pos, room))
        keep = 0
        if self._base <= pos < self._base + self._held:  # already read: moved to the front
            keep = self._base + self._held - pos
            buffer[:keep] = buffer[pos - self._base : self._held]
        if keep < want:
            self.handle.seek(pos + keep)
            keep += self.handle.readinto(memoryview(buffer)[keep:want])
        self._base, self._held = pos, keep
        return buffer, min(keep, want)

    def _within(self, lo: int, hi: int) -> int | None:
        """Where the file's bytes [lo, hi) (hi at most its size) start in the buffer, if it
        holds them all: searched there, they are not moved to its front first (a megabyte
        copied twice, for a key search and the array end after it)."""
        hi = min(hi, self.size)
        if self._buffer is not None and self._base <= lo <= hi <= self._base + self._held:
            return lo - self._base
        return None

    def find(self, sub: bytes, lo: int, hi: int) -> int:
        pos = lo
        if self._buffer is not None and self._base <= pos < self._base + self._held:
            end = min(hi, self.size)
            upto = min(end, self._base + self._held)
            at = self._buffer.find(sub, pos - self._base, upto - self._base)
            if at >= 0:
                return self._base + at
            if upto >= end:
                return -1
            pos = max(pos, upto - len(sub) + 1)  # one that straddles `upto` is found below
        while pos < hi:
            buffer, got = self._fill(pos, hi)
            at = buffer.find(sub, 0, got)
            if at >= 0:
                return pos + at
            if pos + got >= min(hi, self.size):
                return -1
            pos += got - len(sub) + 1
        return -1

    def rfind(self, sub: bytes, lo: int, hi: int) -> int:
        end = hi
        step = self.OVERLAP  # what is sought is usually near the end: a small block first
        while end > lo:
            start = max(lo, end - step)
            stop = min(hi, end + len(sub) - 1)
            offset = self._within(start, stop)
            if offset is not None and self._buffer is not None:
                upto = offset + min(stop, self.size) - start
                at = self._buffer.rfind(sub, offset, upto)
                if at >= 0:
                    return start + at - offset
            else:
                buffer, got = self._fill(start, stop)
                at = buffer.rfind(sub, 0, got)
                if at >= 0:
                    return start + at
            end = start
            step = self.SCAN
        return -1

    def search(self, pattern: re.Pattern, lo: int = 0):
        pos = lo
        while pos < self.size:
            buffer, got = self._fill(pos, self.size)
            match = pattern.search(buffer, 0, got)
            if match is not None:
                return pos + match.start(), pos + match.end()
            if pos + got >= self.size:
                return None
            pos += got - self.OVERLAP
        return None


def _reject_constant(name: str):
    raise TraceError(f"`{name}` is not a number JSON allows", code="E306")


def record_limit() -> int:
    """Bytes one JSON document or JSONL line may hold (CMPC_MAX_RECORD_BYTES; cmpc.limits)."""
    return _record_limit(os.environ.get("CMPC_MAX_RECORD_BYTES"))


@functools.lru_cache(maxsize=8)
def _record_limit(raw: str | None) -> int:
    return Limits.from_env({} if raw is None else {"CMPC_MAX_RECORD_BYTES": raw}).record_bytes


def _too_large(where: str | None, limit: int) -> TraceError:
    return TraceError(
        f"record is larger than the limit of {limit} bytes", where or "the document", "E315"
    )


# one decoder for every record: json.loads(..., parse_constant=...) builds one per call
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def loads(text: bytes | str, where: str | None = None):
    """json.loads that rejects NaN/Infinity and reports the position as a TraceError."""
    if len(text) > (limit := record_limit()):
        raise _too_large(where, limit)
    return decode(text, where)


def decode(text: bytes | str, where: str | None = None):
    """`loads` of text already within the record limit (a line from `lines`, or part of one)."""
    try:
        if isinstance(text, bytes):  # as json.loads does it
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        elif text.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise TraceError(
            f"invalid JSON: {exc.msg}", where or f"line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise TraceError("JSON nested too deeply", where) from None


def parse_number_text(text: bytes, key: str) -> np.ndarray:
    """Comma-separated JSON numbers (no brackets) to float64; exact like Python's float()."""
    if not text or text.isspace():
        return np.empty(0)
    if _fastscan is not None and (fast := _fastscan.scan_numbers(text)) is not None:
        return np.frombuffer(fast)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = np.fromstring(text, dtype=np.float64, sep=",")
    except ValueError:  # numpy >= 2.3 raises where older versions warned
        values = np.empty(0)
    expected = int(np.count_nonzero(np.frombuffer(text, np.uint8) == 44)) + 1
    if values.size != expected:
        raise TraceError(f"`{key}` holds something other than numbers", f"`{key}`", code="E305")
    if not np.all(np.isfinite(values)):
        raise TraceError(f"`{key}` holds NaN or Infinity", f"`{key}`", code="E306")
    return values


def _array_start(src, key: str) -> int | None:
    """Offset of the `[` that opens the value of a top-level-looking `"key":`, or None."""
    pattern = re.compile(rb'"' + re.escape(key.encode()) + rb'"\s*:\s*\[')
    match = src.search(pattern)
    return None if match is None else match[1] - 1


def _pieces(src, start: int):
    """Row-aligned pieces of the array opening at `start`: (text, end) where `end` is the offset
    past the closing bracket on the last piece and None before; (None, None) if malformed.
    A row longer than the record limit is refused before it is read (E315, no record named)."""
    pos = start + 1
    size = min(PIECE, record_limit())  # so a row that fits no piece is one over the limit
    while True:
        piece = src.read(pos, pos + size)
        quote = piece.find(b'"')  # numbers hold no quotes: the next key ends the array
        final = quote >= 0 or pos + len(piece) >= src.size
        if not final:
            cut = piece.rfind(b"],")
            if cut < 0:  # one row longer than a piece: read on, as far as one record may reach
                reach = min(src.size, pos + record_limit() + 2)
                more = src.find(b"],", pos + len(piece), reach)
                stop = src.find(b'"', pos, more if more >= 0 else reach)
                if more >= 0 and stop < 0:
                    piece, cut = src.read(pos, more + 1), more - pos
                elif stop < 0 and reach < src.size:
                    limit = record_limit()
                    raise TraceError(f"row is larger than the limit of {limit} bytes", None, "E315")
                else:
                    piece = src.read(pos, stop if stop >= 0 else reach)
                    quote, final = piece.find(b'"'), True
            if not final and _closes_array(piece, cut):  # the next key is past the piece
                yield piece[:cut], pos + cut + 1
                return
        if final:
            piece = piece[: quote if quote >= 0 else len(piece)]
            outer = piece.rfind(b"]")
            if outer < 0:
                yield None, None
                return
            yield piece[:outer], pos + outer + 1
            return
        yield piece[: cut + 1], None
        pos += cut + 1


def _closes_array(text: bytes | bytearray, at: int) -> bool:
    """Whether the `]` at `at` closes the array, not a row: it follows the last row's `]`,
    where a row's own `]` follows a number or its `[`."""
    at -= 1
    while at >= 0 and text[at] in _SPACE:
        at -= 1
    return at >= 0 and text[at] == 93  # `]`


def _ragged(src, start: int, key: str) -> tuple[Ragged, int] | None:
    """Parse `[[n, ...], [...], ...]` (or a flat `[n, ...]` as one row) opening at `start`.

    Returns the rows and the offset just past the closing bracket, or None when the text is not
    laid out as expected (the caller then reads the document with plain json). Works through the
    text once, in row-aligned pieces, each parsed by numpy without a Python object per number;
    a piece that does not parse is re-read row by row, so errors name the row.
    """
    if _fastscan is not None and isinstance(src, _File):
        columns = _scan_into_columns(src, start)
        if columns is not None:
            return columns
    # Room for the numbers the text can hold ("n," is 2 bytes), at most RESERVE of them at first:
    # pages never written cost no memory, but the address space counts against ulimit -v.
    values = np.empty(min((src.size - start) // 2 + 1, RESERVE))
    at = 0

    def keep(piece_values: np.ndarray, piece_counts: np.ndarray, row: int) -> None:
        nonlocal values, at
        if at + piece_values.size > values.size:  # grown in place (realloc): not copied
            values.resize(at + piece_values.size, refcheck=False)
        values[at : at + piece_values.size] = piece_values
        at += piece_values.size

    scanned = _scan_rows(src, start, key, keep)
    if scanned is None:
        return None
    rows, end = scanned
    return Ragged(values[:at], rows), end


def _scan_into_columns(src: _File, start: int) -> tuple[Ragged, int] | None:
    """`_ragged` by the C scanner, straight into the two output columns: each row-aligned
    piece is read into the file's one reused buffer and scanned where it lies, its numbers
    written once, into the column. None on anything but rows of plain JSON numbers in pieces
    (a flat array, a row longer than a piece, a malformed number): `_ragged` then reads the
    array its general way, with its diagnostics."""
    values, counts = bytearray(), bytearray()
    size = min(PIECE, record_limit())
    pos = start + 1
    first = True
    while True:
        buffer, got = src._fill(pos, pos + size, size)
        quote = buffer.find(b'"', 0, got)  # numbers hold no quotes: the next key ends the array
        final = quote >= 0 or pos + got >= src.size
        if final:
            cut = buffer.rfind(b"]", 0, quote if quote >= 0 else got)  # the array's own bracket
            if cut < 0 or (first and buffer.find(b"[", 0, cut) < 0):
                return None
        else:
            cut = buffer.rfind(b"],", 0, got)
            if cut < 0:
                return None
            if _closes_array(buffer, cut):  # the next key is past the piece
                final = True
            else:
                cut += 1  # past the last row's bracket
        with memoryview(buffer) as view, view[:cut] as piece:
            if _fastscan.scan_rows_into(piece, first, values, counts) is None:
                return None
        if final:
            return Ragged(np.frombuffer(values), np.frombuffer(counts, np.int64)), pos + cut + 1
        pos += cut
        first = False


def _row_sums(src, start: int, key: str) -> tuple[RowSums, int] | None:
    """`_ragged` keeping only each row's sum, length and first negative number: the memory it
    holds follows the rows, not the numbers. Sums are `row_sums` of each row-aligned piece,
    the same additions as over the whole column."""
    sums: list[np.ndarray] = []
    negative: list[tuple[int, float]] = []

    def keep(piece_values: np.ndarray, piece_counts: np.ndarray, row: int) -> None:
        sums.append(row_sums(piece_values, piece_counts))
        if piece_values.size and piece_values.min() < 0:
            offsets = offsets_from_counts(piece_counts)
            for i in np.flatnonzero(piece_values < 0):
                r = int(np.searchsorted(offsets, i, side="right") - 1)
                if not negative or negative[-1][0] != row + r:
                    negative.append((row + r, float(piece_values[i])))

    scanned = _scan_rows(src, start, key, keep)
    if scanned is None:
        return None
    rows, end = scanned
    total = np.concatenate(sums) if sums else np.zeros(0)
    return RowSums(total, rows, tuple(negative)), end


def _scan_rows(src, start: int, key: str, keep) -> tuple[np.ndarray, int] | None:
    """Hand each row-aligned piece's values and row lengths to `keep(values, counts, row)`;
    the row lengths of all and the offset past the closing bracket, or None if malformed."""
    counts: list[np.ndarray] = []
    row = 0
    end = None
    try:
        for piece, end in _pieces(src, start):
            if piece is None:
                return None
            if row == 0 and end is not None and piece.find(b"[") < 0:  # a flat array: one row
                flat = parse_number_text(piece, key)
                one = np.array([flat.size], dtype=np.int64)
                keep(flat, one, 0)
                return one, end
            piece_values, piece_counts = _rows_piece(piece, key, row)
            keep(piece_values, piece_counts, row)
            counts.append(piece_counts)
            row += piece_counts.size
    except TraceError as exc:
        if exc.record is not None:
            raise
        raise TraceError(str(exc), f"`{key}[{row}]`", exc.code) from None  # a row too long
    rows = np.concatenate(counts) if counts else np.zeros(0, np.int64)
    assert end is not None  # the last piece carries the offset past the closing bracket
    return rows, end


_BRACKETS_TO_SPACE = bytes.maketrans(b"[]", b"  ")
_EXPONENT_TO_COMMA = bytes.maketrans(b"[]eE", b"  ,,")
_EXACT = 2**53  # integers below this convert to double exactly
_SATURATED = (1 << 63) - 1  # int64's largest: what the integer parser returns on overflow


@functools.cache
def _pow10(wide: bool = False) -> np.ndarray:
    """Powers of ten: exact doubles up to 1e22, or extended precision up to 1e329 (`wide`).

    Made at first use, not at import: a build whose runs are all cached never loads numpy."""
    if wide:
        return np.array([np.longdouble(10) ** k for k in range(330)], dtype=np.longdouble)
    return np.array([10.0**k for k in range(23)])


def decimal_rows(
    piece: bytes, opens: list[int], closes: list[int]
) -> tuple[np.ndarray, np.ndarray] | None:
    """Values and row lengths of rows of JSON numbers (`12.345`, `1e-05`, `7`), or None.

    Each number is read as the integer of its digits (numpy parses integers four to five times
    faster than floats), its exponent as another integer, and scaled by the power of ten: one
    correctly rounded operation, so the result equals Python's float() whenever the digits fit
    in 2**53 and the power is at most 10**22. Otherwise (17-digit `repr`s, large exponents) the
    scaling runs in extended precision and can differ from float() by one unit in the last
    place. Negative numbers, more than 19 digits, or anything unexpected return None.
    """
    region = piece[opens[0] : closes[-1] + 1]
    has_exp = b"e" in region or b"E" in region
    if not has_exp and (b"-" in region or b"+" in region):
        return None
    b = np.frombuffer(region, np.uint8)
    digit = (b - np.uint8(48)) < 10
    dot = b == 46
    numchar = digit | dot
    if has_exp:
        expo = (b | np.uint8(32)) == 101
        sign = (b == 45) | (b == 43)
        numchar |= expo | sign
    # a number's last character is a digit, and the next one is not part of a number
    ends = np.flatnonzero(digit[:-1] & ~numchar[1:]) + 1
    n = ends.size
    if n == 0:
        return None
    mant_end = ends
    has_e = np.zeros(n, dtype=bool)
    if has_exp:
        mant_end = ends.copy()
        epos = np.flatnonzero(expo)
        owner = np.searchsorted(ends, epos, side="right")
        if np.any(np.diff(owner) == 0):
            return None
        if not np.all(digit[epos - 1]):
            return None  # an exponent needs mantissa digits right before it
        mant_end[owner] = epos
        has_e[owner] = True
        signs = np.flatnonzero(sign)
        if signs.size and not np.all(expo[signs - 1]):
            return None  # a sign anywhere but right after the `e`: a negative number
    dots = np.flatnonzero(dot)
    if dots.size == n and not has_exp:  # one point per number: the common case, no search
        if np.any(dots >= ends) or np.any(dots[1:] <= ends[:-1]):
            return None
        frac = ends - dots - 1
        if frac.min() < 1 or frac.max() > 22:
            return None
    else:
        owner = np.searchsorted(ends, dots, side="right")
        if owner.size and (owner[-1] >= n or np.any(np.diff(owner) == 0)):
            return None
        if np.any(dots >= mant_end[owner]):
            return None
        frac = np.zeros(n, dtype=np.int64)
        frac[owner] = mant_end[owner] - dots - 1
        if frac.max() > 22 or np.any(frac[owner] < 1):
            return None
    base = opens[0]
    # a number ends on the `,` or `]` after it: row i owns the ends in (open_i, close_i]
    counts = np.searchsorted(ends, np.asarray(closes) - base, side="right") - np.searchsorted(
        ends, np.asarray(opens) - base, side="right"
    )
    if counts.sum() != n:
        return None
    table = _EXPONENT_TO_COMMA if has_exp else _BRACKETS_TO_SPACE
    if np.all(counts > 0):
        text = region.translate(table, b".")
    else:
        kept = zip(opens, closes, counts, strict=True)
        text = b",".join(piece[o + 1 : c] for o, c, k in kept if k).translate(table, b".")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ints = np.fromstring(text, dtype=np.int64, sep=",")
    except ValueError:  # numpy >= 2.3 raises where older versions warned
        return None
    if ints.size != n + int(has_e.sum()):
        return None
    scale = -frac
    if has_exp:
        at = np.arange(n) + np.cumsum(has_e) - has_e
        mant = ints[at]
        scale[has_e] += ints[at[has_e] + 1]
    else:
        mant = ints
    if mant.min() < 0 or mant.max() == _SATURATED:
        return None
    if not has_exp:  # scale = -frac, within the exact powers of ten
        powers = _pow10()[frac]
        values = mant / powers if mant.max() < _EXACT else _divide_wide(mant, powers)
        return values, counts.astype(np.int64)
    if np.abs(scale).max() >= _pow10(wide=True).size:
        return None
    return _scale(mant, scale), counts.astype(np.int64)


def _scale(mant: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """mant * 10**scale: exact doubles where one rounding suffices, extended precision elsewhere."""
    exact = (mant < _EXACT) & (np.abs(scale) <= 22)
    down = scale < 0
    if np.all(down) and np.all(scale >= -22):  # plain decimals, no exponent: the common case
        if np.all(exact):
            return mant / _pow10()[-scale]
        return _divide_wide(mant, _pow10()[-scale])
    values = np.empty(mant.size)
    for part, wide, below in (
        (exact & down, False, True),
        (exact & ~down, False, False),
        (~exact & down, True, True),
        (~exact & ~down, True, False),
    ):
        if not np.any(part):
            continue
        m = mant[part].astype(np.longdouble) if wide else mant[part].astype(np.float64)
        powers = _pow10(wide)[np.abs(scale[part])]
        values[part] = m / powers if below else m * powers
    return values


def _divide_wide(mant: np.ndarray, powers: np.ndarray) -> np.ndarray:
    """mant / powers for integers up to 2**63 and exact powers of ten, in double-double steps.

    mant is split exactly into a rounded double plus a small remainder; the quotient of the
    double is corrected by the exact residual (Dekker's product, no FMA needed), which gives the
    correctly rounded quotient except within a hair of a rounding tie.
    """
    high = mant.astype(np.float64)
    low = (mant - high.astype(np.int64)).astype(np.float64)  # exact: |low| <= 2**10
    quotient = high / powers
    product = quotient * powers
    q_hi, q_lo = _split(quotient)
    p_hi, p_lo = _split(powers)
    error = ((q_hi * p_hi - product) + q_hi * p_lo + q_lo * p_hi) + q_lo * p_lo
    residual = ((high - product) - error) + low
    return quotient + residual / powers


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's split of doubles into two halves of 26 bits each."""
    t = x * 134217729.0  # 2**27 + 1
    high = t - (t - x)
    return high, x - high


def _rows_piece(piece: bytes, key: str, row: int) -> tuple[np.ndarray, np.ndarray]:
    """Values and row lengths of the rows `[..], [..]` in `piece`; errors name the row."""
    if _fastscan is not None and (fast := _fastscan.scan_rows(piece, row == 0)) is not None:
        return np.frombuffer(fast[0]), np.frombuffer(fast[1], np.int64)
    opens: list[int] = []
    closes: list[int] = []
    pos = 0
    while True:  # one step per row, never per number
        opening = piece.find(b"[", pos)
        at = f"`{key}[{row + len(opens)}]`"
        if opening < 0:
            if piece[pos:].strip(_SPACE):
                raise TraceError(f"`{key}` is not a list of number lists", at, "E305")
            break
        between = piece[pos:opening].strip(_SPACE)
        first = row + len(opens) == 0
        if between != (b"" if first else b","):
            raise TraceError(f"`{key}` is not a list of number lists", at, "E305")
        closing = piece.find(b"]", opening)
        if closing < 0:
            raise TraceError(f"`{key}` is cut short", at, "E301")
        if piece.find(b"[", opening + 1, closing) >= 0:
            raise TraceError(f"{at} is not a list of numbers", at, "E305")
        opens.append(opening)
        closes.append(closing)
        pos = closing + 1
    if not opens:
        return np.empty(0), np.zeros(0, np.int64)
    decimal = decimal_rows(piece, opens, closes)
    if decimal is not None:
        return decimal
    starts = np.asarray(opens)
    ends = np.asarray(closes)
    commas = np.flatnonzero(np.frombuffer(piece, np.uint8) == 44)
    counts = np.searchsorted(commas, ends) - np.searchsorted(commas, starts) + 1
    single = np.flatnonzero(counts == 1)
    for i in single:  # a row without commas holds one number or none
        if not piece[opens[i] + 1 : closes[i]].strip(_SPACE):
            counts[i] = 0
    if np.all(counts > 0):
        text = piece[opens[0] : closes[-1] + 1].translate(_BRACKETS_TO_SPACE)
    else:
        kept = zip(opens, closes, counts, strict=True)
        text = b",".join(piece[o + 1 : c] for o, c, n in kept if n)
    try:
        values = parse_number_text(text, key)
    except TraceError:
        values = None
    if values is None or values.size != counts.sum():
        rows = [
            (row + i, piece[o + 1 : c]) for i, (o, c) in enumerate(zip(opens, closes, strict=True))
        ]
        values = _parse_rows([(r, body) for r, body in rows if body.strip(_SPACE)], key, row)
    return values, counts.astype(np.int64)


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


def load(
    path: str, arrays: tuple[str, ...] = (), skip: tuple[str, ...] = (), sums: tuple[str, ...] = ()
) -> tuple[object, dict[str, Ragged]]:
    """The document with each named top-level number array replaced by a `Ragged`.

    Arrays named in `skip` are left unread and out of the document: a reader that does not
    need a column should not pay for parsing it. Arrays named in `sums` come back as `RowSums`
    (in the same dict), their numbers never held together. Falls back to plain json for the
    arrays when their text is not where expected.
    """
    with open_input(path) as handle:
        return _load(_File(handle), arrays, skip, sums)


def _load(
    src, arrays: tuple[str, ...], skip: tuple[str, ...] = (), sums: tuple[str, ...] = ()
) -> tuple[object, dict[str, Ragged]]:
    wanted = [(key, "rows") for key in arrays] + [(key, "skip") for key in skip]
    wanted += [(key, "sums") for key in sums]
    starts = sorted(
        (start, key, how) for key, how in wanted if (start := _array_start(src, key)) is not None
    )
    raggeds: dict[str, Ragged] = {}
    parts: list[bytes] = []
    pos = 0
    for number, (start, key, how) in enumerate(starts):
        if start < pos:
            return loads(_whole(src)), {}
        if how == "skip":
            end = _array_end(src, start)
            if end is None:
                return loads(_whole(src)), {}
        else:
            parsed = _ragged(src, start, key) if how == "rows" else _row_sums(src, start, key)
            if parsed is None:
                return loads(_whole(src)), {}
            raggeds[key], end = parsed  # type: ignore[assignment]  # RowSums for `sums`
        parts.append(_read_outside(src, pos, start, parts))
        parts.append(_PLACEHOLDER % number)
        pos = end
    if not starts:
        return loads(_whole(src)), {}
    parts.append(_read_outside(src, pos, src.size, parts))
    try:
        doc = loads(b"".join(parts))
    except TraceError as exc:  # re-read whole to report the position in the original text
        if exc.code == "E315":
            raise
        return loads(_whole(src)), {}
    if not isinstance(doc, dict) or any(
        doc.get(key) != (_PLACEHOLDER % number).decode().strip('"')
        for number, (_, key, _) in enumerate(starts)
    ):
        return loads(_whole(src)), {}
    for _, key, how in starts:
        if how == "skip":
            del doc[key]
        else:
            doc[key] = None
    return doc, raggeds


def _read_outside(src, lo: int, hi: int, parts: list[bytes]) -> bytes:
    """The document's text between two arrays; refused unread if the text outside the arrays
    would pass the record limit, which the parse of that text enforces anyway."""
    if hi - lo + sum(map(len, parts)) > (limit := record_limit()):
        raise _too_large(None, limit)
    return src.read(lo, hi)


def _array_end(src, start: int) -> int | None:
    """Offset past the closing bracket of the number array opening at `start`, unparsed.

    Numbers hold no quotes, so the array ends at the last `]` before the next key's quote;
    None (the caller then parses the document whole, and reports what is wrong) unless both
    ends look like an array of numbers or of number rows: `[[ ... ]]`, `[ ]`, `[1, ... 2]`.
    The text between is not read, so not checked either.
    """
    quote = src.find(b'"', start, src.size)
    hi = src.size if quote < 0 else quote
    outer = src.rfind(b"]", start, hi)
    after = b"," if quote >= 0 else b"}"
    if outer < 0 or hi - outer > PIECE or src.read(outer + 1, hi).strip(_SPACE) != after:
        return None
    first = src.read(start + 1, min(outer, start + 65)).lstrip(_SPACE)[:1]
    last = src.read(max(start + 1, outer - 64), outer).rstrip(_SPACE)[-1:]
    nested, empty = first == b"[" and last == b"]", first == b"" and last == b""
    if not (nested or empty or (first[:1].isdigit() and last.isdigit())):
        return None
    return outer + 1


def _whole(src) -> bytes:
    """All of a document, to be parsed whole: refused unread when it is over the record limit."""
    if src.size > (limit := record_limit()):
        raise _too_large(None, limit)
    return src.read(0, src.size)


def load_bytes(
    data: bytes, arrays: tuple[str, ...] = (), skip: tuple[str, ...] = ()
) -> tuple[object, dict[str, Ragged]]:
    """`load` for a document already in memory (one JSONL line)."""
    return _load(_Bytes(data), arrays, skip)


LEAD = re.compile(rb"\s*:\s*\[")  # what follows an array's key up to its opening bracket


def take_arrays(
    line: bytes, keys: dict[str, tuple[bytes, re.Pattern]]
) -> tuple[bytes, dict[str, bytes]]:
    """Cut flat number arrays out of one JSONL line: (line with nulls, name -> inner text).

    Each key is a quoted JSON key and the pattern that must follow it up to the array's opening
    bracket (`LEAD` for `"key": [`). The key is found by plain search (a regex search scanned
    lines at ~1 GB/s where the key is absent); the array ends at the next `]` and must hold no
    other bracket (a flat array), else it is left to the JSON parser.
    """
    found: dict[str, bytes] = {}
    spans: list[tuple[int, int, str]] = []
    for name, (key, lead) in keys.items():
        match = _find_key(line, key, lead, spans)
        if not match:
            continue
        start = match.end() - 1
        end = line.find(b"]", start)
        if end >= 0 and line.find(b"[", start + 1, end) < 0:
            spans.append((start, end + 1, name))
            spans.sort()
    if not spans:
        return line, found
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


def _find_key(line: bytes, key: bytes, lead: re.Pattern, spans: list[tuple[int, int, str]]):
    """The match of `lead` after the first real `key` outside the arrays already cut (numbers
    hold no keys, and an absent key would otherwise cost a scan of every number)."""
    pos = 0
    for stop, skip_to in [*((start, end) for start, end, _ in spans), (len(line), len(line))]:
        at = line.find(key, pos, stop)
        while at >= 0:
            if not at or line[at - 1] != 92:  # after a backslash, the key is inside a string
                match = lead.match(line, at + len(key))
                if match:
                    return match
            at = line.find(key, at + 1, stop)
        pos = skip_to
    return None


def _decimal_bodies(rows: list[bytes], counts: list[int]) -> np.ndarray | None:
    """`decimal_rows` over non-empty array bodies (text between brackets) of known lengths."""
    text = b"[" + b"],[".join(rows) + b"]"
    opens, closes = [], []
    at = 0
    for body in rows:
        opens.append(at)
        at += len(body) + 1
        closes.append(at)
        at += 2
    fast = decimal_rows(text, opens, closes)
    if fast is None or not np.array_equal(fast[1], counts):
        return None
    return fast[0]


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
        fast = None  # the C scanner, when built, is faster: parse_number_text below uses it
        if _fastscan is None:
            fast = _decimal_bodies(self._rows, [body.count(b",") + 1 for body in self._rows])
        if fast is not None:
            self._pieces.append(fast)
            self._rows, self._where, self._size = [], [], 0
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
    limit = record_limit()
    with open_input(path) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _too_large(None, limit)
    return loads(data)


LINE_BUFFER = 1 << 20  # io's default 8 KiB buffer made readline of 10 KiB lines 3x slower


def records(path: str):
    """(`line N`, bytes) of each non-blank line of a JSONL file, read through `LINE_BUFFER`."""
    with open_input(path, buffering=LINE_BUFFER) as handle:
        for number, raw in lines(handle):
            if not raw.isspace():
                yield f"line {number}", raw


def lines(handle):
    """(line number, bytes) of each line of a JSONL file; a line over the record limit is an
    error before more than the limit is read."""
    limit = record_limit()
    number = 0
    while raw := handle.readline(limit + 1):
        number += 1
        if len(raw) > limit and not (len(raw) == limit + 1 and raw.endswith(b"\n")):
            raise _too_large(f"line {number}", limit)
        yield number, raw
