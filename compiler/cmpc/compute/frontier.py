"""Sweep points -> Pareto frontier -> throughput read at a target interactivity or latency."""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

import numpy as np

from cmpc.compute.calculator import calculator_value

if TYPE_CHECKING:  # numpy.typing would load numpy at import (cmpc/lazy.py defers it)
    from numpy.typing import ArrayLike, NDArray

    Floats = NDArray[np.float64]


class Method(StrEnum):
    """How a value between two frontier knots is read."""

    STEFFEN = "steffen"
    LINEAR = "linear"
    NEAREST = "nearest"
    CALCULATOR = "calculator"  # InferenceX's calculator and blog tables (compute/calculator.py)


# A target this close to a knot (relative) is read at the knot: a target of 70 ms and a run's
# measured 0.070 s differ in the last bit once each is turned into tok/s/user (1000/70 against
# 1/0.07), and that bit must not make a measured point unreachable.
AT_KNOT = 1e-9


@dataclass(frozen=True, slots=True)
class Point:
    """One measured run: interactivity (tok/s/user) and throughput per normalization unit."""

    interactivity: float
    throughput: float
    concurrency: float | None = None
    label: str = ""
    request_rate: float | str | None = None  # requests/s the client sent; "inf": all at once
    load: str = ""  # the load as a label: `c64`, `4 req/s`, `sync` (analysis/load_labels.py)


@dataclass(frozen=True, slots=True)
class Read:
    """The frontier's throughput at a target interactivity, with the knots it lies between.

    `value` is None when the target is outside the frontier (`reachable` False); cmpc never
    extrapolates. `knots` holds the lower and upper knot (by interactivity); both are the same
    point when the target hits the only knot of a one-point frontier. `bound` is "lower" when
    the target is easier than every measured point (`read_target`): `value` is then the best
    throughput measured at or beyond the target, and `knots` holds that one point.
    """

    target: float
    value: float | None
    reachable: bool
    method: Method
    knots: tuple[Point, ...] = ()
    bound: Literal["lower"] | None = None

    def derive(self, numerator: float) -> float | None:
        """A reciprocal quantity `numerator / throughput` (e.g. $/M tokens, J/token) at the read."""
        if self.value is None or self.value <= 0:
            return None
        return numerator / self.value


def _is_usable(point: Point) -> bool:
    return math.isfinite(point.interactivity) and math.isfinite(point.throughput)


def _sort_key(point: Point) -> tuple[float, float, float, str]:
    concurrency = point.concurrency if point.concurrency is not None else math.inf
    return (point.interactivity, -point.throughput, concurrency, point.label)


def pareto_frontier(points: Iterable[Point]) -> tuple[Point, ...]:
    """Upper-left frontier: interactivity strictly increasing, throughput strictly decreasing.

    Points from several recipes of one system are pooled by passing them together; points with a
    non-finite coordinate are left out.
    """
    front: list[Point] = []
    for point in sorted(filter(_is_usable, points), key=_sort_key):
        if front and point.interactivity == front[-1].interactivity:
            continue  # same interactivity, no more throughput than the point already kept
        while front and point.throughput >= front[-1].throughput:
            front.pop()
        front.append(point)
    return tuple(front)


def steffen_slopes(x: ArrayLike, y: ArrayLike) -> Floats:
    """Knot slopes of Steffen's (1990) monotone cubic, as d3's `curveMonotoneX` computes them."""
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    n = xs.size
    if n < 2:
        return np.zeros(n)
    h = np.diff(xs)
    s = np.diff(ys) / h
    if n == 2:
        return np.array([s[0], s[0]])
    slopes = np.empty(n)
    h0, h1, s0, s1 = h[:-1], h[1:], s[:-1], s[1:]
    p = (s0 * h1 + s1 * h0) / (h0 + h1)
    limited = np.minimum(np.minimum(np.abs(s0), np.abs(s1)), 0.5 * np.abs(p))
    slopes[1:-1] = (np.sign(s0) + np.sign(s1)) * limited
    slopes[0] = (3 * s[0] - slopes[1]) / 2
    slopes[-1] = (3 * s[-1] - slopes[-2]) / 2
    return slopes


def _hermite(t: Floats, h: Floats, y0: Floats, y1: Floats, m0: Floats, m1: Floats) -> Floats:
    t2, t3 = t * t, t * t * t
    value: Floats = (
        (2 * t3 - 3 * t2 + 1) * y0
        + (t3 - 2 * t2 + t) * h * m0
        + (-2 * t3 + 3 * t2) * y1
        + (t3 - t2) * h * m1
    )
    return value


def steffen_curve(frontier: Sequence[Point], targets: Sequence[float]) -> Floats:
    """The Steffen curve through the frontier at each target (NaN outside the frontier)."""
    x = np.array([p.interactivity for p in frontier], dtype=float)
    y = np.array([p.throughput for p in frontier], dtype=float)
    at = np.asarray(targets, dtype=float)
    out = np.full(at.shape, np.nan)
    if x.size == 0:
        return out
    inside = (at >= x[0]) & (at <= x[-1])
    if x.size == 1:
        out[inside] = y[0]
        return out
    m = steffen_slopes(x, y)
    k = np.clip(np.searchsorted(x, at[inside], side="right") - 1, 0, x.size - 2)
    h = x[k + 1] - x[k]
    t = (at[inside] - x[k]) / h
    raw = _hermite(t, h, y[k], y[k + 1], m[k], m[k + 1])
    # The dashboard clamps to the frontier's y-range; Steffen slopes already keep each segment
    # monotone, so this only guards rounding at the knots.
    out[inside] = np.clip(raw, y.min(), y.max())
    return out


def _sign(v: float) -> float:
    return float((v > 0) - (v < 0))


