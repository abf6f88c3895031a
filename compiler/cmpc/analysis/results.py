"""IR + measured or reported data -> every figure of the comparison (the results model)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cmpc.analysis import types as T
from cmpc.compute.accounting import (
    CacheSource,
    TokenAccounting,
    TokenRates,
    counted_tokens,
    hit_rate_gap,
    split_input,
)
from cmpc.compute.capacity import AttentionKv, LatentKv, fewest_cards, memory_needed, weight_bytes
from cmpc.compute.claims import Claim, ClaimKind, Scope, ScopeFacts, rate_at_scope
from cmpc.compute.cost import (
    PowerBasis,
    PowerDraw,
    TcoParts,
    compare,
    cost_per_million_tokens,
    per_power,
    tco_per_gpu_hour,
    tokens_per_usd,
)
from cmpc.compute.frontier import Point, pareto_frontier, read_at
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V

UNITS: dict[V.NormalizeUnit, str] = {
    "gpu": "tok/s/gpu",
    "node": "tok/s/node",
    "rack": "tok/s/rack",
    "dollar": "tokens/USD",
    "mw": "tok/s/MW",
    "joule": "tokens/J",
}


@dataclass
class _Ctx:
    comparison: ir.Comparison
    data: Mapping[str, SystemData]
    diagnostics: list[Diagnostic]
    quiet: bool = False

    def warn(self, code: str, message: str, **kw: Any) -> None:
        if not self.quiet:
            self.diagnostics.append(warning(code, message, file=self.comparison.file, **kw))


def analyze(
    comparison: ir.Comparison, data: Mapping[str, SystemData]
) -> tuple[T.Analysis, list[Diagnostic]]:
    """The results model (see schemas/results.schema.json) and the warnings met on the way."""
    ctx = _Ctx(comparison, data, [])
    core = _core(ctx)
    sensitivity = _sensitivity(comparison, data, core)
    results: T.Analysis = {
        "title": comparison.title,
        "question": comparison.question,
        "baseline": comparison.baseline,
        "synthetic": comparison.synthetic,
        "conditions": _conditions(comparison),
        "systems": core.systems,
        "headline": core.headline,
        "load": core.load,
        "comparisons": core.comparisons,
        "claims": [_claim(c, comparison) for c in comparison.claims],
        "claim_combinations": _claim_combinations(comparison.claims),
        "sensitivity": sensitivity,
        "capacity": _capacity(comparison),
        "disclosure": _disclosure(comparison, core),
    }
    return results, ctx.diagnostics


# ---------------------------------------------------------------------------------------------
# The core: per-system reads at the target, cost, and ratios


@dataclass(frozen=True)
class _Core:
    """Each system's figures and the ratios between them."""

    systems: dict[str, T.SystemResult]
    comparisons: list[T.Ratios]
    headline: T.Ratios | None
    load: T.Load | None


def _core(ctx: _Ctx) -> _Core:
    comparison = ctx.comparison
    systems = {s.name: _system(ctx, s) for s in comparison.systems}
    if comparison.baseline is None:  # a claims audit
        return _Core(systems, [], None, None)
    _hit_rate_gap(ctx, systems, comparison.baseline)
    base = systems[comparison.baseline]
    comparisons = [
        _ratios(ctx, systems[s.name], base, s)
        for s in comparison.systems
        if s.name != comparison.baseline
    ]
    headline = comparisons[0] if comparisons else None
    return _Core(systems, comparisons, headline, _load(ctx))


def _gpus(system: ir.System) -> int | None:
    if system.parallel.declared:
        return system.parallel.gpus
    return system.count


def _price(system: ir.System, scenario: str | None) -> ir.Price | None:
    if not system.prices:
        return None
    if scenario is None:
        return system.prices[0]
    return next((p for p in system.prices if p.scenario == scenario), None)


