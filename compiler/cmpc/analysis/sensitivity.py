"""Each alternative condition's ratios, recomputed, and where the winner flips."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from cmpc.analysis import types as T
from cmpc.analysis.figures import figures
from cmpc.analysis.intervals import ratio_intervals
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V


def sensitivity(
    c: ir.Comparison, data: Mapping[str, SystemData], head: T.Headline | None
) -> T.Sensitivity:
    """One row per alternative: its ratios and winners against the spec's own `head`line."""
    declared = bool(c.sensitivity)
    if not c.systems:
        return {"declared": declared, "tie_band": c.tie_band, "rows": []}
    axes = c.sensitivity or _default_axes(c)
    rows = [_row(c, data, axis.parameter, alt, head) for axis in axes for alt in axis.alternatives]
    return {"declared": declared, "tie_band": c.tie_band, "rows": rows}


def is_tie(ratio: float | None, band: float) -> bool:
    """True when `ratio` is within `band` (a share) of 1: the two values it compares are a tie."""
    return ratio is not None and abs(ratio - 1) <= band


def flips(
    ratio: float | None,
    winner: str | None,
    spec_ratio: float | None,
    spec_winner: str | None,
    band: float,
    noise: bool = False,
) -> bool:
    """True when the alternative names a winner other than the spec's, neither is a tie, and
    neither ratio is within measurement noise (`noise`: either interval holds 1 or the band)."""
    if noise or is_tie(ratio, band) or is_tie(spec_ratio, band):
        return False
    return bool(winner and spec_winner and winner != spec_winner)


def _row(
    c: ir.Comparison,
    data: Mapping[str, SystemData],
    parameter: V.SensitivityParameter,
    alt: ir.Alternative,
    head: T.Headline | None,
) -> T.SensitivityRow:
    """The headline recomputed under one alternative, or why it cannot be."""
    variant = _alternative(c, parameter, alt.value)
    available, reason = _available(variant, parameter, alt.value)
    # the variant's warnings restate the spec's own: the row carries only what differs
    at = figures(variant, data)[0] if available else None
    sub = at.headline if at else None
    found = ratio_intervals(variant, data, at.systems, sub) if at else None
    spec_noise = bool(head and head["within_noise"])
    cost_spec_noise = bool(head and head["cost_within_noise"])
    throughput_ratio = sub["throughput_ratio"] if sub else None
    cost_ratio = sub["cost_ratio"] if sub else None
    winner = sub["winner"] if sub else None
    cost_winner = sub["cost_winner"] if sub else None
    if available and throughput_ratio is None and cost_ratio is None:
        available, reason = False, "not computable from the data"
    band = c.tie_band
    spec_ratio = head["throughput_ratio"] if head else None
    spec_cost_ratio = head["cost_ratio"] if head else None
    return {
        "parameter": parameter,
        "alternative": alt.text,
        "available": available,
        "reason": reason,
        "throughput_ratio": throughput_ratio,
        "cost_ratio": cost_ratio,
        "winner": winner,
        "cost_winner": cost_winner,
        "bound": sub["bound"] if sub else None,
        "tie": is_tie(throughput_ratio, band),
        "cost_tie": is_tie(cost_ratio, band),
        "throughput_ratio_ci": found["throughput_ratio_ci"] if found else None,
        "within_noise": found["within_noise"] if found else None,
        "flips": flips(
            throughput_ratio,
            winner,
            spec_ratio,
            head["winner"] if head else None,
            band,
            noise=spec_noise or bool(found and found["within_noise"]),
        ),
        "cost_flips": flips(
            cost_ratio,
            cost_winner,
            spec_cost_ratio,
            head["cost_winner"] if head else None,
            band,
            noise=cost_spec_noise or bool(found and found["cost_within_noise"]),
        ),
    }


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
        # read along the spec's own axis: `20 ms` on a tok/s/user spec reads at 50 tok/s/user
        return R(c, latency=R(c.latency, target=R(value, given_as=c.latency.target.given_as)))
    return c


def _available(
    c: ir.Comparison, parameter: V.SensitivityParameter, value: Any
) -> tuple[bool, str | None]:
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
