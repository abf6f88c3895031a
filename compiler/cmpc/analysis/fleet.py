"""Fleet-planner reads (`fleet { ... }`): the highest interactivity (for a latency metric, the
lowest latency) within a cost cap, and the concurrent users a megawatt serves at the target,
each with intervals from the replicates (one-sided for a read that is a bound)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.economics import facility_pue, hourly_cost
from cmpc.analysis.hardware import gpu_count, used_share
from cmpc.analysis.reads import by_latency, measured_runs, point_json
from cmpc.analysis.tokens import cost_basis_matches
from cmpc.analysis.uncertainty import (
    SystemReplicates,
    as_list,
    ci,
    read_rows,
    replicates_of,
    speed_of,
)
from cmpc.compute.cost import cost_per_million_tokens
from cmpc.compute.fleet import (
    AT_LEAST,
    MET,
    STATUSES,
    interactivity_within,
    required_throughput,
    users_per_megawatt,
)
from cmpc.compute.frontier import Point, pareto_frontier, read_latency, read_target
from cmpc.compute.frontier_batch import mirrored_latency_ms
from cmpc.compute.percentile import one_sided_bound
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V

if TYPE_CHECKING:
    from cmpc.ingest import resample
else:  # only read when the runs were resampled: not on a rebuild from the stage
    resample = lazy.module("cmpc.ingest.resample")

METHOD = (
    "cost per million tokens = price per GPU-hour / (tokens per used GPU-hour x utilization x "
    "used share of billed GPUs); along each frontier (read with the spec's read method along "
    "interactivity, or along latency for a metric that is no per-token rate) throughput falls "
    "as interactivity rises (latency falls), so the cap is met up to where the "
    "read throughput falls to price x 1e6 / (cap x 3600 x utilization x share): solved exactly "
    "on a linear segment, by bisection on the Steffen cubic, at the fastest knot within the cap "
    "for the nearest read; never beyond the measured range"
)


def _replicate_rows(
    comparison: ir.Comparison, reps: SystemReplicates, rows: np.ndarray
) -> np.ndarray:
    """(replicates, runs) of a per-run row, repetitions drawn as the headline's read draws them
    (`uncertainty.read_replicates`)."""
    size = reps.resamples
    drawn = reps.drawn(comparison.uncertainty.seed)
    out: np.ndarray = rows[:, :size].T[np.arange(size)[:, None], drawn]
    return out


def _speed(reps: SystemReplicates) -> np.ndarray:
    return speed_of(np.stack([r.latency_s for r in reps.runs]))


def _frontier(result: T.SystemResult) -> tuple[Point, ...]:
    return pareto_frontier(
        Point(
            p["interactivity_tok_s_user"],
            p["throughput_per_gpu"],
            p["concurrency"],
            p["label"],
            p["request_rate"],
            p["load"] or "",
        )
        for p in result["frontier"]
    )


def _scenarios(system: ir.System) -> list[str]:
    names = [p.scenario for p in system.prices]
    return names + (["tco"] if system.tco is not None and "tco" not in names else [])


def _cost_cap(
    comparison: ir.Comparison,
    system: ir.System,
    result: T.SystemResult,
    cap: float,
    rows: tuple[np.ndarray, np.ndarray] | None,
) -> tuple[list[T.CostCapRead], dict[str, np.ndarray]]:
    """Each price scenario's read, and the replicates of its interactivity (NaN: cap not met)."""
    frontier = _frontier(result)
    method = comparison.latency.read
    share = used_share(system)
    utilization = comparison.cost.utilization
    reads: list[T.CostCapRead] = []
    replicates: dict[str, np.ndarray] = {}
    along = cap_axis(comparison)
    x = _axis(np.array([[p.interactivity for p in frontier]], dtype=float), along)
    y = np.array([[p.throughput for p in frontier]], dtype=float)
    for scenario in _scenarios(system):
        hourly = hourly_cost(system, scenario)
        if hourly is None:
            continue
        usd = hourly["usd_per_gpu_hour"]
        need = required_throughput(usd, cap, utilization, share)
        found, status = interactivity_within(x, y, need, method)
        word = STATUSES[int(status[0])]
        at = float(found[0]) if math.isfinite(found[0]) else None
        speed = at if along == "interactivity" else None
        latency = -at if at is not None and along == "latency" else None
        knots: list[T.PointResult] = []
        throughput: float | None = None
        if int(status[0]) == MET and at is not None:
            k = max(i for i, p in enumerate(frontier) if p.throughput >= need)
            knots = [point_json(frontier[k]), point_json(frontier[k + 1])]
            throughput = need
        elif int(status[0]) == AT_LEAST:
            knots = [point_json(frontier[-1])]
            throughput = frontier[-1].throughput
        elif frontier:
            knots = [point_json(frontier[0])]  # the cheapest point per token, still above the cap
            throughput = frontier[0].throughput
        entry: T.CostCapRead = {
            "scenario": scenario,
            "usd_per_gpu_hour": usd,
            "basis": hourly["basis"],
            "source": hourly["source"],
            "status": word,
            "required_throughput_per_gpu": need,
            "interactivity_tok_s_user": speed,
            "interactivity_ci": None,
            "interactivity_one_sided_ci": None,
            "axis": along,
            "latency_ms": 1000.0 / speed if speed else latency,
            "latency_ms_ci": None,
            "latency_ms_one_sided_ci": None,
            "throughput_per_gpu": throughput,
            "usd_per_million_tokens": cost_per_million_tokens(usd, throughput * share, utilization)
            if throughput
            else None,
            "knots": knots,
            "replicates_met": None,
        }
        if rows is not None and at is not None:
            got, rep_status = interactivity_within(_axis(rows[0], along), rows[1], need, method)
            bound = int(status[0]) == AT_LEAST  # a bound has a one-sided interval, not two ends
            if along == "latency":  # x is -latency: its lower bound is the latency's upper one
                upper = one_sided(comparison, got) if bound else None
                entry["latency_ms_one_sided_ci"] = None if upper is None else -upper
                found_ci = None if bound else ci(comparison, -got, latency)
                entry["latency_ms_ci"] = as_list(found_ci)
                got = -got
            elif bound:
                entry["interactivity_one_sided_ci"] = one_sided(comparison, got)
            else:
                entry["interactivity_ci"] = as_list(ci(comparison, got, speed))
            entry["replicates_met"] = float(np.mean(rep_status == MET))
            replicates[scenario] = got
        reads.append(entry)
    return reads, replicates


