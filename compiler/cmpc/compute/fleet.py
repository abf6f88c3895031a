"""Fleet-planner reads: the highest interactivity within a cost cap, users per megawatt.

Along a frontier throughput falls as interactivity rises, so cost per token rises: the cost
meets a cap wherever throughput is at least the throughput the cap requires
(`required_throughput`). The highest such interactivity is where the frontier's read curve
crosses that throughput: solved exactly on a linear segment, by bisection on the Steffen
cubic (monotone on each segment), and at the fastest measured knot within the cap for the
nearest read (it reads measured points only). Never beyond the measured range: when even the
frontier's slowest (highest-throughput) knot costs more than the cap, the cap cannot be met;
when its fastest knot is within the cap, the read is a lower bound at that knot.

Each row of `x` (interactivity) and `y` (throughput) is one set of points (a bootstrap
replicate, or the measured points as one row), so a point read and its replicates are read by
the same operations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from cmpc.compute.cost import SECONDS_PER_HOUR, TOKENS_PER_MILLION
from cmpc.compute.frontier import Point, pareto_frontier, read_at
from cmpc.compute.frontier_batch import frontiers

if TYPE_CHECKING:  # as in compute/frontier.py: numpy.typing would load numpy at import
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]

CapStatus = Literal["met", "at_least", "cannot_meet"]
BISECTION_STEPS = 64  # halves the segment's parameter below a double's resolution
METHODS = ("steffen", "linear", "nearest", "calculator")

MET, AT_LEAST, CANNOT = 0, 1, 2
STATUSES: tuple[CapStatus, ...] = ("met", "at_least", "cannot_meet")


def required_throughput(
    usd_per_gpu_hour: float, cap_usd_per_million: float, utilization: float, used_share: float
) -> float:
    """Tokens/s per used GPU at which the cost equals the cap.

    cost = price / (throughput · share · 3600 · utilization) · 1e6 (the billed GPUs' price over
    the used GPUs' tokens), so cost <= cap exactly when throughput >= this value.
    """
    return (
        usd_per_gpu_hour
        * TOKENS_PER_MILLION
        / (cap_usd_per_million * SECONDS_PER_HOUR * utilization * used_share)
    )


def _slopes(fx: Floats, fy: Floats, n: np.ndarray, i: np.ndarray) -> Floats:
    """Each row's Steffen knot slope at knot `i` (d3's `curveMonotoneX`, as `steffen_slopes`)."""
    rows = np.arange(fx.shape[0])
    width = fx.shape[1]

    def at(a: Floats, j: np.ndarray) -> Floats:
        got: Floats = a[rows, np.clip(j, 0, width - 1)]
        return got

    def h(j: np.ndarray) -> Floats:
        return at(fx, j + 1) - at(fx, j)

    def s(j: np.ndarray) -> Floats:
        return (at(fy, j + 1) - at(fy, j)) / h(j)

    def interior(j: np.ndarray) -> Floats:
        h0, h1, s0, s1 = h(j - 1), h(j), s(j - 1), s(j)
        p = (s0 * h1 + s1 * h0) / (h0 + h1)
        limited = np.minimum(np.minimum(np.abs(s0), np.abs(s1)), 0.5 * np.abs(p))
        out: Floats = (np.sign(s0) + np.sign(s1)) * limited
        return out

    zero = np.zeros_like(i)
    start = (3 * s(zero) - interior(zero + 1)) / 2
    end = (3 * s(n - 2) - interior(n - 2)) / 2
    inner = np.where(i == 0, start, np.where(i == n - 1, end, interior(i)))
    slopes: Floats = np.where(n == 2, s(zero), inner)
    return slopes


def _steffen_crossing(fx: Floats, fy: Floats, n: np.ndarray, k: np.ndarray, need: Floats) -> Floats:
    """Each row's highest x in segment `k` where the Steffen cubic is still >= `need`."""
    rows = np.arange(fx.shape[0])
    x0, x1 = fx[rows, k], fx[rows, k + 1]
    y0, y1 = fy[rows, k], fy[rows, k + 1]
    m0, m1 = _slopes(fx, fy, n, k), _slopes(fx, fy, n, k + 1)
    h = x1 - x0
    low = np.zeros_like(x0)  # the cubic at t = 0 is y0 >= need
    high = np.ones_like(x0)  # at t = 1 it is y1 < need
    for _ in range(BISECTION_STEPS):
        t = (low + high) / 2
        t2, t3 = t * t, t * t * t
        value = (
            (2 * t3 - 3 * t2 + 1) * y0
            + (t3 - 2 * t2 + t) * h * m0
            + (-2 * t3 + 3 * t2) * y1
            + (t3 - t2) * h * m1
        )
        meets = np.minimum(np.maximum(value, y1), y0) >= need
        low = np.where(meets, t, low)
        high = np.where(meets, high, t)
    crossing: Floats = x0 + low * h
    return crossing


