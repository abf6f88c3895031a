"""The comparison's method as results.json states it: latency, tokens, normalization, cost."""

from __future__ import annotations

from cmpc.analysis import types as T
from cmpc.analysis.economics import UNITS
from cmpc.ir import model as ir
from cmpc.language.vocabulary import PER_TOKEN_METRICS


def conditions(c: ir.Comparison) -> T.Conditions:
    """The conditions every figure was computed under."""
    lat, tok, cost = c.latency, c.tokens, c.cost
    target = lat.target
    return {
        "latency": {
            "metric": lat.metric,
            "ttft": lat.ttft,
            "statistic": lat.statistic,
            "target": None
            if target is None
            else {
                "given_as": target.given_as,
                "value": target.value,
                "unit": target.unit,
                "interactivity_tok_s_user": target.interactivity_tok_s_user,
                "latency_ms": target.latency_ms,
            },
            "read": lat.read,
            "axis": read_axis(lat),
            "percentile_method": lat.percentile_method,
            "slo": lat.slo,
            "percentile_slo": lat.percentile_slo,
        },
        "tokens": {
            "count": list(tok.count),
            "reused": tok.reused,
            "hit_rate_margin": tok.hit_rate_margin,
        },
        "normalize": {
            "per": c.normalize.per,
            "unit": UNITS[c.normalize.per],
            "power_basis": c.normalize.power_basis,
        },
        "cost": {
            "utilization": cost.utilization,
            "per_million": cost.per_million,
            "blend_input": cost.blend_input,
            "blend_output": cost.blend_output,
            "scenario": cost.scenario,
        },
    }


def read_axis(lat: ir.Latency) -> T.ReadAxis:
    """`latency` for a duration target, or for no target on a metric that is no per-token rate
    (1 / TTFT is no tok/s/user); else `interactivity`."""
    if lat.target is not None:
        return "latency" if lat.target.given_as == "latency" else "interactivity"
    return "interactivity" if lat.metric in PER_TOKEN_METRICS else "latency"