def cap_axis(comparison: ir.Comparison) -> T.CapAxis:
    """Interactivity for a per-token metric (InferenceX's planner); else the spec's latency,
    read as the lowest latency within the cap (1/TTFT is no rate a user receives)."""
    return "interactivity" if _not_per_token(comparison) is None else "latency"


def _axis(speed: np.ndarray, along: T.CapAxis) -> np.ndarray:
    """The cap read's x: interactivity, or -latency in ms (higher is better on both)."""
    return speed if along == "interactivity" else mirrored_latency_ms(speed)


def _output_frontier(system: ir.System, runs: Sequence[RunPoint]) -> tuple[Point, ...]:
    """(interactivity, output tokens/s per GPU) of each run: the tokens users receive."""
    gpus = gpu_count(system)
    points = []
    for rp in runs:
        denominator = gpus or rp.gpus
        if rp.latency_s is None or not rp.latency_s > 0 or rp.output_tok_s is None:
            continue
        if not denominator:
            continue
        points.append(Point(1.0 / rp.latency_s, rp.output_tok_s / denominator, rp.concurrency))
    return pareto_frontier(points)


def _output_rows(system: ir.System, reps: SystemReplicates) -> np.ndarray:
    """(runs, replicates) of each run's output tokens/s per GPU."""
    gpus = gpu_count(system)
    rows = []
    for r in reps.runs:
        denominator = gpus or r.point.gpus or math.nan
        packed = resample.unpack(r.point.resampled or "", reps.resamples)
        rows.append(
            packed[2] / denominator if packed.shape[0] > 2 else np.full(r.latency_s.shape, np.nan)
        )
    return np.stack(rows)


