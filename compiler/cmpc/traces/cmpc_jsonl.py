"""cmpc's own JSONL trace: a header line, then one line per request (see docs/traces.md)."""

from __future__ import annotations

import contextlib

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number
from cmpc.traces.jsonscan import RaggedBuilder, TraceError
from cmpc.traces.table import Run

NAME = "cmpc"
SKIPS_GAPS = True  # `read(..., gaps=False)` parses two chunk times per request
VERSION = 1
_ARRAYS = {
    "times": (b'"chunk_times"', jsonscan.LEAD),
    "tokens": (b'"chunk_tokens"', jsonscan.LEAD),
}
_OPTIONAL_NUMBER_TYPES = {float, int, type(None)}  # exact types: a bool is no number
_SCALARS = ("start", "first_token", "end", "input_tokens", "cached_input_tokens", "output_tokens")


def _header(doc: object, where: str) -> dict:
    doc = mapping(doc, where)
    if doc.get("cmpc_trace") != VERSION:
        raise TraceError(
            f'the first line should be the header `{{"cmpc_trace": {VERSION}, ...}}`', where, "E305"
        )
    fields = doc.get("fields", {})
    fields = mapping(fields, f"{where}: `fields`")
    for key, value in fields.items():
        if value is not None and not isinstance(value, str | int | float):
            raise TraceError(f"field `{key}` should be a string or a number", where, "E305")
    return doc


def read(path: str, fmt: str = NAME, *, gaps: bool = True) -> list[Run]:
    """The run of one trace; without `gaps`, each request keeps only its first and last chunk
    time (all that TTFT, TPOT and E2EL need), so the numbers between are never parsed."""
    header = None
    rows: list[dict] = []
    wheres: list[str] = []
    times = RaggedBuilder("chunk_times")
    tokens = RaggedBuilder("chunk_tokens")
    for where, raw in jsonscan.records(path):
        if header is None:
            header = _header(jsonscan.decode(raw, where), where)
            continue
        line, arrays = jsonscan.take_arrays(raw, _ARRAYS)
        doc = mapping(jsonscan.decode(line, where) if arrays else _loads(raw, where), where)
        for key in ("chunk_times", "chunk_tokens"):
            value = doc.get(key)
            name = "times" if key == "chunk_times" else "tokens"
            if name in arrays:
                continue
            if value is not None and not isinstance(value, list):
                raise TraceError(f"`{key}` should be a list of numbers", where, "E305")
            if value:
                arrays[name] = b",".join(repr(number(v, f"`{key}`")).encode() for v in value)
        if not gaps:
            _ends_only(doc, arrays, where)
        times.add(arrays.get("times"), where)
        tokens.add(arrays.get("tokens"), where)
        rows.append(doc)
        wheres.append(where)
    if header is None:
        raise TraceError("the file has no header line", "line 1", "E312")
    return [_build(path, fmt, header, rows, wheres, times.finish(), tokens.finish(), gaps)]


def _ends_only(doc: dict, arrays: dict[str, bytes], where: str) -> None:
    """A request's chunk arrays cut to the first and last time; `chunk_tokens` summed into
    `output_tokens` when the line does not give it (the only figure read from them)."""
    times = arrays.get("times") or b""
    first, last = times.find(b","), times.rfind(b",")
    if first >= 0:  # the numbers between are not read, so not checked either
        arrays["times"] = times[:first] + times[last:]
    body = arrays.pop("tokens", None)
    if body is None or doc.get("output_tokens") is not None:
        return
    try:
        values = jsonscan.parse_number_text(body, "chunk_tokens")
    except TraceError as exc:
        raise TraceError(str(exc), where, exc.code) from None
    chunks = times.count(b",") + 1 if times.strip() else 0
    if values.size != chunks:
        raise TraceError("`chunk_tokens` and `chunk_times` differ in length", where, "E313")
    if chunks:  # as the full read: a request without chunks has no output count
        doc["output_tokens"] = float(values.sum())


def _loads(raw: bytes, where: str):
    try:
        return jsonscan.decode(raw)
    except TraceError as exc:
        raise TraceError(str(exc), f"{where}, {exc.record}", exc.code) from None