def _tco_hourly(tco: ir.Tco) -> T.TcoHourly:
    parts = tco_per_gpu_hour(
        TcoParts(
            capex_usd=tco.capex_usd_per_gpu,
            years=tco.years,
            power_kw=(tco.power_watts or 0.0) / 1000,
            pue=tco.pue,
            usd_per_kwh=tco.electricity_usd_per_kwh or 0.0,
            hosting_usd_per_hour=tco.hosting_usd_per_gpu_hour,
            ops_usd_per_hour=tco.ops_usd_per_gpu_hour,
        )
    )
    return {
        "capex_usd_per_gpu_hour": parts.capex,
        "energy_usd_per_gpu_hour": parts.power,
        "hosting_usd_per_gpu_hour": parts.hosting,
        "ops_usd_per_gpu_hour": parts.ops,
        "usd_per_gpu_hour": parts.total,
        "energy_share": parts.power / parts.total,
    }


def _hourly_cost(system: ir.System, scenario: str | None) -> T.HourlyCost | None:
    """The $/GPU-hour a system's cost uses: the scenario's price, else its TCO parts."""
    price = None if scenario == "tco" else _price(system, scenario)
    if price is not None:
        return {
            "usd_per_gpu_hour": price.usd_per_gpu_hour,
            "scenario": price.scenario,
            "basis": price.basis,
            "source": price.source,
            "as_of": price.as_of,
        }
    if system.tco is not None:
        parts = _tco_hourly(system.tco)
        return {
            "usd_per_gpu_hour": parts["usd_per_gpu_hour"],
            "scenario": "tco",
            "basis": "tco",
            "source": system.tco.source,
            "as_of": system.tco.as_of,
            "tco": parts,
        }
    return None


def _scale(
    system: ir.System, per: V.NormalizeUnit, hourly: T.HourlyCost | None, utilization: float
) -> float | None:
    """The factor from tok/s per GPU to the normalization unit (None when a fact is missing)."""
    gpus = _gpus(system)
    if per == "gpu":
        return 1.0
    if per == "node":
        per_node = system.gpus_per_node or (gpus / system.nodes if gpus else None)
        return per_node
    if per == "rack":
        return system.gpus_per_rack
    if per == "dollar":
        if hourly is None:
            return None
        return 3600 * utilization / hourly["usd_per_gpu_hour"]
    if per == "mw":
        return 1e6 / system.power.watts_per_gpu if system.power else None
    if per == "joule":
        return 1 / system.power.watts_per_gpu if system.power else None
    return None


def _accounting(tokens: ir.Tokens) -> TokenAccounting:
    """The IR's `tokens` block as the accounting module's three switches."""
    count = set(tokens.count)
    return TokenAccounting(
        output="output" in count,
        uncached_input=bool(count & {"input", "uncached_input"}),
        reused_input="cached_input" in count or ("input" in count and tokens.reused == "included"),
    )


def _rates(point: RunPoint, system: ir.System) -> TokenRates | None:
    """A run's token rates, its input split by measured, else declared, cache hits."""
    if point.input_tok_s is None or point.output_tok_s is None:
        return None
    return split_input(
        point.input_tok_s,
        point.output_tok_s,
        measured_cached=point.cached_tok_s,
        declared_hit_rate=system.cache_hit_rate,
    )


