"""Each system's capacity at the percentile SLOs (`slo p99 ttft 2 s ...`), with intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from cmpc.analysis import types as T
from cmpc.analysis.economics import cost
from cmpc.analysis.uncertainty import SystemReplicates, as_list, ci, measured_per_gpu
from cmpc.compute.intervals import lower_bound
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
    loads = np.full(reps.resamples, np.nan)
    through = np.full(reps.resamples, np.nan)
    rep_stats = np.stack([r.limits for r in reps.runs])  # (runs, limits, replicates)
    rep_tput = np.stack([r.per_gpu for r in reps.runs])  # (runs, replicates)
    if rep_stats.shape[1] != len(limits):
        return out, None
    for b in range(reps.resamples):
        got = _read(groups, rep_stats[:, :, b], rep_tput[:, b], bound)
        if got.met and got.load is not None and got.throughput is not None:
            loads[b], through[b] = got.load, got.throughput
    if read.bounded_by_sweep:  # "at least the highest load": one-sided, no two ends
        out["load_one_sided_ci"] = lower_bound(loads, comparison.uncertainty.confidence)
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
