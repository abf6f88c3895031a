"""Repetitions pooled: percentiles over every request of a system's runs at one load."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.comparisons import LOAD_KEYS
from cmpc.ingest.points import RunPoint
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.ingest import pooling
else:  # pooled only when the stage has not remembered it
    pooling = lazy.module("cmpc.ingest.pooling")

SHOWN = ("median", "p90", "p99")  # with the spec's own statistic when it is another percentile


def _quantile(statistic: str) -> float | None:
    if statistic == "median":
        return 0.5
    if statistic.startswith("p"):
        try:
            return float(statistic[1:]) / 100.0
        except ValueError:
            return None
    return None


def pooled_repetitions(
    comparison: ir.Comparison,
    runs: Sequence[RunPoint] | None,
    pools: Mapping[tuple[str, int], str],
) -> list[T.PooledResult]:
    """One entry per load that two or more runs share (repetitions), pooling their requests:
    exact by default, merged DDSketches with `--sketch`. `pools` holds each run's packed
    values by (path, index) (SystemData.pools)."""
    groups: dict[tuple[tuple[str, str], ...], list[RunPoint]] = {}
    for run in runs or ():
        load = tuple(
            (k, str(run.fields[k])) for k in LOAD_KEYS if run.fields.get(k) not in (None, "")
        )
        if load:  # a run that states no load is nobody's repetition
            groups.setdefault(load, []).append(run)
    latency = comparison.latency
    names = dict.fromkeys((*SHOWN, latency.statistic))
    qs = {n: q for n in names if (q := _quantile(n)) is not None}
    out: list[T.PooledResult] = []
    for load, members in groups.items():
        parts = [p for r in members if (p := pools.get((r.path, r.index))) is not None]
        if len(members) < 2 or len(parts) < len(members):
            continue
        found = pooling.pooled(parts, qs, latency.percentile_method)
        if found is None:
            continue
        ordered = sorted(members, key=lambda r: (r.label, r.index))
        out.append(
            {
                "load": dict(load),
                "runs": [r.label for r in ordered],
                "metric": latency.metric,
                "values": found.values,
                "method": found.method,
                "relative_accuracy": found.relative_accuracy,
                "latency_s": found.statistics,
            }
        )
    return sorted(out, key=lambda p: [(k, _numeric(v), v) for k, v in sorted(p["load"].items())])


def _numeric(text: str) -> float:
    """A load value's number, so concurrency 2 sorts before 16 (text last)."""
    try:
        return float(text)
    except ValueError:
        return float("inf")