def _interior_slope(h0: float, h1: float, s0: float, s1: float) -> float:
    p = (s0 * h1 + s1 * h0) / (h0 + h1)
    return (_sign(s0) + _sign(s1)) * min(min(abs(s0), abs(s1)), 0.5 * abs(p))


def steffen_value(frontier: Sequence[Point], at: float, k: int) -> float:
    """`steffen_curve` at one target in segment `k`, in plain floats (the same operations in
    the same order, so the same value): a read per bootstrap replicate stays cheap."""
    x = [p.interactivity for p in frontier]
    y = [p.throughput for p in frontier]
    n = len(x)
    h = [x[i + 1] - x[i] for i in range(n - 1)]
    s = [(y[i + 1] - y[i]) / h[i] for i in range(n - 1)]

    def slope(i: int) -> float:
        if n == 2:
            return s[0]
        if 0 < i < n - 1:
            return _interior_slope(h[i - 1], h[i], s[i - 1], s[i])
        if i == 0:
            return (3 * s[0] - _interior_slope(h[0], h[1], s[0], s[1])) / 2
        return (3 * s[-1] - _interior_slope(h[n - 3], h[n - 2], s[n - 3], s[n - 2])) / 2

    t = (at - x[k]) / h[k]
    t2, t3 = t * t, t * t * t
    raw = (
        (2 * t3 - 3 * t2 + 1) * y[k]
        + (t3 - 2 * t2 + t) * h[k] * slope(k)
        + (-2 * t3 + 3 * t2) * y[k + 1]
        + (t3 - t2) * h[k] * slope(k + 1)
    )
    return min(max(raw, min(y)), max(y))


def _segment(frontier: Sequence[Point], target: float) -> int:
    """Index of the lower knot of the segment holding `target` (last segment at the top end)."""
    x = [p.interactivity for p in frontier]  # ascending; bisect as numpy's searchsorted does
    index = bisect.bisect_right(x, target) - 1
    return min(max(index, 0), len(frontier) - 2)


def _knot_at(frontier: Sequence[Point], target: float) -> Point | None:
    """The knot whose interactivity `target` equals (to within AT_KNOT), if any."""
    for knot in frontier:
        if math.isclose(knot.interactivity, target, rel_tol=AT_KNOT, abs_tol=0.0):
            return knot
    return None


def read_at(
    frontier: Sequence[Point], target: float, method: Method | str = Method.STEFFEN
) -> Read:
    """Read the frontier's throughput at `target` interactivity with the declared method."""
    method = Method(method)
    knot = _knot_at(frontier, target)
    at = knot.interactivity if knot is not None else target
    if not frontier or not frontier[0].interactivity <= at <= frontier[-1].interactivity:
        return Read(target, None, False, method)
    if len(frontier) == 1:
        only = frontier[0]
        return Read(target, only.throughput, True, method, (only, only))
    k = _segment(frontier, at)
    lo, hi = frontier[k], frontier[k + 1]
    if knot is not None:
        value = knot.throughput  # every method reads a measured point as measured
    elif method is Method.STEFFEN:
        value = steffen_value(frontier, at, k)
    elif method is Method.LINEAR:
        t = (at - lo.interactivity) / (hi.interactivity - lo.interactivity)
        value = lo.throughput + t * (hi.throughput - lo.throughput)
    elif method is Method.CALCULATOR:
        xs = [p.interactivity for p in frontier]
        value = calculator_value(xs, [p.throughput for p in frontier], at)
    else:
        # On a tie, the knot that meets the interactivity target (the faster one) wins.
        nearer_lo = at - lo.interactivity < hi.interactivity - at
        value = (lo if nearer_lo else hi).throughput
    return Read(target, value, True, method, (lo, hi))


def read_all(
    frontier: Sequence[Point], targets: Iterable[float], method: Method | str = Method.STEFFEN
) -> tuple[Read, ...]:
    """`read_at` for each target, in the order given."""
    return tuple(read_at(frontier, target, method) for target in targets)


def read_target(
    frontier: Sequence[Point], target: float, method: Method | str = Method.STEFFEN
) -> Read:
    """`read_at`, except that a target below the frontier's interactivity range is met.

    Every run beats such a target, so the read is a lower bound: the best throughput measured at
    or above the target interactivity (the frontier's slowest knot, its highest throughput).
    A target above the range stays unreachable.
    """
    read = read_at(frontier, target, method)
    if read.reachable or not frontier or target > frontier[0].interactivity:
        return read
    slowest = frontier[0]
    return Read(target, slowest.throughput, True, read.method, (slowest,), "lower")


def by_latency(frontier: Sequence[Point]) -> tuple[Point, ...]:
    """The frontier on the (latency, throughput) plane: x = -latency in ms, so larger is better.

    A point's interactivity is 1 / latency (in 1/s), so the order and the Pareto set are the
    same; only what lies between two knots changes: a read along latency, not along 1/latency.
    """
    return tuple(dataclasses.replace(p, interactivity=-1000.0 / p.interactivity) for p in frontier)


def read_latency(
    frontier: Sequence[Point], target_ms: float, method: Method | str = Method.STEFFEN
) -> Read:
    """Throughput at latency <= `target_ms` along the (latency, throughput) frontier.

    Lower is better: a target above every run's latency is met (a lower bound at the slowest
    run), one below every run's latency is unreachable. The knots returned are `frontier`'s own
    points; `target` is the latency target as an interactivity (1000 / ms).
    """
    mirrored = by_latency(frontier)
    read = read_target(mirrored, -target_ms, method)
    knots = tuple(frontier[mirrored.index(k)] for k in read.knots)
    return Read(1000.0 / target_ms, read.value, read.reachable, read.method, knots, read.bound)