def _system(ctx: _Ctx, system: ir.System) -> T.SystemResult:
    comparison = ctx.comparison
    latency, cost = comparison.latency, comparison.cost
    per = comparison.normalize.per
    hourly = _hourly_cost(system, cost.scenario)
    scale = _scale(system, per, hourly, cost.utilization)
    gpus = _gpus(system)
    target = latency.target
    points_json: list[T.PointResult] = []
    frontier_json: list[T.PointResult] = []
    hit_rate: float | None = None
    hit_rate_basis: T.HitRateBasis = "unknown"
    notes: list[str] = []
    read_value: float | None = None
    knots: list[T.PointResult] = []
    reachable: bool | None = None
    relative: T.Relative | None = None
    if system.runs is not None:
        points, (hit_rate, hit_rate_basis) = _run_points(ctx, system, gpus)
        points_json = [_point_json(p) for p in points]
        frontier = pareto_frontier(points)
        frontier_json = [_point_json(p) for p in frontier]
        if target is not None:
            read = read_at(
                frontier, target.interactivity_tok_s_user or _speed(target), latency.read
            )
            read_value, reachable = read.value, read.reachable
            knots = [_point_json(p) for p in read.knots]
        elif frontier:  # no target: each system at its own peak (one run: as measured)
            peak = max(frontier, key=lambda p: p.throughput)
            read_value, reachable, knots = peak.throughput, True, [_point_json(peak)]
    elif (rep := system.reported) is not None:
        hit_rate = rep.cache_hit_rate if rep.cache_hit_rate is not None else system.cache_hit_rate
        hit_rate_basis = "declared" if hit_rate is not None else "unknown"
        if rep.points:
            points = [
                Point(p.interactivity_tok_s_user, per_gpu, p.concurrency, "reported")
                for p in rep.points
                if (per_gpu := _per_gpu(p.throughput, p.throughput_unit, system)) is not None
            ]
            if len(points) < len(rep.points):
                notes.append(
                    "reported points per node or per system need the GPU count to be per GPU"
                )
            frontier = pareto_frontier(points)
            points_json = [_point_json(p) for p in points]
            frontier_json = [_point_json(p) for p in frontier]
            if target is not None and frontier:  # none per GPU: unknown, not unreachable
                read = read_at(frontier, target.interactivity_tok_s_user, latency.read)
                read_value, reachable = read.value, read.reachable
                knots = [_point_json(p) for p in read.knots]
        elif rep.throughput is not None:
            read_value, reachable = _per_gpu(rep.throughput, rep.throughput_unit, system), True
            if (
                target is not None
                and rep.at_interactivity_tok_s_user is not None
                and not math.isclose(
                    rep.at_interactivity_tok_s_user, target.interactivity_tok_s_user
                )
            ):
                ctx.warn(
                    "W514",
                    f"`{system.name}`'s reported throughput is at "
                    f"{rep.at_interactivity_tok_s_user:g} tok/s/user, not at the target "
                    f"{target.interactivity_tok_s_user:g}",
                )
                notes.append("reported at a different interactivity than the target")
        elif rep.ratio is not None:
            relative = {"ratio": rep.ratio, "to": rep.ratio_to}
            reachable = True
    goodput = _goodput(ctx, system, gpus)
    if target is not None and reachable is False:
        ctx.warn(
            "W411",
            f"`{system.name}` cannot reach {target.interactivity_tok_s_user:g} tok/s/user: "
            "the target is outside its measured frontier (never extrapolated)",
        )
    value = read_value * scale if read_value is not None and scale is not None else None
    return {
        "name": system.name,
        "label": system.label,
        "accelerator": system.accelerator,
        "gpus": gpus,
        "engine": system.engine,
        "engine_version": system.engine_version,
        "data": "runs" if system.runs else "reported",
        "source": system.reported.source if system.reported else None,
        "points": points_json,
        "frontier": frontier_json,
        "hit_rate": hit_rate,
        "hit_rate_basis": hit_rate_basis,
        "notes": notes,
        "goodput": goodput,
        "at_target": {
            "interactivity_tok_s_user": target.interactivity_tok_s_user if target else None,
            "latency_ms": target.latency_ms if target else None,
            "throughput_per_gpu": read_value,
            "throughput_per_unit": value,
            "unit": UNITS[per],
            "reachable": reachable,
            "method": _method(latency, system),
            "knots": knots,
            "relative": relative,
        },
        "cost": _cost(system, hourly, cost, read_value, comparison),
        "energy": _energy(system, read_value),
    }


def _method(latency: ir.Latency, system: ir.System) -> T.ReadKind:
    """How the at-target value was obtained."""
    if system.runs is None and not (system.reported and system.reported.points):
        return "reported"
    return latency.read if latency.target is not None else "peak"


