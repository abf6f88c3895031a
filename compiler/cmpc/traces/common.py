"""Checks and conversions shared by the readers: typed columns, finite times, identity fields."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeGuard, overload

import numpy as np

from cmpc.jsontypes import JsonObject
from cmpc.traces.jsonscan import Ragged, TraceError
from cmpc.traces.table import FieldValue, Requests, offsets_from_counts


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


@overload
def number(value: object, where: str, *, optional: Literal[False] = False) -> float: ...
@overload
def number(value: object, where: str, *, optional: bool) -> float | None: ...
def number(value: object, where: str, *, optional: bool = False) -> float | None:
    """A finite JSON number, or a TraceError naming `where`."""
    if value is None and optional:
        return None
    if not _is_number(value):
        raise TraceError(f"{where} should be a number, found {_kind(value)}", where, "E305")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer literal beyond a double's range
        raise TraceError(f"{where} is too large for a number", where, "E306") from None
    if not finite:
        raise TraceError(f"{where} is {value}, not a finite number", where, "E306")
    return float(value)


def duration_of(value: object, where: str) -> float | None:
    """A run's duration in seconds: absent (None), or a finite number that is not negative."""
    seconds = number(value, where, optional=True)
    if seconds is not None and seconds < 0:
        raise TraceError(f"{where} is negative ({seconds:g} s)", where, "E307")
    return seconds


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value[:30]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


_NUMBER_TYPES = {float, int}  # exact types: a JSON `true` is a bool, not a number


def column(
    doc: Mapping[str, Any], key: str, n: int | None = None, *, nulls: bool = False
) -> np.ndarray:
    """`doc[key]` as a float64 column, checked for type, finiteness and length."""
    values = doc.get(key)
    if not isinstance(values, list):
        raise TraceError(
            f"`{key}` should be a list of numbers, found {_kind(values)}", f"`{key}`", "E305"
        )
    if n is not None and len(values) != n:
        raise TraceError(
            f"`{key}` has {len(values)} entries but the run has {n} requests", f"`{key}`", "E313"
        )
    if not nulls and set(map(type, values)) <= _NUMBER_TYPES:
        with contextlib.suppress(OverflowError):  # a huge integer: named below
            out = np.array(values, dtype=np.float64)
            if np.all(np.isfinite(out)):
                return out
    out = np.empty(len(values))
    for i, value in enumerate(values):  # one entry per request, not per token
        if value is None and nulls:
            out[i] = np.nan
            continue
        out[i] = number(value, f"`{key}[{i}]`")
    return out


def mapping(value: object, where: str) -> JsonObject:
    if not isinstance(value, dict):
        raise TraceError(f"{where} should be an object, found {_kind(value)}", where, "E305")
    return value


def object_at(doc: Mapping[str, Any], key: str) -> JsonObject:
    """`doc[key]` when it is an object, else an empty one (an optional section)."""
    value = doc.get(key)
    return value if isinstance(value, dict) else {}


def ragged_from_lists(values: object, key: str) -> Ragged:
    """A list of number lists already parsed by json, as a Ragged (small or fallback files)."""
    if not isinstance(values, list):
        raise TraceError(
            f"`{key}` should be a list of lists, found {_kind(values)}", f"`{key}`", "E305"
        )
    counts = np.zeros(len(values), dtype=np.int64)
    flat: list[float] = []
    for i, row in enumerate(values):
        if not isinstance(row, list):
            raise TraceError(
                f"`{key}[{i}]` should be a list, found {_kind(row)}", f"`{key}[{i}]`", "E305"
            )
        counts[i] = len(row)
        flat.extend(number(v, f"`{key}[{i}][{j}]`") for j, v in enumerate(row))
    return Ragged(np.asarray(flat, dtype=np.float64), counts)


def check_requests(req: Requests, labels: Sequence[str] | None = None) -> None:
    """Reject negative latencies, negative gaps and first tokens after the end."""

    def where(i: int) -> str:
        return labels[i] if labels is not None else f"request {i}"

    if req.gaps is not None and req.gaps.size:
        neg = np.flatnonzero(req.gaps < 0)
        if neg.size:
            assert req.gap_offsets is not None  # set with the gaps
            i = int(np.searchsorted(req.gap_offsets, neg[0], side="right") - 1)
            raise TraceError(
                f"request {i} has chunks out of order (a gap of {req.gaps[neg[0]]:g} s)",
                where(i),
                "E308",
            )
    names = {"ttft": req.ttft, "e2el": req.e2el}
    for name, col in names.items():
        if col is None:
            continue
        bad = np.flatnonzero(req.ok & (col < 0))
        if bad.size:
            i = int(bad[0])
            raise TraceError(f"request {i} has a negative {name} ({col[i]:g} s)", where(i), "E307")
    if req.ttft is not None and req.e2el is not None:
        bad = np.flatnonzero(req.ok & (req.ttft > req.e2el * (1 + 1e-12) + 1e-12))
        if bad.size:
            i = int(bad[0])
            raise TraceError(
                f"request {i} gets its first token ({req.ttft[i]:g} s) after it ends "
                f"({req.e2el[i]:g} s)",
                where(i),
                "E308",
            )
    for name, col in (("input_tokens", req.input_tokens), ("output_tokens", req.output_tokens)):
        if col is None:
            continue
        bad = np.flatnonzero(req.ok & (col < 0))
        if bad.size:
            i = int(bad[0])
            raise TraceError(f"request {i} has a negative {name} count", where(i), "E305")


def build_requests(
    ok: np.ndarray,
    *,
    gaps: Ragged | None = None,
    labels: Sequence[str] | None = None,
    start: np.ndarray | None = None,
    ttft: np.ndarray | None = None,
    e2el: np.ndarray | None = None,
    input_tokens: np.ndarray | None = None,
    cached_input_tokens: np.ndarray | None = None,
    output_tokens: np.ndarray | None = None,
    chunk_tokens: np.ndarray | None = None,
    e2el_reconstructed: bool = False,
    extra: Mapping[str, np.ndarray] | None = None,
    only: Mapping[str, np.ndarray] | None = None,
) -> Requests:
    """A checked Requests table; gap rows of failed requests are dropped from the pool."""
    req = Requests(
        ok=np.asarray(ok, dtype=bool),
        start=start,
        ttft=ttft,
        e2el=e2el,
        input_tokens=input_tokens,
        cached_input_tokens=cached_input_tokens,
        output_tokens=output_tokens,
        gaps=None if gaps is None else gaps.values,
        gap_offsets=None if gaps is None else offsets_from_counts(gaps.counts),
        chunk_tokens=chunk_tokens,
        e2el_reconstructed=e2el_reconstructed,
        extra={} if extra is None else extra,
        only={} if only is None else only,
    )
    check_requests(req, labels)
    return req


def pick_fields(
    doc: Mapping[str, Any], names: Sequence[str], rename: Mapping[str, str] | None = None
) -> dict[str, FieldValue]:
    """Scalar identity/config fields present in `doc` (renamed to cmpc's field names)."""
    out: dict[str, FieldValue] = {}
    rename = rename or {}
    for name in names:
        if name in doc:
            value = doc[name]
            if isinstance(value, bool):
                value = str(value).lower()
            if value is None or isinstance(value, str | int | float):
                out[rename.get(name, name)] = value
    return out