def _users(
    comparison: ir.Comparison,
    system: ir.System,
    runs: Sequence[RunPoint] | None,
    reps: SystemReplicates | None,
) -> tuple[T.UsersPerMw | None, str | None, np.ndarray | None]:
    """Users per MW at the target, why it is absent, and its replicates."""
    found = facility_pue(comparison, system)
    pue = found[0] if found else None
    latency = comparison.latency
    target = latency.target
    if system.power is None:
        return None, "no power is declared for the system", None
    if (why := _not_per_token(comparison)) is not None:
        return None, why, None  # first: a target would not help a ttft or e2el comparison
    if target is None:
        return None, "the comparison declares no target interactivity", None
    if runs is None:
        return None, "reported figures state no output-token throughput at the target", None
    frontier = _output_frontier(system, runs)
    at = (
        read_latency(frontier, target.latency_ms, latency.read)
        if by_latency(latency)
        else read_target(frontier, target.interactivity_tok_s_user, latency.read)
    )
    if at.value is None:
        return None, "the target is beyond the measured frontier (never extrapolated)", None
    speed = target.interactivity_tok_s_user
    watts = system.power.watts_per_gpu
    value = users_per_megawatt(at.value, speed, watts, pue or 1.0)
    out: T.UsersPerMw = {
        "users_per_mw": value,
        "users_per_mw_ci": None,
        "users_per_mw_one_sided_ci": None,
        "bound": at.bound,
        "interactivity_tok_s_user": speed,
        "output_throughput_per_gpu": at.value,
        "streams_per_gpu": at.value / speed,
        "watts_per_gpu": watts,
        "pue": pue,
        "pue_from": found[1] if found else None,
        "gpus_per_mw": 1e6 / (watts * (pue or 1.0)),
        "basis": system.power.basis,
        "source": system.power.source,
    }
    if reps is None:
        return out, None, None
    speeds = _replicate_rows(comparison, reps, _speed(reps))
    output = _replicate_rows(comparison, reps, _output_rows(system, reps))
    reads = read_rows(comparison, speeds, output)
    users = reads / speed * 1e6 / (watts * (pue or 1.0))
    if at.bound:
        out["users_per_mw_one_sided_ci"] = one_sided(comparison, users)
    else:
        out["users_per_mw_ci"] = as_list(ci(comparison, users, value))
    return out, None, users


def _ratio(
    quantity: str,
    system: str,
    baseline: str,
    scenario: str | None,
    values: tuple[float | None, float | None],
    exact: tuple[bool, bool],
    replicates: tuple[np.ndarray | None, np.ndarray | None],
    comparison: ir.Comparison,
) -> T.FleetRatio:
    a, b = values
    out: T.FleetRatio = {
        "system": system,
        "baseline": baseline,
        "quantity": quantity,  # type: ignore[typeddict-item]
        "scenario": scenario,
        "ratio": None,
        "ratio_ci": None,
        "note": None,
    }
    if a is None or b is None or not b:
        out["note"] = "a side has no read"
        return out
    if not all(exact):
        out["note"] = "a side's read is a bound, not a value: no ratio"
        return out
    out["ratio"] = a / b
    ra, rb = replicates
    if ra is not None and rb is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            out["ratio_ci"] = as_list(ci(comparison, ra / rb, a / b))
    return out


