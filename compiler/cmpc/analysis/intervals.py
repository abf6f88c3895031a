"""The spec's figures with their intervals: each system's, the headline's, capacity at SLO."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cmpc.analysis import types as T
from cmpc.analysis.reads import measured_runs
from cmpc.analysis.slo_capacity import capacity_at_slo
from cmpc.analysis.uncertainty import (
    Reads,
    as_list,
    ci,
    headline_uncertainty,
    read_replicates,
    replicates_of,
    system_uncertainty,
)
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir


def settings(comparison: ir.Comparison) -> T.UncertaintyConditions:
    """The bootstrap's settings, as results.json states them."""
    u = comparison.uncertainty
    return {
        "enabled": u.enabled,
        "confidence": u.confidence,
        "method": u.method,
        "resamples": u.resamples,
        "seed": u.seed,
    }


def with_intervals(
    comparison: ir.Comparison,
    data: Mapping[str, SystemData],
    systems: dict[str, T.SystemResult],
    head: T.Ratios | None,
) -> T.Headline | None:
    """Fill each system's `uncertainty` and `capacity_at_slo`; the headline with its intervals."""
    reads: dict[str, Reads] = {}
    capacity: dict[str, np.ndarray | None] = {}
    for system in comparison.systems:
        result = systems[system.name]
        runs = measured_runs(comparison, data, system)
        reps = replicates_of(comparison, system, runs)
        point = result["at_target"]["throughput_per_gpu"]
        values = read_replicates(comparison, reps, point) if reps is not None else None
        if values is not None:
            reads[system.name] = values
        result["uncertainty"] = system_uncertainty(comparison, result, reps, values)
        result["capacity_at_slo"], capacity[system.name] = capacity_at_slo(
            comparison, system, result, runs, reps
        )
    if head is None:
        return None
    found = headline_uncertainty(comparison, head, reads)
    ratio, ratio_ci = _capacity_ratio(comparison, systems, capacity, head)
    return T.Headline(
        **head, **found, capacity_at_slo_ratio=ratio, capacity_at_slo_ratio_ci=ratio_ci
    )


def _capacity_ratio(
    comparison: ir.Comparison,
    systems: Mapping[str, T.SystemResult],
    replicates: Mapping[str, np.ndarray | None],
    head: T.Ratios,
) -> tuple[float | None, list[float] | None]:
    a = systems[head["system"]]["capacity_at_slo"]
    b = systems[head["baseline"]]["capacity_at_slo"]
    if a is None or b is None:
        return None, None
    ta, tb = a["throughput_per_gpu"], b["throughput_per_gpu"]
    if ta is None or not tb:
        return None, None
    ratio = ta / tb
    ra, rb = replicates.get(head["system"]), replicates.get(head["baseline"])
    if ra is None or rb is None:
        return ratio, None
    with np.errstate(divide="ignore", invalid="ignore"):
        return ratio, as_list(ci(comparison, ra / rb, ratio))


def ratio_intervals(
    comparison: ir.Comparison,
    data: Mapping[str, SystemData],
    systems: Mapping[str, T.SystemResult],
    head: T.Ratios | None,
) -> T.HeadlineUncertainty | None:
    """The intervals of `head` (figures under `comparison`'s conditions), or None without one."""
    if head is None or not comparison.uncertainty.enabled:
        return None
    reads: dict[str, Reads] = {}
    for name in (head["system"], head["baseline"]):
        system = comparison.system(name)
        reps = replicates_of(comparison, system, measured_runs(comparison, data, system))
        if reps is not None:
            point = systems[name]["at_target"]["throughput_per_gpu"]
            reads[name] = read_replicates(comparison, reps, point)
    return headline_uncertainty(comparison, head, reads)
