"""The percentile bootstrap interval in plain Python, equal to `compute.intervals.interval`'s.

A warm rebuild costs a ratio's interval from stored replicates: a few thousand divisions and
a sort, cheaper than loading numpy. Each step is numpy's own float64 arithmetic, in its order
(`numpy.quantile`, method `linear`: index (n - 1) q, then its two-sided lerp), so the ends are
bit for bit those `interval` gives (tests/compute/test_percentile.py compares them).
"""

from __future__ import annotations

import binascii
import itertools
import math
import operator
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence

from cmpc.compute.intervals import Interval


def percentile_interval(
    replicates: Iterable[float], estimate: float, confidence: float
) -> Interval | None:
    """`interval(replicates, estimate, confidence, "percentile")`, without numpy."""
    values = sorted(v for v in replicates if math.isfinite(v))
    if len(values) < 10 or not math.isfinite(estimate):
        return None
    alpha = (1.0 - confidence) / 2.0
    low, high = (_linear(values, q) for q in (alpha, 1.0 - alpha))
    return Interval(low, high, confidence, "percentile", len(values))


def one_sided_bound(
    replicates: Iterable[float], confidence: float, side: str = "lower"
) -> float | None:
    """The one-sided confidence bound of a figure that is itself a bound, without numpy.

    `side` "lower": the (1 - confidence) quantile of the replicates (numpy's `linear`), a
    replicate without a value (non-finite) counting as below every value; "upper": the
    `confidence` quantile, one without a value counting as above every value. None: fewer than
    ten replicates, or a quantile that falls among the replicates without a value.
    """
    if side not in ("lower", "upper"):
        return None
    missing = -math.inf if side == "lower" else math.inf
    ranked = list(replicates)
    if not all(map(math.isfinite, ranked)):  # checked and sorted in C: 2,000 replicates a call
        ranked = [v if math.isfinite(v) else missing for v in ranked]
    ranked.sort()
    if len(ranked) < 10:
        return None
    found = _linear(ranked, 1.0 - confidence if side == "lower" else confidence)
    return found if math.isfinite(found) else None


def _linear(values: list[float], q: float) -> float:
    """numpy's `linear` quantile of sorted finite `values` (numpy.lib._function_base_impl)."""
    return _linear_at(len(values), q, values.__getitem__)


def quotients(numerator: float, denominators: Iterable[float]) -> list[float]:
    """`numerator / denominators` as numpy divides (x / 0 is infinite or NaN, not an error)."""
    given = denominators if isinstance(denominators, list) else list(denominators)
    if 0.0 not in given:  # no x / 0: the divisions as one C loop (0.0 == -0.0, so both out)
        return list(map(operator.truediv, itertools.repeat(numerator), given))
    out = []
    for d in given:
        if d == 0:
            signed = math.copysign(math.inf, numerator) * math.copysign(1.0, d)
            out.append(math.nan if numerator == 0 or math.isnan(numerator) else signed)
        else:
            out.append(numerator / d)
    return out


def quotient_interval(
    numerator: float, ascending: Sequence[float], estimate: float, confidence: float
) -> Interval | None:
    """`percentile_interval(quotients(numerator, ascending), ...)` for sorted denominators
    (NaN left out: it gives a NaN quotient, which is dropped anyway).

    With a positive numerator and positive finite denominators whose quotients are finite, the
    quotients are the denominators' order reversed (division rounds monotonically), so four
    divisions give the ends; anything else takes every quotient.
    """
    n = len(ascending)
    if not (
        n >= 10
        and math.isfinite(numerator)
        and numerator > 0
        and ascending[0] > 0
        and math.isfinite(ascending[-1])
        and math.isfinite(numerator / ascending[0])
    ):
        return percentile_interval(quotients(numerator, ascending), estimate, confidence)
    if not math.isfinite(estimate):
        return None

    def quotient(k: int) -> float:  # the k-th smallest quotient
        return numerator / ascending[n - 1 - k]

    alpha = (1.0 - confidence) / 2.0
    low, high = (_linear_at(n, q, quotient) for q in (alpha, 1.0 - alpha))
    return Interval(low, high, confidence, "percentile", n)


def _linear_at(n: int, q: float, value: Callable[[int], float]) -> float:
    """`_linear` of n sorted values, reading only the two it interpolates."""
    at = (n - 1) * q
    if at >= n - 1:
        return value(n - 1)
    if at < 0:
        return value(0)
    below = math.floor(at)
    t = at - below
    a, b = value(below), value(below + 1)
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def pack(values: Iterable[float]) -> str:
    """Floats as base64 of little-endian float64: exact, and quick to read back."""
    packed = array("d", values)
    if sys.byteorder != "little":
        packed.byteswap()
    return binascii.b2a_base64(packed.tobytes(), newline=False).decode("ascii")


def unpack(text: str) -> list[float]:
    """`pack`, read back (ValueError if it is not whole float64s; TypeError if not text).

    binascii, not base64: base64.b64decode(validate=True) is this call, and its module
    (with struct) is 0.7 ms of a warm rebuild's imports.
    """
    if not isinstance(text, str):
        raise TypeError("packed floats are base64 text")
    try:
        encoded = text.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError("packed floats are ASCII text") from None
    raw = binascii.a2b_base64(encoded, strict_mode=True)
    if len(raw) % 8:
        raise ValueError("not a whole number of float64 values")
    values = array("d")
    values.frombytes(raw)
    if sys.byteorder != "little":
        values.byteswap()
    return values.tolist()