def fleet(
    comparison: ir.Comparison,
    data: Mapping[str, SystemData],
    systems: Mapping[str, T.SystemResult],
) -> tuple[T.Fleet | None, list[Diagnostic]]:
    """The fleet block's reads per system and their ratios to the baseline (None: no block)."""
    spec = comparison.fleet
    if spec is None:
        return None, []
    cap = spec.cost_cap_usd_per_million_tokens
    found: list[Diagnostic] = []
    per: dict[str, T.FleetSystem] = {}
    cap_reps: dict[str, dict[str, np.ndarray]] = {}
    user_reps: dict[str, np.ndarray | None] = {}
    for index, system in enumerate(comparison.systems):
        result = systems[system.name]
        runs = measured_runs(comparison, data, system)
        reps = replicates_of(comparison, system, runs)
        rows = None
        if reps is not None:
            counted = np.stack([r.per_gpu for r in reps.runs])
            rows = (
                _replicate_rows(comparison, reps, _speed(reps)),
                _replicate_rows(comparison, reps, counted),
            )
        entry: T.FleetSystem = {
            "cost_cap": [],
            "cost_cap_note": None,
            "users_per_mw": None,
            "users_per_mw_note": None,
        }
        if cap is None:
            entry["cost_cap_note"] = "no cost cap is declared"
        elif not cost_basis_matches(comparison):
            entry["cost_cap_note"] = (
                "the cost's token basis differs from the counted tokens: no cost per token"
            )
        elif not result["frontier"]:
            entry["cost_cap_note"] = "no frontier (reported figures without sweep points)"
        else:
            entry["cost_cap"], cap_reps[system.name] = _cost_cap(
                comparison, system, result, cap, rows
            )
            if not entry["cost_cap"]:
                entry["cost_cap_note"] = "no price is declared for the system"
                found.append(_no_price(comparison, system, index))
        users, why, replicates = _users(comparison, system, runs, reps)
        entry["users_per_mw"], entry["users_per_mw_note"] = users, why
        user_reps[system.name] = replicates
        if system.power is None:
            found.append(_no_power(comparison, system, index))
        per[system.name] = entry
    ratios: list[T.FleetRatio] = []
    base = comparison.baseline
    if base is not None:
        for system in comparison.systems:
            if system.name == base:
                continue
            a, b = per[system.name], per[base]
            for read in a["cost_cap"]:
                other = next((r for r in b["cost_cap"] if r["scenario"] == read["scenario"]), None)
                if other is None:
                    continue
                ratios.append(
                    _ratio(
                        f"{read['axis']}_at_cost_cap",
                        system.name,
                        base,
                        read["scenario"],
                        (_cap_value(read), _cap_value(other)),
                        (read["status"] == "met", other["status"] == "met"),
                        (
                            cap_reps.get(system.name, {}).get(read["scenario"]),
                            cap_reps.get(base, {}).get(read["scenario"]),
                        ),
                        comparison,
                    )
                )
            ua, ub = a["users_per_mw"], b["users_per_mw"]
            if ua is not None or ub is not None:
                ratios.append(
                    _ratio(
                        "users_per_mw",
                        system.name,
                        base,
                        None,
                        (ua and ua["users_per_mw"], ub and ub["users_per_mw"]),
                        (bool(ua) and ua["bound"] is None, bool(ub) and ub["bound"] is None),  # type: ignore[index]
                        (user_reps.get(system.name), user_reps.get(base)),
                        comparison,
                    )
                )
    out: T.Fleet = {
        "cost_cap_usd_per_million_tokens": cap,
        "token_basis": comparison.cost.per_million,
        "utilization": comparison.cost.utilization,
        "pue": spec.pue,
        "method": METHOD,
        "systems": per,
        "ratios": ratios,
    }
    return out, found


def _cap_value(read: T.CostCapRead) -> float | None:
    """The read on its axis: tok/s/user, or ms."""
    return (
        read["interactivity_tok_s_user"] if read["axis"] == "interactivity" else read["latency_ms"]
    )


def one_sided(comparison: ir.Comparison, replicates: np.ndarray) -> float | None:
    """The one-sided lower bound at the spec's confidence of a read that is a lower bound."""
    return one_sided_bound(replicates.tolist(), comparison.uncertainty.confidence)


def _not_per_token(comparison: ir.Comparison) -> str | None:
    """Why the frontier's x axis is no interactivity in tok/s/user (1/TTFT is not), else None."""
    metric = comparison.latency.metric
    if metric in V.PER_TOKEN_METRICS:
        return None
    return f"the latency metric `{metric}` is not a per-token rate"


def _no_power(comparison: ir.Comparison, system: ir.System, index: int) -> Diagnostic:
    return warning(
        "W450",
        f"`{system.name}` declares no power: the report has no users per megawatt for it",
        file=comparison.file,
        origin=f"/systems/{index}",
        help="add the power per GPU with its basis and source, e.g. "
        "`power 1.90 kW basis provisioned source NAME`",
    )


def _no_price(comparison: ir.Comparison, system: ir.System, index: int) -> Diagnostic:
    return warning(
        "W451",
        f"`{system.name}` declares no price: no highest interactivity within the cost cap",
        file=comparison.file,
        origin=f"/systems/{index}",
        help="add a price per GPU-hour with its basis and source, e.g. "
        "`price 2.26 USD/gpu/h basis owning source NAME`",
    )