def _load(ctx: _Ctx) -> T.Load:
    """Each measured system's load conditions, and whether they match across systems."""
    keys = ("request_rate", "max_concurrency", "conc", "concurrency", "burstiness")
    statistic = ctx.comparison.latency.statistic
    per_system: dict[str, list[str] | None] = {}
    for system in ctx.comparison.systems:
        if system.runs is None:
            per_system[system.name] = None
            continue
        conditions: set[tuple[tuple[str, str], ...]] = set()
        for rp in ctx.data[system.name].runs.get(statistic, ()):
            stated = tuple(
                (k, str(rp.fields[k])) for k in keys if rp.fields.get(k) not in (None, "")
            )
            conditions.add(stated)
        per_system[system.name] = sorted(
            ", ".join(f"{k} {v}" for k, v in c) or "not stated" for c in conditions
        )
    measured = [v for v in per_system.values() if v is not None]
    comparable = None
    if len(measured) >= 2:
        comparable = all(v == measured[0] for v in measured) and "not stated" not in measured[0]
    if comparable is False:
        ctx.warn(
            "W515",
            "the systems ran under different load conditions ("
            + "; ".join(f"{n}: {', '.join(v)}" for n, v in per_system.items() if v)
            + "): their figures are not comparable as a like-for-like test",
            help="run every system at the same request rates or concurrencies",
        )
    return {"comparable": comparable, "systems": per_system}


def _speed(target: ir.Target) -> float:
    return 1000.0 / target.latency_ms


def _per_gpu(value: float, unit: V.ReportedUnit | None, system: ir.System) -> float | None:
    """A reported rate per GPU, from per-GPU, per-node or whole-system figures."""
    gpus = _gpus(system)
    if unit == "tok/s/gpu":
        return value
    if unit == "tok/s/node":
        per_node = system.gpus_per_node or (gpus / system.nodes if gpus else None)
        return value / per_node if per_node else None
    return value / gpus if gpus else None


def _run_points(
    ctx: _Ctx, system: ir.System, gpus: int | None
) -> tuple[list[Point], tuple[float | None, T.HitRateBasis]]:
    comparison = ctx.comparison
    statistic = comparison.latency.statistic
    points = []
    accounting = _accounting(comparison.tokens)
    hit_values: list[tuple[float, float]] = []
    hit_basis: T.HitRateBasis = "unknown"
    for rp in ctx.data[system.name].runs.get(statistic, ()):
        denominator = gpus or rp.gpus
        if rp.gpus and gpus and not math.isclose(rp.gpus, gpus):
            ctx.warn(
                "W512",
                f"{rp.path}: the file counts {rp.gpus:g} GPUs, system `{system.name}` {gpus}",
                record=f"run {rp.index}",
            )
        rates = _rates(rp, system)
        counted = counted_tokens(rates, accounting) if rates else None
        if rates is not None and rates.hit_rate is not None:
            hit_values.append((rates.input_cached, rates.input))
            hit_basis = rates.cache_source.value
        if rp.latency_s is None or not rp.latency_s > 0 or counted is None or not denominator:
            continue  # a zero latency (every token in one chunk) has no finite interactivity
        points.append(Point(1.0 / rp.latency_s, counted / denominator, rp.concurrency, rp.label))
    hit = None
    if hit_values:
        hit = sum(c for c, _ in hit_values) / sum(i for _, i in hit_values)
    return points, (hit, hit_basis)


