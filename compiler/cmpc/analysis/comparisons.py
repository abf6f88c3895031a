"""Between systems: the ratios to the baseline, cache hit-rate gaps, and load conditions."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from cmpc.analysis import types as T
from cmpc.analysis.economics import pue_of, scale
from cmpc.analysis.reads import measured_runs
from cmpc.analysis.tokens import accounting, cost_basis_matches
from cmpc.compute.accounting import CacheSource, TokenRates, hit_rate_gap
from cmpc.compute.cost import compare
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir

LOAD_KEYS = (
    "request_rate",
    "max_concurrency",
    "conc",
    "concurrency",
    "burstiness",
    # MLPerf LoadGen: the scenario, a Server run's target QPS and the latency bounds it is held to
    "scenario",
    "target_qps",
    "ttft_constraint_ms",
    "tpot_constraint_ms",
    "rate_qps",  # an llm-d benchmark report's requested rate
)


def ratios(
    comparison: ir.Comparison, s: T.SystemResult, base: T.SystemResult, system: ir.System
) -> T.Ratios:
    """Throughput ratio (per unit and per GPU) and the cost ratio it implies at the prices."""
    per_gpu_ratio = None
    a, b = s["at_target"]["throughput_per_gpu"], base["at_target"]["throughput_per_gpu"]
    if a is not None and b:
        per_gpu_ratio = a / b
    else:
        s_rel, base_rel = _relative(s), _relative(base)
        if s_rel and base_rel and s_rel[0] == base_rel[0] and base_rel[1]:
            per_gpu_ratio = s_rel[1] / base_rel[1]  # both published against one reference
    # per used GPU-hour: a system billed for more GPUs than it runs on pays for them all
    price_s = s["cost"]["usd_per_used_gpu_hour"]
    price_b = base["cost"]["usd_per_used_gpu_hour"]
    price_ratio = price_s / price_b if price_s and price_b else None
    cost_ratio = None
    cost_unavailable = None
    if per_gpu_ratio and price_s and price_b:  # both prices: the price ratio is known
        if cost_basis_matches(comparison):
            cost_ratio = compare(per_gpu_ratio, 1.0, price_s, price_b).cost_ratio
        else:
            cost_unavailable = "the cost's token basis differs from the counted tokens"
    elif price_ratio is None:
        cost_unavailable = "a price is missing"
    per, utilization = comparison.normalize.per, comparison.cost.utilization
    scale_s = scale(system, per, s["cost"]["price"], utilization, pue_of(comparison, system))
    base_system = comparison.system(base["name"])
    scale_b = scale(
        base_system, per, base["cost"]["price"], utilization, pue_of(comparison, base_system)
    )
    ratio = per_gpu_ratio * scale_s / scale_b if per_gpu_ratio and scale_s and scale_b else None
    bound = ratio_bound(s["at_target"]["bound"], base["at_target"]["bound"]) if ratio else None
    winner = (s["name"] if ratio > 1 else base["name"] if ratio < 1 else None) if ratio else None
    cost_winner = None
    if cost_ratio:
        cost_winner = s["name"] if cost_ratio < 1 else base["name"] if cost_ratio > 1 else None
    return {
        "system": s["name"],
        "baseline": base["name"],
        "throughput_ratio": ratio,
        "per_gpu_throughput_ratio": per_gpu_ratio,
        "price_ratio": price_ratio,
        "cost_ratio": cost_ratio,
        "cost_ratio_at_equal_price": (1 / per_gpu_ratio) if per_gpu_ratio else None,
        "throughput_change": ratio - 1 if ratio else None,
        "cost_change": cost_ratio - 1 if cost_ratio else None,
        "winner": established(winner, bound, s["name"], base["name"]),
        "cost_winner": established(cost_winner, inverse_bound(bound), base["name"], s["name"]),
        "cost_unavailable": cost_unavailable,
        "goodput_ratio": _goodput_ratio(s, base),
        "bound": bound,
    }


def ratio_bound(system: T.Bound | None, baseline: T.Bound | None) -> T.RatioBound | None:
    """What a ratio system / baseline is when either read is a lower bound."""
    if system and baseline:
        return "neither"  # a ratio of two lower bounds bounds neither way
    if system:
        return "lower"
    return "upper" if baseline else None


def inverse_bound(bound: T.RatioBound | None) -> T.RatioBound | None:
    """The bound of a cost ratio, which goes as the inverse of the throughput ratio."""
    if bound == "lower":
        return "upper"
    return "lower" if bound == "upper" else bound


def established(
    winner: str | None, bound: T.RatioBound | None, when_lower: str, when_upper: str
) -> str | None:
    """The winner only where the ratio's bound makes it certain.

    A lower-bound ratio above 1 proves that `when_lower` (the side in its numerator) wins, one
    below 1 proves nothing; an upper-bound ratio the reverse; a ratio of two bounds nothing.
    """
    if bound is None:
        return winner
    if bound == "lower":
        return winner if winner == when_lower else None
    if bound == "upper":
        return winner if winner == when_upper else None
    return None


def _relative(s: T.SystemResult) -> tuple[str, float] | None:
    """(reference system, ratio to it) of a published relative figure; the reference is 1."""
    rel = s["at_target"]["relative"]
    if rel is None:
        return None
    return (rel["to"] or s["name"], rel["ratio"])


def _goodput_ratio(s: T.SystemResult, base: T.SystemResult) -> float | None:
    a, b = s["goodput"], base["goodput"]
    if not a or not b or not a["best"] or not b["best"]:
        return None
    high, low = a["best"]["goodput_req_s_per_gpu"], b["best"]["goodput_req_s_per_gpu"]
    # `best` is the best of the runs whose goodput is known
    assert high is not None and low is not None
    return high / low if low else None


def hit_rate_gaps(
    comparison: ir.Comparison, systems: Mapping[str, T.SystemResult], baseline: str
) -> list[Diagnostic]:
    """W410 for each system whose cache hit rate strays from the baseline's by the margin."""
    tokens = comparison.tokens
    if not accounting(tokens).reused_input:
        return []
    base = systems[baseline]

    def rates(s: T.SystemResult) -> TokenRates | None:
        if s["hit_rate"] is None:
            return None
        source = CacheSource(s["hit_rate_basis"])
        return TokenRates(1.0, 0.0, s["hit_rate"], source)

    base_rates = rates(base)
    found = []
    for name, s in systems.items():
        own = rates(s)
        if name == base["name"] or own is None or base_rates is None:
            continue
        gap = hit_rate_gap(name, own, base["name"], base_rates, tokens.hit_rate_margin)
        if gap is not None:
            found.append(dataclasses.replace(gap.diagnostic(), file=comparison.file))
    return found


