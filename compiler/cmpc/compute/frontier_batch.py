"""`pareto_frontier` then `read_at`, for many point sets at once (one per bootstrap replicate).

Each row of `x` (interactivity) and `y` (throughput) is one set of points; the result is
each row's read at the target, NaN where unreachable, the same value `read_at` gives (the
same operations in the same order), for the steffen, linear, nearest and calculator methods.
A duration target is read along latency (`read_batch_latency`), as `read_latency` reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cmpc import lazy
from cmpc.compute.calculator import hermite_basis
from cmpc.compute.frontier import AT_KNOT

if TYPE_CHECKING:  # as in compute/frontier.py: numpy.typing would load numpy at import
    from numpy.typing import NDArray

    from cmpc import _fastdraw

    Floats = NDArray[np.float64]
else:  # the optional C reads (setup.py), loaded at the first batch read (a warm rebuild has none)
    _fastdraw = lazy.module("cmpc._fastdraw")

BATCH_METHODS = ("steffen", "linear", "nearest", "calculator")
C_METHODS = {"steffen": 0, "linear": 1, "nearest": 2}  # _fastdraw.frontier_reads' codes


def frontiers(x: Floats, y: Floats) -> tuple[Floats, Floats, np.ndarray]:
    """Each row's frontier knots, by interactivity (padded with NaN), and their count."""
    usable = np.isfinite(x) & np.isfinite(y)
    xs = np.where(usable, x, np.inf)
    ys = np.where(usable, y, -np.inf)
    order = np.lexsort((-ys, xs), axis=-1)
    xs = np.take_along_axis(xs, order, axis=1)
    ys = np.take_along_axis(ys, order, axis=1)
    first = np.ones_like(xs, dtype=bool)
    first[:, 1:] = xs[:, 1:] != xs[:, :-1]  # one point per interactivity: the highest
    ys = np.where(first, ys, -np.inf)
    later = np.full_like(ys, -np.inf)
    later[:, :-1] = np.maximum.accumulate(ys[:, :0:-1], axis=1)[:, ::-1]
    keep = first & np.isfinite(xs) & (ys > later)
    fx = np.where(keep, xs, np.inf)
    order = np.argsort(fx, axis=1, kind="stable")
    fx = np.take_along_axis(fx, order, axis=1)
    fy = np.take_along_axis(np.where(keep, ys, np.nan), order, axis=1)
    count = keep.sum(axis=1)
    fx[~np.isfinite(fx)] = np.nan
    return fx, fy, count


def read_batch(x: Floats, y: Floats, target: float, method: str) -> Floats:
    """Each row's frontier read at `target` with `method`; NaN where unreachable."""
    if method not in BATCH_METHODS:
        raise ValueError(f"no batch read for `{method}`")
    found = _c_reads(x, y, target, method, mirrored=False)
    if found is not None:
        return found
    fx, fy, n = frontiers(np.asarray(x, float), np.asarray(y, float))
    return _read_knots(fx, fy, n, target, method)


def _c_reads(x: Floats, y: Floats, target: float, method: str, mirrored: bool) -> Floats | None:
    """`read_batch` (or, `mirrored`, `read_batch_latency` at -`target`) by one C pass over the
    rows, the same bits as the numpy code; None when the C module or the method is not there."""
    code = C_METHODS.get(method)
    if _fastdraw is None or code is None:
        return None
    try:
        c_reads = _fastdraw.frontier_reads
    except (ImportError, AttributeError):  # not built: the numpy code serves
        return None
    xs = np.ascontiguousarray(x, dtype=float)
    ys = np.ascontiguousarray(y, dtype=float)
    if xs.ndim != 2 or xs.shape != ys.shape or xs.shape[1] == 0:
        return None
    out = np.empty(xs.shape[0])
    rows, cols = xs.shape
    c_reads(xs, ys, rows, cols, float(target), AT_KNOT, code, mirrored, out)
    return out