def _goodput(ctx: _Ctx, system: ir.System, gpus: int | None) -> T.Goodput | None:
    """Requests/s per GPU meeting every SLO, per run, and the best of the sweep (DistServe)."""
    slo = ctx.comparison.latency.slo
    if not slo or system.runs is None or not gpus:
        return None
    runs: list[T.GoodputRun] = [
        {
            "concurrency": rp.concurrency,
            "label": rp.label,
            "goodput_req_s_per_gpu": rp.goodput_req_s / gpus
            if rp.goodput_req_s is not None
            else None,
            "slo_attainment": rp.slo_attainment,
        }
        for rp in ctx.data[system.name].runs.get(ctx.comparison.latency.statistic, ())
    ]
    runs.sort(key=lambda r: (r["concurrency"] is None, r["concurrency"] or 0))
    measured = [(r, g) for r in runs if (g := r["goodput_req_s_per_gpu"]) is not None]
    best = max(measured, key=lambda pair: pair[1], default=(None, 0.0))[0]
    return {"slo_ms": {k: v * 1000 for k, v in slo}, "runs": runs, "best": best}


def _point_json(p: Point) -> T.PointResult:
    return {
        "interactivity_tok_s_user": p.interactivity,
        "throughput_per_gpu": p.throughput,
        "concurrency": p.concurrency,
        "label": p.label,
    }


def _cost(
    system: ir.System,
    hourly: T.HourlyCost | None,
    cost: ir.Cost,
    per_gpu: float | None,
    comparison: ir.Comparison,
) -> T.CostResult:
    """$/M tokens and tokens/$ at the read throughput, for the cost scenario and every price."""
    out: T.CostResult = {
        "usd_per_gpu_hour": hourly["usd_per_gpu_hour"] if hourly else None,
        "price": hourly,
        "utilization": cost.utilization,
        "token_basis": cost.per_million,
        "usd_per_million_tokens": None,
        "tokens_per_usd": None,
        "scenarios": [],
    }
    if hourly is None:
        return out
    basis_per_gpu = _cost_basis_throughput(per_gpu, comparison)
    if basis_per_gpu:
        usd = hourly["usd_per_gpu_hour"]
        out["usd_per_million_tokens"] = cost_per_million_tokens(
            usd, basis_per_gpu, cost.utilization
        )
        out["tokens_per_usd"] = tokens_per_usd(basis_per_gpu, usd, cost.utilization)
    for price in system.prices:
        entry: T.PriceScenario = {
            "scenario": price.scenario,
            "usd_per_gpu_hour": price.usd_per_gpu_hour,
            "basis": price.basis,
            "source": price.source,
            "as_of": price.as_of,
            "usd_per_million_tokens": None,
        }
        if basis_per_gpu:
            entry["usd_per_million_tokens"] = cost_per_million_tokens(
                price.usd_per_gpu_hour, basis_per_gpu, cost.utilization
            )
        out["scenarios"].append(entry)
    return out


def _cost_basis_throughput(per_gpu: float | None, comparison: ir.Comparison) -> float | None:
    """Per-GPU tokens/s on the cost's token basis; a read knows only the counted basis."""
    return per_gpu if per_gpu is not None and _cost_basis_matches(comparison) else None


def _energy(system: ir.System, per_gpu: float | None) -> T.Energy | None:
    if system.power is None:
        return None
    watts = system.power.watts_per_gpu
    normalized = (
        per_power(per_gpu, PowerDraw(watts / 1000, PowerBasis(system.power.basis)))
        if per_gpu
        else None
    )
    return {
        "watts_per_gpu": watts,
        "basis": system.power.basis,
        "joules_per_token": normalized.joules_per_token if normalized else None,
        "tok_s_per_mw": normalized.tokens_per_s_per_mw if normalized else None,
    }


