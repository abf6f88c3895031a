"""Capacity at percentile SLOs: the highest load of a sweep at which every limit holds.

Between the highest load whose run meets every limit and the next load (which fails one),
each limited statistic is taken as linear in load; the capacity is where the first of them
reaches its limit, and the throughput there is interpolated at the same point. The highest
load of the sweep meeting every limit is a lower bound (never extrapolated beyond it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CapacityRead:
    """The load and throughput at capacity, and the runs (by load index) it lies between."""

    met: bool
    load: float | None = None
    throughput: float | None = None
    below: int | None = None  # index of the highest load meeting every limit
    above: int | None = None  # index of the next load (fails a limit); None: top of the sweep
    limiting: int | None = None  # which limit is reached first

    @property
    def bounded_by_sweep(self) -> bool:
        """True when even the highest load measured meets every limit: capacity is at least it."""
        return self.met and self.above is None


def _holds(values: Sequence[float], limits: Sequence[float]) -> bool:
    return all(math.isfinite(v) and v <= limit for v, limit in zip(values, limits, strict=True))


def capacity_at(
    loads: Sequence[float],
    values: Sequence[Sequence[float]],
    limits: Sequence[float],
    throughput: Sequence[float],
) -> CapacityRead:
    """`values[i][j]`: load i's statistic under limit j (loads ascending, one per load)."""
    passing = [i for i in range(len(loads)) if _holds(values[i], limits)]
    if not passing:
        return CapacityRead(False)
    h = passing[-1]
    if h == len(loads) - 1:
        return CapacityRead(True, loads[h], throughput[h], h, None)
    n = h + 1
    crossings = []
    for j, limit in enumerate(limits):
        low, high = values[h][j], values[n][j]
        if math.isfinite(high) and high <= limit:
            continue
        if not math.isfinite(high) or high == low:
            crossings.append((0.0, j))
            continue
        crossings.append((min(max((limit - low) / (high - low), 0.0), 1.0), j))
    t, limiting = min(crossings)
    load = loads[h] + t * (loads[n] - loads[h])
    tput = throughput[h] + t * (throughput[n] - throughput[h])
    return CapacityRead(True, load, tput, h, n, limiting)
