"""Each system's capacity at the percentile SLOs (`slo p99 ttft 2 s ...`), with intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from cmpc.analysis import types as T
from cmpc.analysis.economics import cost
from cmpc.analysis.uncertainty import SystemReplicates, as_list, ci, measured_per_gpu
from cmpc.compute.percentile import one_sided_bound
from cmpc.compute.slo_capacity import CapacityRead, capacity_at
from cmpc.ingest.points import RunPoint
from cmpc.ir import model as ir

METHOD = (
    "the highest load meeting every limit and the next load measured bracket the capacity; "
    "each limited statistic is linear in load between them, and the capacity is where the "
    "first reaches its limit (never beyond the measured range)"
)


def _load(rp: RunPoint) -> float | None:
    if rp.concurrency is not None:
        return rp.concurrency
    try:
        rate = float(rp.fields.get("request_rate"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return rate if math.isfinite(rate) else None


def _groups(runs: Sequence[RunPoint]) -> list[tuple[float, list[int]]]:
    """Runs by load, ascending (repetitions at one load together)."""
    by: dict[float, list[int]] = {}
    for i, rp in enumerate(runs):
        load = _load(rp)
        if load is not None:
            by.setdefault(load, []).append(i)
    return sorted(by.items())


def _read(
    groups: list[tuple[float, list[int]]],
    stats: np.ndarray,  # (runs, limits)
    tput: np.ndarray,  # (runs,)
    limits: Sequence[float],
) -> CapacityRead:
    loads = [load for load, _ in groups]
    values = [np.mean(stats[members], axis=0).tolist() for _, members in groups]
    through = [float(np.mean(tput[members])) for _, members in groups]
    return capacity_at(loads, values, limits, through)


def _read_replicates(
    groups: list[tuple[float, list[int]]],
    stats: np.ndarray,  # (runs, limits, replicates)
    tput: np.ndarray,  # (runs, replicates)
    limits: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """`_read` of every replicate at once: each one's load and throughput at capacity, NaN
    where no load meets every limit; the same operations as `_read` and `capacity_at` (means
    over a load's runs in the same order), so the same floats."""
    loads = np.array([load for load, _ in groups], dtype=float)
    # a load's statistics: the mean over its runs, as `_read` takes it of (runs, limits)
    values = np.stack([np.mean(stats[members], axis=0) for _, members in groups])
    # its throughput: each replicate's mean over the runs as one contiguous row, as `_read`
    through = np.stack(
        [np.ascontiguousarray(tput[members].T).mean(axis=1) for _, members in groups]
    )
    bound = np.asarray(limits, dtype=float)[None, :, None]
    holds = np.all(np.isfinite(values) & (values <= bound), axis=1)  # (loads, replicates)
    met = holds.any(axis=0)
    count, replicates = holds.shape
    h = count - 1 - np.argmax(holds[::-1], axis=0)  # the highest load meeting every limit
    n = np.minimum(h + 1, count - 1)
    columns = np.arange(replicates)
    low, high = values[h, :, columns].T, values[n, :, columns].T  # (limits, replicates)
    limit = bound[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (limit - low) / (high - low)
    t = np.where(t < 0.0, 0.0, t)  # Python's max(t, 0.0), then min(t, 1.0)
    t = np.where(t > 1.0, 1.0, t)
    t = np.where(~np.isfinite(high) | (high == low), 0.0, t)
    t = np.where(np.isfinite(high) & (high <= limit), np.inf, t)  # not reached at the next load
    first = t[np.argmin(t, axis=0), columns]  # the first limit reached (the lowest j on ties)
    top = h == count - 1  # the highest load measured meets every limit
    with np.errstate(invalid="ignore"):
        load = np.where(top, loads[h], loads[h] + first * (loads[n] - loads[h]))
        at, above = through[h, columns], through[n, columns]
        put = np.where(top, at, at + first * (above - at))
    return np.where(met, load, np.nan), np.where(met, put, np.nan)


def capacity_at_slo(
    comparison: ir.Comparison,
    system: ir.System,
    result: T.SystemResult,
    runs: Sequence[RunPoint] | None,
    reps: SystemReplicates | None,
) -> tuple[T.CapacityAtSlo | None, np.ndarray | None]:
    """The capacity read and the replicates of its throughput (None: no limits or no runs)."""
    limits = comparison.latency.percentile_slo
    if not limits or not runs:
        return None, None
    keys = [f"{stat} {metric}" for stat, metric, _ in limits]
    bound = [limit for _, _, limit in limits]
    groups = _groups(runs)
    stats = np.array([[_nan(rp.limits.get(k)) for k in keys] for rp in runs], dtype=float)
    tput = np.array([_nan(measured_per_gpu(comparison, system, rp)) for rp in runs])
    read = _read(groups, stats, tput, bound)
    load_key: Literal["concurrency", "request_rate"] = (
        "concurrency" if all(rp.concurrency is not None for rp in runs) else "request_rate"
    )
    out: T.CapacityAtSlo = {
        "limits": [
            {"statistic": stat, "metric": metric, "limit_ms": limit * 1000}
            for stat, metric, limit in limits
        ],
        "load_key": load_key,
        "method": METHOD,
        "met": read.met,
        "load": read.load,
        "load_ci": None,
        "load_one_sided_ci": None,
        "bracket": [],
        "bounded_by_sweep": read.bounded_by_sweep,
        "limiting": None if read.limiting is None else keys[read.limiting],
        "throughput_per_gpu": read.throughput,
        "throughput_per_gpu_ci": None,
        "usd_per_million_tokens": None,
        "usd_per_million_tokens_ci": None,
        "note": None if read.met else "no run of the sweep meets every limit",
    }
    if read.below is not None:
        out["bracket"] = [groups[read.below][0]]
        if read.above is not None:
            out["bracket"].append(groups[read.above][0])
    hourly = result["cost"]["price"]
    if read.throughput is not None:
        out["usd_per_million_tokens"] = cost(comparison, system, hourly, read.throughput)[
            "usd_per_million_tokens"
        ]
    if reps is None or not read.met or read.throughput is None:
        return out, None
    size = reps.resamples
    rep_stats = np.stack([r.limits[:, :size] for r in reps.runs])  # (runs, limits, replicates)
    rep_tput = np.stack([r.per_gpu[:size] for r in reps.runs])  # (runs, replicates)
    if rep_stats.shape[1] != len(limits):
        return out, None
    loads, through = _read_replicates(groups, rep_stats, rep_tput, bound)
    if read.bounded_by_sweep:  # "at least the highest load": one-sided, no two ends
        level = comparison.uncertainty.confidence
        out["load_one_sided_ci"] = one_sided_bound(loads.tolist(), level)
    else:
        out["load_ci"] = as_list(ci(comparison, loads, read.load))
    out["throughput_per_gpu_ci"] = as_list(ci(comparison, through, read.throughput))
    usd = out["usd_per_million_tokens"]
    if usd is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            out["usd_per_million_tokens_ci"] = as_list(
                ci(comparison, usd * read.throughput / through, usd)
            )
    return out, through


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value