def _generic_crossing(points: Sequence[Point], need: float, method: str) -> float:
    """The crossing by bisection on `read_at` (the calculator's read has no batch form)."""
    frontier = pareto_frontier(points)
    k = max(i for i, p in enumerate(frontier) if p.throughput >= need)
    low, high = frontier[k].interactivity, frontier[k + 1].interactivity
    for _ in range(BISECTION_STEPS):
        mid = (low + high) / 2
        value = read_at(frontier, mid, method).value
        if value is not None and value >= need:
            low = mid
        else:
            high = mid
    return low


def interactivity_within(
    x: Floats, y: Floats, need: Floats | float, method: str
) -> tuple[Floats, np.ndarray]:
    """Each row's highest interactivity whose read throughput is >= `need`, and its status
    (MET, AT_LEAST: the fastest knot is within, CANNOT: the slowest knot is not; NaN then)."""
    if method not in METHODS:
        raise ValueError(f"no cost-cap read for `{method}`")
    fx, fy, n = frontiers(np.asarray(x, float), np.asarray(y, float))
    rows = np.arange(fx.shape[0])
    need_rows = np.broadcast_to(np.asarray(need, float), rows.shape)
    out = np.full(rows.shape, np.nan)
    status = np.full(rows.shape, CANNOT)
    if fx.shape[1] == 0:
        return out, status
    last = np.maximum(n - 1, 0)
    with np.errstate(invalid="ignore"):
        slowest_ok = (n > 0) & (fy[:, 0] >= need_rows)
        fastest_ok = slowest_ok & (fy[rows, last] >= need_rows)
        # knots meeting the cap: a prefix of the frontier (throughput falls along it)
        k = np.clip(np.sum(fy >= need_rows[:, None], axis=1) - 1, 0, np.maximum(n - 2, 0))
    inside = slowest_ok & ~fastest_ok
    status[fastest_ok] = AT_LEAST
    out[fastest_ok] = fx[rows, last][fastest_ok]
    status[inside] = MET
    if not inside.any():
        return out, status
    x0, x1 = fx[rows, k], fx[rows, np.minimum(k + 1, fx.shape[1] - 1)]
    y0, y1 = fy[rows, k], fy[rows, np.minimum(k + 1, fx.shape[1] - 1)]
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "linear":
            crossing = x0 + (need_rows - y0) / (y1 - y0) * (x1 - x0)
            crossing = np.where(y0 == need_rows, x0, crossing)
        elif method == "nearest":
            crossing = x0
        elif method == "steffen":
            crossing = _steffen_crossing(fx, fy, n, k, need_rows)
        else:
            crossing = np.full(rows.shape, np.nan)
            for r in np.flatnonzero(inside):
                count = int(n[r])
                points = [
                    Point(float(a), float(b))
                    for a, b in zip(fx[r, :count], fy[r, :count], strict=True)
                ]
                crossing[r] = _generic_crossing(points, float(need_rows[r]), method)
    out[inside] = crossing[inside]
    return out, status


def users_per_megawatt(
    output_per_gpu: float, interactivity: float, watts_per_gpu: float, pue: float = 1.0
) -> float:
    """Concurrent users one MW serves: output tok/s per GPU / tok/s per user (streams per GPU)
    times GPUs per MW (1e6 W / (watts per GPU · PUE))."""
    if not (interactivity > 0 and watts_per_gpu > 0 and pue >= 1):
        return math.nan
    return output_per_gpu / interactivity * 1e6 / (watts_per_gpu * pue)
