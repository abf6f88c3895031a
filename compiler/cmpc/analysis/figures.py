"""The figures at one set of conditions: each system's result, its ratios to the baseline, load."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmpc.analysis import types as T
from cmpc.analysis.comparisons import hit_rate_gaps, load, ratios
from cmpc.analysis.distributions import latency_cdf
from cmpc.analysis.economics import UNITS, cost, energy, hourly_cost, pue_of, scale
from cmpc.analysis.hardware import gpu_count
from cmpc.analysis.pooled import pooled_repetitions
from cmpc.analysis.reads import goodput, measured_runs, method, point_json, read_system
from cmpc.analysis.stage import diagnostics_json, diagnostics_of, recall
from cmpc.analysis.workloads import stale_prices, workload_differences
from cmpc.diagnostics import Diagnostic
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir


@dataclass(frozen=True)
class Figures:
    """Each system's figures and the ratios between them."""

    systems: dict[str, T.SystemResult]
    comparisons: list[T.Ratios]
    headline: T.Ratios | None
    load: T.Load | None


def figures(
    comparison: ir.Comparison, data: Mapping[str, SystemData]
) -> tuple[Figures, list[Diagnostic]]:
    """Every system read and costed, the ratios to the baseline, and the warnings met."""
    systems: dict[str, T.SystemResult] = {}
    found: list[Diagnostic] = []
    for system in comparison.systems:
        systems[system.name], warnings = _system_result(comparison, data, system)
        found += warnings
    if comparison.baseline is None:  # a claims audit
        return Figures(systems, [], None, None), found
    found += hit_rate_gaps(comparison, systems, comparison.baseline)
    base = systems[comparison.baseline]
    comparisons = [
        ratios(comparison, systems[s.name], base, s)
        for s in comparison.systems
        if s.name != comparison.baseline
    ]
    headline = comparisons[0] if comparisons else None
    load_result, warnings = recall(
        "load",
        comparison,
        None,
        lambda: load(comparison, data),
        lambda v: [v[0], diagnostics_json(v[1])],
        lambda doc: (doc[0], diagnostics_of(doc[1])),
    )
    workloads: list[Diagnostic] = recall(
        "workloads",
        comparison,
        None,
        lambda: workload_differences(comparison, data),
        diagnostics_json,
        diagnostics_of,
    )
    warnings += workloads + stale_prices(comparison, data)
    return Figures(systems, comparisons, headline, load_result), found + warnings


def _system_result(
    comparison: ir.Comparison, data: Mapping[str, SystemData], system: ir.System
) -> tuple[T.SystemResult, list[Diagnostic]]:
    """One system read, normalized and costed, with the warnings its read met."""
    latency = comparison.latency
    per = comparison.normalize.per
    hourly = hourly_cost(system, comparison.cost.scenario)
    factor = scale(system, per, hourly, comparison.cost.utilization, pue_of(comparison, system))
    gpus = gpu_count(system)
    target = latency.target
    read = recall(
        "system-read",
        comparison,
        system.name,
        lambda: _measured(comparison, data, system),
        _measured_json,
        _measured_of,
    )
    per_gpu = read["per_gpu"]
    bound_at = read["bound_at"]
    value = per_gpu * factor if per_gpu is not None and factor is not None else None
    result: T.SystemResult = {
        "name": system.name,
        "label": system.label,
        "accelerator": system.accelerator,
        "gpus": gpus,
        "engine": system.engine,
        "engine_version": system.engine_version,
        "data": "runs" if system.runs else "reported",
        "source": system.reported.source if system.reported else None,
        "points": read["points"],
        "frontier": read["frontier"],
        "hit_rate": read["hit_rate"],
        "hit_rate_basis": read["hit_rate_basis"],
        "notes": read["notes"],
        "goodput": read["goodput"],
        "latency_cdf": read["latency_cdf"],
        "at_target": {
            "interactivity_tok_s_user": target.interactivity_tok_s_user if target else None,
            "latency_ms": target.latency_ms if target else None,
            "throughput_per_gpu": per_gpu,
            "throughput_per_unit": value,
            "unit": UNITS[per],
            "reachable": read["reachable"],
            "method": method(latency, system),
            "knots": read["knots"],
            "relative": read["relative"],
            "bound": read["bound"],
            "measured_at_interactivity_tok_s_user": bound_at,
            "measured_at_latency_ms": 1000.0 / bound_at if bound_at else None,
        },
        "cost": cost(comparison, system, hourly, per_gpu),
        "energy": energy(comparison, system, per_gpu),
        "uncertainty": None,  # filled by analysis.results (only the spec's own conditions)
        "capacity_at_slo": None,
    }
    if read["pooled"]:
        result["pooled"] = read["pooled"]
    if read.get("per_request"):
        result["per_request"] = read["per_request"]
    return result, list(read["warnings"])


def _measured(
    comparison: ir.Comparison, data: Mapping[str, SystemData], system: ir.System
) -> dict[str, Any]:
    """What a system's figures take from its runs (no price): its read and the warnings met."""
    runs = measured_runs(comparison, data, system)
    read, found = read_system(comparison, system, runs)
    bound_at = read.knots[0] if read.bound and read.knots else None
    pools = data[system.name].pools() if system.name in data else {}
    return {
        "points": [point_json(p) for p in read.points],
        "frontier": [point_json(p) for p in read.frontier],
        "hit_rate": read.hit_rate,
        "hit_rate_basis": read.hit_rate_basis,
        "notes": list(read.notes),
        "goodput": goodput(comparison, runs, gpus=gpu_count(system)),
        "latency_cdf": latency_cdf(comparison, runs),
        "per_gpu": read.per_gpu,
        "reachable": read.reachable,
        "knots": [point_json(p) for p in read.knots],
        "relative": read.relative,
        "bound": read.bound,
        "bound_at": bound_at.interactivity if bound_at else None,
        "pooled": pooled_repetitions(comparison, runs, pools),
        "per_request": _per_request(runs),
        "warnings": found,
    }


def _per_request(runs: tuple[RunPoint, ...] | None) -> str | None:
    """Whether the runs hold per-request data: all, some or none (None without runs)."""
    if not runs:
        return None
    held = sum(bool(r.quantiles) for r in runs)
    return "all" if held == len(runs) else "some" if held else "none"


def _measured_json(read: dict[str, Any]) -> dict[str, Any]:
    return read | {"warnings": diagnostics_json(read["warnings"])}


def _measured_of(doc: dict[str, Any]) -> dict[str, Any]:
    return doc | {"warnings": diagnostics_of(doc["warnings"])}
