"""Each alternative condition's ratios, recomputed, and where the winner flips."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from cmpc.analysis import types as T
from cmpc.analysis.figures import figures
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V


def sensitivity(
    c: ir.Comparison, data: Mapping[str, SystemData], head: T.Ratios | None
) -> T.Sensitivity:
    """One row per alternative: its ratios and winners against the spec's own `head`line."""
    declared = bool(c.sensitivity)
    if not c.systems:
        return {"declared": declared, "rows": []}
    axes = c.sensitivity or _default_axes(c)
    base_winner = head["winner"] if head else None
    base_cost_winner = head["cost_winner"] if head else None
    rows: list[T.SensitivityRow] = []
    for axis in axes:
        for alt in axis.alternatives:
            variant = _alternative(c, axis.parameter, alt.value)
            available, reason = _available(variant, axis.parameter, alt.value)
            row: T.SensitivityRow = {
                "parameter": axis.parameter,
                "alternative": alt.text,
                "available": available,
                "reason": reason,
                "throughput_ratio": None,
                "cost_ratio": None,
                "winner": None,
                "cost_winner": None,
                "flips": False,
                "cost_flips": False,
            }
            if available:
                # the variant's warnings restate the spec's own: the rows carry what differs
                sub = figures(variant, data)[0].headline
                if sub is not None:
                    row["throughput_ratio"] = sub["throughput_ratio"]
                    row["cost_ratio"] = sub["cost_ratio"]
                    row["winner"] = sub["winner"]
                    row["cost_winner"] = sub["cost_winner"]
                row["flips"] = bool(row["winner"] and base_winner and row["winner"] != base_winner)
                row["cost_flips"] = bool(
                    row["cost_winner"]
                    and base_cost_winner
                    and row["cost_winner"] != base_cost_winner
                )
                if row["throughput_ratio"] is None and row["cost_ratio"] is None:
                    row["available"], row["reason"] = False, "not computable from the data"
            rows.append(row)
    return {"declared": declared, "rows": rows}


def _default_axes(c: ir.Comparison) -> tuple[ir.SensitivityAxis, ...]:
    """Shown when a spec declares no sensitivity: accounting, statistic, utilization."""
    A = ir.Alternative
    return (
        ir.SensitivityAxis(
            "tokens", (A("output", ["output"]), A("input + output", ["input", "output"]))
        ),
        ir.SensitivityAxis("statistic", (A("p50", "median"), A("p90", "p90"), A("p99", "p99"))),
        ir.SensitivityAxis("utilization", (A("40%", 0.4), A("70%", 0.7), A("100%", 1.0))),
    )


def _alternative(c: ir.Comparison, parameter: V.SensitivityParameter, value: Any) -> ir.Comparison:
    R = dataclasses.replace
    if parameter == "tokens":
        # cost follows the counted tokens, so each alternative has its own $/M basis
        basis = {("output",): "output", ("input", "output"): "total", ("input",): "input"}
        per_million = basis.get(tuple(value), c.cost.per_million)
        return R(c, tokens=R(c.tokens, count=tuple(value)), cost=R(c.cost, per_million=per_million))
    if parameter == "statistic":
        return R(c, latency=R(c.latency, statistic=value))
    if parameter == "utilization":
        return R(c, cost=R(c.cost, utilization=value))
    if parameter == "read":
        return R(c, latency=R(c.latency, read=value))
    if parameter == "price":
        return R(c, cost=R(c.cost, scenario=value))
    if parameter == "normalize":
        return R(c, normalize=R(c.normalize, per=value))
    if parameter == "target" and c.latency.target is not None:
        t = ir.Target("interactivity", value, "tok/s/user", value, 1000.0 / value)
        return R(c, latency=R(c.latency, target=t))
    return c


def _available(c: ir.Comparison, parameter: str, value: Any) -> tuple[bool, str | None]:
    """Reported figures answer only the conditions they were published under."""
    for s in c.systems:
        rep = s.reported
        if rep is None or rep.points:
            continue
        if parameter == "statistic" and rep.statistic and value != rep.statistic:
            return False, f"`{s.name}` is reported at {rep.statistic} only"
        if parameter in ("tokens", "read", "target"):
            return False, f"`{s.name}` is reported under the spec's conditions only"
    return True, None