def _ratios(ctx: _Ctx, s: T.SystemResult, base: T.SystemResult, system: ir.System) -> T.Ratios:
    """Throughput ratio (per unit and per GPU) and the cost ratio it implies at the prices."""
    comparison = ctx.comparison
    per_gpu_ratio = None
    rel = s["at_target"]["relative"]
    a, b = s["at_target"]["throughput_per_gpu"], base["at_target"]["throughput_per_gpu"]
    if a is not None and b:
        per_gpu_ratio = a / b
    elif rel is not None and rel["to"] == base["name"]:
        per_gpu_ratio = rel["ratio"]
    elif rel is not None and rel["to"] == s["name"]:
        per_gpu_ratio = 1.0
    base_rel = base["at_target"]["relative"]
    if per_gpu_ratio is not None and base_rel and base_rel["to"] not in (base["name"], None):
        per_gpu_ratio = None  # the baseline is itself relative to a third system
    price_s = s["cost"]["usd_per_gpu_hour"]
    price_b = base["cost"]["usd_per_gpu_hour"]
    price_ratio = price_s / price_b if price_s and price_b else None
    cost_ratio = None
    cost_unavailable = None
    if per_gpu_ratio and price_s and price_b:  # both prices: the price ratio is known
        if _cost_basis_matches(comparison):
            cost_ratio = compare(per_gpu_ratio, 1.0, price_s, price_b).cost_ratio
        else:
            cost_unavailable = "the cost's token basis differs from the counted tokens"
    elif price_ratio is None:
        cost_unavailable = "a price is missing"
    scale_s = _scale(
        system, comparison.normalize.per, s["cost"]["price"], comparison.cost.utilization
    )
    base_system = comparison.system(base["name"])
    scale_b = _scale(
        base_system, comparison.normalize.per, base["cost"]["price"], comparison.cost.utilization
    )
    ratio = per_gpu_ratio * scale_s / scale_b if per_gpu_ratio and scale_s and scale_b else None
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
        "winner": (s["name"] if ratio > 1 else base["name"] if ratio < 1 else None)
        if ratio
        else None,
        "cost_winner": (s["name"] if cost_ratio < 1 else base["name"] if cost_ratio > 1 else None)
        if cost_ratio
        else None,
        "cost_unavailable": cost_unavailable,
        "goodput_ratio": _goodput_ratio(s, base),
    }


def _goodput_ratio(s: T.SystemResult, base: T.SystemResult) -> float | None:
    a, b = s["goodput"], base["goodput"]
    if not a or not b or not a["best"] or not b["best"]:
        return None
    high, low = a["best"]["goodput_req_s_per_gpu"], b["best"]["goodput_req_s_per_gpu"]
    # `best` is the best of the runs whose goodput is known
    assert high is not None and low is not None
    return high / low if low else None


def _cost_basis_matches(comparison: ir.Comparison) -> bool:
    """True when `cost { per_million ... }` counts the same tokens as `tokens { count ... }`."""
    bases = {"total": {"input", "output"}, "output": {"output"}, "input": {"input"}}
    return bases.get(comparison.cost.per_million) == set(comparison.tokens.count)


def _hit_rate_gap(ctx: _Ctx, systems: dict[str, T.SystemResult], baseline: str) -> None:
    """W410 for each system whose cache hit rate strays from the baseline's by the margin."""
    tokens = ctx.comparison.tokens
    if not _accounting(tokens).reused_input:
        return
    base = systems[baseline]

    def rates(s: T.SystemResult) -> TokenRates | None:
        if s["hit_rate"] is None:
            return None
        source = CacheSource(s["hit_rate_basis"])
        return TokenRates(1.0, 0.0, s["hit_rate"], source)

    base_rates = rates(base)
    for name, s in systems.items():
        own = rates(s)
        if name == base["name"] or own is None or base_rates is None:
            continue
        gap = hit_rate_gap(name, own, base["name"], base_rates, tokens.hit_rate_margin)
        if gap is not None and not ctx.quiet:
            found = gap.diagnostic()
            ctx.diagnostics.append(dataclasses.replace(found, file=ctx.comparison.file))


# ---------------------------------------------------------------------------------------------
# Conditions, sensitivity, claims, capacity, disclosure


def _conditions(c: ir.Comparison) -> T.Conditions:
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
            "percentile_method": lat.percentile_method,
            "slo": lat.slo,
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