def mirrored_latency_ms(fx: Floats) -> Floats:
    """Interactivities as `by_latency`'s axis: x = -1000 / interactivity (-latency in ms)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mirrored: Floats = -1000.0 / fx
    return mirrored


def read_batch_latency(x: Floats, y: Floats, target_ms: float, method: str) -> Floats:
    """Each row's read at latency `target_ms` along the (latency, throughput) frontier, as
    `read_latency` reads it before its lower bound; NaN where unreachable."""
    if method not in BATCH_METHODS:
        raise ValueError(f"no batch read for `{method}`")
    found = _c_reads(x, y, -target_ms, method, mirrored=True)
    if found is not None:
        return found
    fx, fy, n = frontiers(np.asarray(x, float), np.asarray(y, float))
    # -1000/x keeps the order, so the frontier by interactivity is the frontier by latency
    return _read_knots(mirrored_latency_ms(fx), fy, n, -target_ms, method)


def _read_knots(fx: Floats, fy: Floats, n: np.ndarray, target: float, method: str) -> Floats:
    """Each row's read at `target` from its frontier knots (`frontiers`' form)."""
    rows = np.arange(fx.shape[0])
    out = np.full(fx.shape[0], np.nan)
    if fx.shape[1] == 0:
        return out
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        near = np.abs(fx - target) <= AT_KNOT * np.maximum(np.abs(fx), abs(target))
        has_knot = near.any(axis=1)
        knot = np.argmax(near, axis=1)
        at = np.where(has_knot, fx[rows, knot], target)
        last = np.maximum(n - 1, 0)
        reach = (n > 0) & (fx[:, 0] <= at) & (at <= fx[rows, last])
        k = np.clip(np.sum(fx <= at[:, None], axis=1) - 1, 0, np.maximum(n - 2, 0))

        def X(j: np.ndarray) -> Floats:
            got: Floats = fx[rows, np.clip(j, 0, fx.shape[1] - 1)]
            return got

        def Y(j: np.ndarray) -> Floats:
            got: Floats = fy[rows, np.clip(j, 0, fx.shape[1] - 1)]
            return got

        x0, x1, y0, y1 = X(k), X(k + 1), Y(k), Y(k + 1)
        if method == "linear":
            t = (at - x0) / (x1 - x0)
            value = y0 + t * (y1 - y0)
        elif method == "nearest":
            value = np.where(at - x0 < x1 - at, y0, y1)
        elif method == "calculator":
            value = _calculator(fx, fy, n, k, at, X, Y)
        else:
            value = _steffen(fx, fy, n, k, at, X, Y)
        value = np.where(n == 1, fy[:, 0], value)
        value = np.where(has_knot, fy[rows, knot], value)
    out[reach] = value[reach]
    return out


def _steffen(fx, fy, n, k, at, X, Y) -> Floats:  # type: ignore[no-untyped-def]
    """`steffen_value` per row (segment `k` of `n` knots)."""

    def H(j: np.ndarray) -> Floats:
        got: Floats = X(j + 1) - X(j)
        return got

    def S(j: np.ndarray) -> Floats:
        got: Floats = (Y(j + 1) - Y(j)) / H(j)
        return got

    def interior(i: np.ndarray) -> Floats:
        h0, h1, s0, s1 = H(i - 1), H(i), S(i - 1), S(i)
        p = (s0 * h1 + s1 * h0) / (h0 + h1)
        limited = np.minimum(np.minimum(np.abs(s0), np.abs(s1)), 0.5 * np.abs(p))
        return (np.sign(s0) + np.sign(s1)) * limited

    zero = np.zeros_like(k)

    def slope(i: np.ndarray) -> Floats:
        start = (3 * S(zero) - interior(zero + 1)) / 2
        end = (3 * S(n - 2) - interior(n - 2)) / 2
        inner = np.where(i == 0, start, np.where(i == n - 1, end, interior(i)))
        return np.where(n == 2, S(zero), inner)

    h = H(k)
    t = (at - X(k)) / h
    t2, t3 = t * t, t * t * t
    raw = (
        (2 * t3 - 3 * t2 + 1) * Y(k)
        + (t3 - 2 * t2 + t) * h * slope(k)
        + (-2 * t3 + 3 * t2) * Y(k + 1)
        + (t3 - t2) * h * slope(k + 1)
    )
    rows = np.arange(fx.shape[0])
    low, high = fy[rows, np.maximum(n - 1, 0)], fy[:, 0]  # frontier throughput falls
    result: Floats = np.minimum(np.maximum(raw, low), high)
    return result


def _less(a: Floats, b: Floats) -> Floats:
    """Python's `min(a, b)` elementwise (b only where b < a: NaN as Python orders it)."""
    got: Floats = np.where(b < a, b, a)
    return got


def _calculator(fx, fy, n, k, at, X, Y) -> Floats:  # type: ignore[no-untyped-def]
    """`calculator_value` per row (segment `k` of `n` knots): compute/calculator.py's operations
    in its order, Python's `min`/`max` and the calculator's `sign` (zero positive) included."""
    zero = np.zeros_like(k)

    def H(j: np.ndarray) -> Floats:
        got: Floats = X(j + 1) - X(j)
        return got

    def S(j: np.ndarray) -> Floats:
        h = H(j)
        got: Floats = np.where(h == 0, 0.0, (Y(j + 1) - Y(j)) / np.where(h == 0, 1.0, h))
        return got

    def sign(v: Floats) -> Floats:
        got: Floats = np.where(v < 0, -1.0, 1.0)
        return got

    def interior(i: np.ndarray) -> Floats:
        s0, s1, h0, h1 = S(i - 1), S(i), H(i - 1), H(i)
        denominator = h0 + h1
        safe = np.where(denominator == 0, 1.0, denominator)
        p = np.where(denominator == 0, 0.0, (s0 * h1 + s1 * h0) / safe)
        smallest = _less(_less(np.abs(s0), np.abs(s1)), 0.5 * np.abs(p))
        slope = (sign(s0) + sign(s1)) * smallest
        got: Floats = np.where((slope == slope) & (slope != 0), slope, 0.0)  # JS `|| 0`
        return got

    # m[1] before m[0] is set (0 on two knots), then m[n-1] from the new m[n-2]
    second = np.where(n > 2, interior(zero + 1), 0.0)
    first = np.where(H(zero) != 0, (3 * S(zero) - second) / 2, second)
    before_last = np.where(n > 2, interior(n - 2), first)
    last = np.where(H(n - 2) != 0, (3 * S(n - 2) - before_last) / 2, before_last)

    def slope(i: np.ndarray) -> Floats:
        got: Floats = np.where(i == 0, first, np.where(i == n - 1, last, interior(i)))
        return got

    lo, hi = k, k + 1
    hh = X(hi) - X(lo)
    h00, h10, h01, h11 = hermite_basis((at - X(lo)) / np.where(hh == 0, 1.0, hh))
    raw = h00 * Y(lo) + h10 * hh * slope(lo) + h01 * Y(hi) + h11 * hh * slope(hi)
    raw = np.where(hh == 0, Y(lo), raw)
    # hermite's ends: the end value at or beyond a knot range's ends
    raw = np.where(at <= X(zero), Y(zero), np.where(at >= X(n - 1), Y(n - 1), raw))
    rows = np.arange(fx.shape[0])
    low, high = fy[rows, np.maximum(n - 1, 0)], fy[:, 0]  # frontier throughput falls
    clamped: Floats = np.where(_less(high, raw) > low, _less(high, raw), low)
    return clamped