def _scalars(rows: list[dict], key: str, wheres: list[str]) -> np.ndarray:
    """One optional number per request as a column, NaN where absent; errors name the line."""
    values = [doc.get(key) for doc in rows]
    if set(map(type, values)) <= _OPTIONAL_NUMBER_TYPES:  # JSON has no NaN: NaN means absent
        with contextlib.suppress(OverflowError):  # a huge integer: named below
            column = np.array(values, dtype=np.float64)
            if not np.isinf(column).any():
                return column
    column = np.full(len(rows), np.nan)
    for i, value in enumerate(values):
        if value is not None:
            try:
                column[i] = number(value, f"`{key}`")
            except TraceError as exc:
                raise TraceError(str(exc), f"{wheres[i]}, `{key}`", exc.code) from None
    return column


def _build(path, fmt, header, rows, wheres, times, tokens, keep_gaps=True) -> Run:
    n = len(rows)
    errors = [doc.get("error") for doc in rows]
    if not set(map(type, errors)) <= {type(None), str}:
        i = next(i for i, e in enumerate(errors) if e is not None and not isinstance(e, str))
        raise TraceError("`error` should be null or a message", wheres[i], "E305")
    ok = np.array([not e for e in errors], dtype=bool)
    cols = {key: _scalars(rows, key, wheres) for key in _SCALARS}
    if np.isnan(cols["start"]).any():
        i = int(np.flatnonzero(np.isnan(cols["start"]))[0])
        raise TraceError("the request has no `start` time", wheres[i], "E312")
    counts = times.counts
    if tokens.values.size and not np.array_equal(tokens.counts, counts):
        row = int(np.flatnonzero(tokens.counts != counts)[0])
        raise TraceError("`chunk_tokens` and `chunk_times` differ in length", wheres[row], "E313")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    has = counts > 0
    first = np.full(n, np.nan)
    last = np.full(n, np.nan)
    first[has] = times.values[offsets[:-1][has]]
    last[has] = times.values[offsets[1:][has] - 1]
    diffs = np.diff(times.values)
    keep = np.ones(diffs.size, dtype=bool)
    cut = offsets[1:-1] - 1
    keep[cut[(cut >= 0) & (cut < diffs.size)]] = False
    gaps = diffs[keep]
    gap_counts = np.maximum(counts - 1, 0)
    row_of_gap = np.repeat(np.arange(n), gap_counts)
    if np.any(gaps < 0):
        i = int(row_of_gap[np.flatnonzero(gaps < 0)[0]])
        raise TraceError("`chunk_times` go backwards", wheres[i], "E308")
    start = cols["start"]
    first_token = np.where(np.isnan(cols["first_token"]), first, cols["first_token"])
    end = np.where(np.isnan(cols["end"]), last, cols["end"])
    for label, bad in (
        ("the first chunk comes before `start`", has & (first < start)),
        ("`first_token` comes after the first chunk", has & (first_token > first)),
        ("`end` comes before the last chunk", has & (end < last)),
        ("`first_token` comes before `start`", first_token < start),
    ):
        if np.any(bad):
            raise TraceError(label, wheres[int(np.flatnonzero(bad)[0])], "E308")
    output = cols["output_tokens"]
    if tokens.values.size:
        sums = np.zeros(n)
        np.add.at(sums, np.repeat(np.arange(n), counts), tokens.values)
        output = np.where(np.isnan(output), np.where(has, sums, np.nan), output)
    cached = cols["cached_input_tokens"]
    if np.any(cached > cols["input_tokens"]):
        i = int(np.flatnonzero(cached > cols["input_tokens"])[0])
        raise TraceError("`cached_input_tokens` exceeds `input_tokens`", wheres[i], "E305")
    gap_ok = np.repeat(ok, gap_counts)
    requests = build_requests(
        ok,
        gaps=jsonscan.Ragged(gaps[gap_ok], np.where(ok, gap_counts, 0)) if keep_gaps else None,
        start=start - np.min(start) if n else start,
        ttft=first_token - start,
        e2el=end - start,
        input_tokens=cols["input_tokens"],
        cached_input_tokens=None if np.all(np.isnan(cached)) else cached,
        output_tokens=output,
        chunk_tokens=tokens.values if tokens.values.size else None,
        labels=wheres,
    )
    duration = duration_of(header.get("duration_s"), "`duration_s`")
    if duration is None and n and np.any(ok):
        duration = float(np.nanmax(end[ok]) - np.min(start))
    fields = dict(header.get("fields", {}))
    return Run(path, fmt, 0, fields, requests=requests, duration_s=duration)