def _sensitivity(c: ir.Comparison, data: Mapping[str, SystemData], core: _Core) -> T.Sensitivity:
    declared = bool(c.sensitivity)
    if not c.systems:
        return {"declared": declared, "rows": []}
    axes = c.sensitivity or _default_axes(c)
    head = core.headline
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
                sub = _core(_Ctx(variant, data, [], quiet=True)).headline
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


def _claim(claim: ir.Claim, c: ir.Comparison) -> T.ClaimResult:
    derived: list[T.Derived] = []
    cannot: list[T.CannotDerive] = []
    notes: list[str] = []
    if claim.dimension == "token_rate":
        derived.append(
            {
                "quantity": f"tokens per second per {claim.scope}",
                "value": claim.canonical_value,
                "unit": "tok/s",
            }
        )
        if claim.scope != "gpu":
            per_gpu = rate_at_scope(
                Claim(claim.canonical_value, ClaimKind.TOKENS, Scope(claim.scope)),
                Scope.GPU,
                ScopeFacts(**{f"gpus_per_{claim.scope}": claim.gpus}),
            )
            if per_gpu.value is not None:
                derived.append(
                    {
                        "quantity": "tokens per second per GPU",
                        "value": per_gpu.value,
                        "unit": "tok/s/gpu",
                    }
                )
            else:
                cannot.append(
                    {
                        "quantity": "tokens per second per GPU",
                        "missing": f"the {claim.scope}'s GPU count (`gpus`)",
                    }
                )
        cannot.append(
            {
                "quantity": "cost per token",
                "missing": "a price or TCO for the hardware that served it",
            }
        )
    if claim.kind == "revenue":
        notes.append(
            "revenue: what tokens sold for (token price × throughput), not what the "
            "GPU-hour cost; it is never used as a cost"
        )
        cannot.append(
            {"quantity": "cost per token or margin", "missing": "the hardware's cost per GPU-hour"}
        )
    if claim.period:
        notes.append(f"period: {claim.period}")
    if claim.status != "verified":
        notes.append(f"{claim.status}: as published, not checked by cmpc")
    src = c.source(claim.source) if claim.source else None
    return {
        "name": claim.name,
        "value": claim.value,
        "unit": claim.unit,
        "kind": claim.kind,
        "scope": claim.scope,
        "period": claim.period,
        "status": claim.status,
        "about": claim.about,
        "source": claim.source,
        "source_title": src.title if src else None,
        "derived": derived,
        "cannot_derive": cannot,
        "notes": notes,
    }


def _claim_combinations(claims: Iterable[ir.Claim]) -> list[T.ClaimCombination]:
    """What two claims would imply together, and the fact that is missing for it."""
    out: list[T.ClaimCombination] = []
    volumes = [c for c in claims if c.dimension == "token_rate" and c.scope != "gpu"]
    revenues = [c for c in claims if c.kind == "revenue" and c.dimension == "gpu_hour_price"]
    for v in volumes:
        for r in revenues:
            gpus = v.gpus
            implied = r.canonical_value * gpus / (v.canonical_value * 3600) * 1e6 if gpus else None
            out.append(
                {
                    "claims": [v.name, r.name],
                    "quantity": "implied token price (USD per million tokens)",
                    "formula": "revenue per GPU-hour x GPUs / (tokens per second x 3600) x 1e6",
                    "value": implied,
                    "missing": None if gpus else f"the {v.scope}'s GPU count (`gpus`)",
                    "note": "only if every GPU earned the stated rate during the tokens' hours; "
                    "periods must match (an off-peak rate does not cover a whole day)",
                }
            )
    return out