def load(
    comparison: ir.Comparison, data: Mapping[str, SystemData]
) -> tuple[T.Load, list[Diagnostic]]:
    """Each measured system's load conditions, and whether they match across systems."""
    per_system: dict[str, list[str] | None] = {}
    for system in comparison.systems:
        runs = measured_runs(comparison, data, system)
        if runs is None:
            per_system[system.name] = None
            continue
        conditions: set[tuple[tuple[str, str], ...]] = set()
        for rp in runs:
            stated = tuple(
                (k, str(rp.fields[k])) for k in LOAD_KEYS if rp.fields.get(k) not in (None, "")
            )
            conditions.add(stated)
        per_system[system.name] = [
            ", ".join(f"{k} {v}" for k, v in c) or "not stated"
            for c in sorted(conditions, key=_numeric_order)
        ]
    measured = [v for v in per_system.values() if v is not None]
    comparable = None
    if len(measured) >= 2:
        comparable = all(v == measured[0] for v in measured) and "not stated" not in measured[0]
    result: T.Load = {"comparable": comparable, "systems": per_system}
    if comparable is not False:
        return result, []
    mismatch = warning(
        "W515",
        "the systems ran under different load conditions ("
        + "; ".join(f"{n}: {', '.join(v)}" for n, v in per_system.items() if v)
        + "): their figures are not comparable as a like-for-like test",
        file=comparison.file,
        help="run every system at the same request rates or concurrencies",
        origin=_first_differing(comparison, per_system),
    )
    return result, [mismatch]


def _numeric_order(condition: tuple[tuple[str, str], ...]) -> tuple[tuple[str, float, str], ...]:
    """Conditions in numeric order of their values (concurrency 2 before 16; `inf` last)."""
    key = []
    for name, value in condition:
        try:
            number = float(value)
        except ValueError:
            number = math.inf
        key.append((name, number, value))
    return tuple(key)


def _first_differing(comparison: ir.Comparison, per_system: Mapping[str, list[str] | None]) -> str:
    """The `runs` line of the first measured system whose load differs from the first's."""
    measured = [(i, v) for i, s in enumerate(comparison.systems) if (v := per_system[s.name])]
    first = measured[0][1] if measured else None
    index = next((i for i, v in measured[1:] if v != first), measured[0][0] if measured else 0)
    return f"/systems/{index}/runs"
