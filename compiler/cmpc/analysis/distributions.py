"""The latency distribution of one run per system (TTFT and TPOT CDFs), from per-request data."""

from __future__ import annotations

from collections.abc import Sequence

from cmpc.analysis import types as T
from cmpc.ingest.points import CDF_PERCENTILES, RunPoint
from cmpc.ir import model as ir


def latency_cdf(comparison: ir.Comparison, runs: Sequence[RunPoint] | None) -> T.LatencyCdf | None:
    """TTFT and TPOT percentiles of the run whose constrained latency is nearest the target
    (the only run, or the lowest-latency one, when there is no target); None without
    per-request data."""
    usable = [r for r in runs or () if set(r.quantiles) >= {"ttft", "tpot"}]
    if not usable:
        return None
    target = comparison.latency.target
    goal = target.latency_ms / 1000 if target is not None else 0.0

    def distance(r: RunPoint) -> tuple[float, str, int]:
        gap = abs(r.latency_s - goal) if r.latency_s is not None else float("inf")
        return (gap, r.label, r.index)

    run = min(usable, key=distance)
    return {
        "label": run.label,
        "concurrency": run.concurrency,
        "percentiles": list(CDF_PERCENTILES),
        "ttft_s": list(run.quantiles["ttft"]),
        "tpot_s": list(run.quantiles["tpot"]),
    }