def _capacity(c: ir.Comparison) -> T.CapacityResult | None:
    cap = c.capacity
    if cap is None:
        return None
    weights = cap.weight_bytes
    if weights is None and cap.params is not None and cap.weight_dtype:
        weights = weight_bytes(cap.params, cap.weight_dtype)
    kv: LatentKv | AttentionKv
    # the checker refuses a capacity without `layers`, and without `latent_dim` or both
    # `kv_heads` and `head_dim` (E106)
    assert cap.layers is not None
    if cap.latent_dim is not None:
        kv = LatentKv(cap.layers, cap.latent_dim, cap.rope_dim or 0, cap.kv_dtype)
    else:
        assert cap.kv_heads is not None and cap.head_dim is not None
        kv = AttentionKv(cap.layers, cap.kv_heads, cap.head_dim, cap.kv_dtype)
    need = memory_needed(
        weights or 0.0, kv.bytes_per_token, cap.context_tokens or 0, cap.concurrency
    )
    per_system: list[T.CapacitySystem] = []
    for s in c.systems:
        usable = s.usable_memory_bytes or s.memory_bytes
        cards = fewest_cards(need.total, usable, cap.reserve).cards if usable else None
        per_system.append(
            {
                "system": s.name,
                "usable_bytes_per_card": usable,
                "usable_is_nominal": s.usable_memory_bytes is None,
                "cards_needed": cards,
                "cards_declared": _gpus(s),
            }
        )
    return {
        "weight_bytes": weights,
        "kv_bytes_per_token": kv.bytes_per_token,
        "kv_bytes": need.kv_cache,
        "bytes_needed": need.total,
        "context_tokens": cap.context_tokens,
        "concurrency": cap.concurrency,
        "reserve": cap.reserve,
        "systems": per_system,
    }


def _disclosure(c: ir.Comparison, core: _Core) -> T.Disclosure:
    answers = dict(c.disclosure)
    systems = c.systems

    def every(pred: Callable[[ir.System], bool]) -> bool:
        # a claims audit declares no systems: nothing about systems is disclosed by it
        return bool(systems) and all(pred(s) for s in systems)

    hit_known = every(lambda s: core.systems[s.name]["hit_rate"] is not None)
    from_spec = {
        "latency_metric": c.latency.target is not None,
        "token_accounting": bool(systems) and (hit_known or "input" not in c.tokens.count),
        "normalization": every(lambda s: bool(s.prices) or s.tco is not None),
        "measured_by": bool(c.sources) and all(bool(s.role) for s in c.sources),
        "measured_at": any(s.snapshot or s.run_date for s in c.sources),
        "source": any(s.url for s in c.sources),
        "accelerator_model": every(lambda s: s.accelerator is not None),
        "accelerator_count": every(lambda s: _gpus(s) is not None),
        "memory": every(lambda s: s.memory_bytes is not None),
        "interconnect": every(lambda s: s.interconnect is not None),
        "engine_version": every(lambda s: s.engine_version is not None or s.image is not None),
        "precision": every(lambda s: bool(s.precision)),
        "parallelism": every(lambda s: s.parallel.declared),
        "speculative_decoding": every(lambda s: bool(s.speculative)),
        "scheduler": every(lambda s: bool(s.scheduler)),
        "prefix_cache": hit_known,
        "tpot_definition": bool(systems),
        "utilization": every(lambda s: bool(s.prices) or s.tco is not None),
        "cost_token_basis": every(lambda s: bool(s.prices) or s.tco is not None),
        "revenue_vs_cost": True,
        "power_basis": every(lambda s: s.power is not None),
        "verification": any(s.status == "verified" for s in c.sources),
    }
    items: list[T.DisclosureItem] = []
    for key, question in V.CHECKLIST.items():
        answered = key in answers or from_spec.get(key, False)
        items.append(
            {
                "key": key,
                "question": question,
                "answer": answers.get(key),
                "answered": bool(answered),
                "from": "answer" if key in answers else "spec" if answered else None,
                "five_questions": key in V.FIVE_QUESTIONS,
            }
        )
    score = sum(i["answered"] for i in items)
    total = len(items)
    five = [i for i in items if i["five_questions"]]
    return {
        "items": items,
        "score": score,
        "total": total,
        "five_answered": sum(i["answered"] for i in five),
        "five_total": len(five),
        "verdict": "comparable" if score * 2 >= total else "directional signal only",
    }
