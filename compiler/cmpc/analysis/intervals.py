"""The spec's figures with their intervals: each system's, the headline's, capacity at SLO."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.reads import measured_runs
from cmpc.analysis.stage import recall, record, same
from cmpc.analysis.uncertainty import (
    Reads,
    as_list,
    bound_cost_interval,
    ci,
    headline_uncertainty,
    read_replicates,
    replicates_of,
    system_uncertainty,
)
from cmpc.compute.intervals import within_noise
from cmpc.compute.percentile import pack, quotient_interval, unpack
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.analysis import slo_capacity
else:  # only a spec with an SLO reads capacity at it
    slo_capacity = lazy.module("cmpc.analysis.slo_capacity")


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
    boots: dict[str, str] = {}
    capacity: dict[str, np.ndarray | None] = {}
    for system in comparison.systems:
        result = systems[system.name]
        part = recall(
            "system-intervals",
            comparison,
            system.name,
            partial(_system_intervals, comparison, data, system, result),
            same,
            same,
        )
        result["uncertainty"] = part["uncertainty"]
        if part["boot"] is not None:
            boots[system.name] = part["boot"]
        if comparison.latency.percentile_slo:  # costed: read from the runs at every build
            runs = measured_runs(comparison, data, system)
            reps = replicates_of(comparison, system, runs)
            result["capacity_at_slo"], capacity[system.name] = slo_capacity.capacity_at_slo(
                comparison, system, result, runs, reps
            )
        else:
            result["capacity_at_slo"], capacity[system.name] = None, None
    if head is None:
        return None
    found = _headline(comparison, head, systems, boots)
    ratio, ratio_ci = _capacity_ratio(comparison, systems, capacity, head)
    headline: T.Headline = {
        **head,
        **found,
        "capacity_at_slo_ratio": ratio,
        "capacity_at_slo_ratio_ci": ratio_ci,
    }
    return headline


def _system_intervals(
    comparison: ir.Comparison,
    data: Mapping[str, SystemData],
    system: ir.System,
    result: T.SystemResult,
) -> dict[str, Any]:
    """A system's uncertainty and its replicate reads (`pack`ed; None without replicates)."""
    reps = replicates_of(comparison, system, measured_runs(comparison, data, system))
    point = result["at_target"]["throughput_per_gpu"]
    values = read_replicates(comparison, reps, point) if reps is not None else None
    uncertainty = system_uncertainty(comparison, result, reps, values)
    boot = None if values is None else pack(values.boot.tolist())
    # `_boot`'s value for this system: a sensitivity row under the spec's own price-free
    # conditions (its statistic, a utilization) recalls it instead of reading the replicates again
    record("system-reads", comparison, system.name, boot)
    return {"uncertainty": uncertainty, "boot": boot}


def _headline(
    comparison: ir.Comparison,
    head: T.Ratios,
    systems: Mapping[str, T.SystemResult],
    boots: Mapping[str, str],
) -> T.HeadlineUncertainty:
    """`headline_uncertainty`, its price-free part remembered and the cost interval from the
    stored replicate ratios (no numpy) when that is how the full computation would cost it."""
    names = (head["system"], head["baseline"])
    extra = [*names, head["throughput_ratio"], head["per_gpu_throughput_ratio"]]
    free = recall(
        "headline",
        comparison,
        extra,
        lambda: _price_free_headline(comparison, head, systems, boots),
        same,
        same,
    )
    if not free["exact"]:
        return headline_uncertainty(comparison, head, _reads(systems, boots))
    found: T.HeadlineUncertainty = free["found"]
    cost, ratios = head["cost_ratio"], free["ratios"]
    if head["bound"] is not None:
        if cost is not None and ratios is not None:
            return bound_cost_interval(comparison, head, found, unpack(ratios))
        return found
    if cost is not None and ratios is not None:
        per_gpu = head["per_gpu_throughput_ratio"]
        assert per_gpu is not None  # stored ratios mean a per-GPU ratio (price-free part)
        cost_ci = quotient_interval(
            cost * per_gpu, unpack(ratios), cost, comparison.uncertainty.confidence
        )
        found["cost_ratio_ci"] = as_list(cost_ci)
        found["cost_within_noise"] = within_noise(cost_ci, comparison.tie_band) if cost_ci else None
    return found


def _price_free_headline(
    comparison: ir.Comparison,
    head: T.Ratios,
    systems: Mapping[str, T.SystemResult],
    boots: Mapping[str, str],
) -> dict[str, Any]:
    """The headline's intervals without its cost, the per-GPU replicate ratios the cost
    interval divides, and whether those two give the full result exactly (`exact`)."""
    reads = _reads(systems, boots)
    free: T.Ratios = {**head, "cost_ratio": None}
    found = headline_uncertainty(comparison, free, reads)
    u = comparison.uncertainty
    a, b = reads.get(head["system"]), reads.get(head["baseline"])
    if not u.enabled:
        return {"found": found, "ratios": None, "exact": True}
    if a is None or b is None or u.method != "percentile":
        return {"found": found, "ratios": None, "exact": False}  # costed another way
    if head["throughput_ratio"] is None or not head["per_gpu_throughput_ratio"]:
        return {"found": found, "ratios": None, "exact": True}
    if not a.point or not b.point:
        return {"found": found, "ratios": None, "exact": True}
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = a.boot / b.boot
    if head["bound"] is not None:  # a bound ratio's cost is a bound too: one-sided, NaNs kept
        return {"found": found, "ratios": pack(ratios.tolist()), "exact": True}
    kept = np.sort(ratios[~np.isnan(ratios)]).tolist()  # a NaN ratio costs a NaN: dropped
    return {"found": found, "ratios": pack(kept), "exact": True}


def _reads(systems: Mapping[str, T.SystemResult], boots: Mapping[str, str]) -> dict[str, Reads]:
    """Each system's replicate reads as `headline_uncertainty` takes them."""
    return {
        name: Reads(
            np.asarray(unpack(boot), dtype=np.float64),
            systems[name]["at_target"]["throughput_per_gpu"],
        )
        for name, boot in boots.items()
    }


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
    boots: dict[str, str] = {}
    for name in (head["system"], head["baseline"]):
        boot = recall(
            "system-reads",
            comparison,
            name,
            partial(_boot, comparison, data, systems, name),
            same,
            same,
        )
        if boot is not None:
            boots[name] = boot
    return _headline(comparison, head, systems, boots)


def _boot(
    comparison: ir.Comparison,
    data: Mapping[str, SystemData],
    systems: Mapping[str, T.SystemResult],
    name: str,
) -> str | None:
    """A system's per-GPU read in each bootstrap replicate, `pack`ed (None: no replicates)."""
    system = comparison.system(name)
    reps = replicates_of(comparison, system, measured_runs(comparison, data, system))
    if reps is None:
        return None
    point = systems[name]["at_target"]["throughput_per_gpu"]
    return pack(read_replicates(comparison, reps, point).boot.tolist())
