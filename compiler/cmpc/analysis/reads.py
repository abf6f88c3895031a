"""Each system read at the target: its points, their frontier, its per-GPU value, its goodput."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cmpc.analysis import types as T
from cmpc.analysis.hardware import gpu_count, gpus_per_node
from cmpc.analysis.load_labels import load_label
from cmpc.analysis.tokens import accounting
from cmpc.compute.accounting import TokenAccounting, TokenRates, counted_tokens, split_input
from cmpc.compute.frontier import Point, Read, pareto_frontier, read_latency, read_target
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.language.units import shown_in_seconds


@dataclass(frozen=True)
class SystemRead:
    """A system's points and frontier, and its per-GPU throughput at the target if known."""

    points: tuple[Point, ...] = ()
    frontier: tuple[Point, ...] = ()
    hit_rate: float | None = None
    hit_rate_basis: T.HitRateBasis = "unknown"
    notes: tuple[str, ...] = ()
    per_gpu: float | None = None
    reachable: bool | None = None
    knots: tuple[Point, ...] = ()
    relative: T.Relative | None = None
    bound: T.Bound | None = None


def measured_runs(
    comparison: ir.Comparison, data: Mapping[str, SystemData], system: ir.System
) -> tuple[RunPoint, ...] | None:
    """A measured system's reduced runs at the comparison's statistic (None: reported data)."""
    if system.runs is None:
        return None
    return data[system.name].runs.get(comparison.latency.statistic, ())


def read_system(
    comparison: ir.Comparison, system: ir.System, runs: tuple[RunPoint, ...] | None
) -> tuple[SystemRead, list[Diagnostic]]:
    """The system's read at the target (at its peak when there is none) and the warnings met."""
    if runs is not None:
        read, found = _read_runs(comparison, system, runs)
    elif system.reported is not None:
        read, found = _read_reported(comparison, system, system.reported)
    else:
        read, found = SystemRead(), []
    target = comparison.latency.target
    if target is not None and read.reachable is False:
        found.append(
            warning(
                "W411",
                f"`{system.name}` cannot reach {target_text(comparison.latency)}: "
                f"{_best_measured(comparison.latency, read.frontier)} (never extrapolated)",
                file=comparison.file,
                origin="/latency/target",
            )
        )
    return read, found


def by_latency(latency: ir.Latency) -> bool:
    """True when the target is a duration: read along latency, lower is better."""
    return latency.target is not None and latency.target.given_as == "latency"


def target_text(latency: ir.Latency) -> str:
    """The target as the spec gives it: `20 tok/s/user` or `a P90 TTFT of 1000 ms or less`."""
    target = latency.target
    assert target is not None
    if by_latency(latency):
        return f"a {latency.statistic} {latency.metric} of {target.value:g} {target.unit} or less"
    return f"{target.interactivity_tok_s_user:g} tok/s/user"


def _best_measured(latency: ir.Latency, frontier: Sequence[Point]) -> str:
    if not frontier:
        return "no run has a finite latency"
    if by_latency(latency):
        fastest = 1000.0 / frontier[-1].interactivity
        if latency.target is not None and shown_in_seconds(latency.target.unit):
            return f"its lowest measured {latency.metric} is {fastest / 1000:.4g} s"
        return f"its lowest measured {latency.metric} is {fastest:.4g} ms"
    return f"its fastest run reaches {frontier[-1].interactivity:.4g} tok/s/user"


def _read(latency: ir.Latency, frontier: Sequence[Point]) -> Read:
    """The frontier read at the target: along latency for a duration, else interactivity."""
    target = latency.target
    assert target is not None
    if by_latency(latency):
        return read_latency(frontier, target.latency_ms, latency.read)
    return read_target(frontier, target.interactivity_tok_s_user, latency.read)


def _at(read: SystemRead, at: Read) -> SystemRead:
    return dataclasses.replace(
        read, per_gpu=at.value, reachable=at.reachable, knots=at.knots, bound=at.bound
    )


def _read_runs(
    comparison: ir.Comparison, system: ir.System, runs: Sequence[RunPoint]
) -> tuple[SystemRead, list[Diagnostic]]:
    gpus = gpu_count(system)
    found = _gpu_count_mismatches(comparison, system, runs, gpus)
    points, hit_rate, hit_rate_basis = _run_points(comparison, system, runs, gpus)
    frontier = pareto_frontier(points)
    read = SystemRead(tuple(points), frontier, hit_rate, hit_rate_basis)
    latency = comparison.latency
    target = latency.target
    if target is not None:
        read = _at(read, _read(latency, frontier))
    elif frontier:  # no target: each system at its own peak (one run: as measured)
        peak = max(frontier, key=lambda p: p.throughput)
        read = dataclasses.replace(read, per_gpu=peak.throughput, reachable=True, knots=(peak,))
    return read, found


def _read_reported(
    comparison: ir.Comparison, system: ir.System, rep: ir.Reported
) -> tuple[SystemRead, list[Diagnostic]]:
    target = comparison.latency.target
    hit_rate = rep.cache_hit_rate if rep.cache_hit_rate is not None else system.cache_hit_rate
    basis: T.HitRateBasis = "declared" if hit_rate is not None else "unknown"
    read = SystemRead(hit_rate=hit_rate, hit_rate_basis=basis)
    if rep.points:
        points = [
            Point(p.interactivity_tok_s_user, per_gpu, p.concurrency, "reported")
            for p in rep.points
            if (per_gpu := _per_gpu(p.throughput, p.throughput_unit, system)) is not None
        ]
        notes: tuple[str, ...] = ()
        if len(points) < len(rep.points):
            notes = ("reported points per node or per system need the GPU count to be per GPU",)
        frontier = pareto_frontier(points)
        read = dataclasses.replace(read, points=tuple(points), frontier=frontier, notes=notes)
        if target is not None and frontier:  # none per GPU: unknown, not unreachable
            read = _at(read, _read(comparison.latency, frontier))
        return read, []
    if rep.throughput is not None:
        per_gpu = _per_gpu(rep.throughput, rep.throughput_unit, system)
        read = dataclasses.replace(read, per_gpu=per_gpu, reachable=True)
        stated = rep.at_interactivity_tok_s_user
        if (
            target is None
            or stated is None
            or math.isclose(stated, target.interactivity_tok_s_user)
        ):
            return read, []
        mismatch = warning(
            "W514",
            f"`{system.name}`'s reported throughput is at {stated:g} tok/s/user, not at the target "
            f"{target.interactivity_tok_s_user:g}",
            file=comparison.file,
        )
        elsewhere = ("reported at a different interactivity than the target",)
        return dataclasses.replace(read, notes=elsewhere), [mismatch]
    if rep.ratio is not None:
        relative: T.Relative = {"ratio": rep.ratio, "to": rep.ratio_to}
        return dataclasses.replace(read, relative=relative, reachable=True), []
    return read, []


def method(latency: ir.Latency, system: ir.System) -> T.ReadKind:
    """How the at-target value was obtained."""
    if system.runs is None and not (system.reported and system.reported.points):
        return "reported"
    return latency.read if latency.target is not None else "peak"


def _per_gpu(value: float, unit: V.ReportedUnit | None, system: ir.System) -> float | None:
    """A reported rate per GPU, from per-GPU, per-node or whole-system figures."""
    gpus = gpu_count(system)
    if unit == "tok/s/gpu":
        return value
    if unit == "tok/s/node":
        per_node = gpus_per_node(system)
        return value / per_node if per_node else None
    return value / gpus if gpus else None


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


def _output_only(point: RunPoint, counts: TokenAccounting) -> float | None:
    """Output tokens/s of a run that states no input rate (MLPerf LoadGen counts only the
    tokens the SUT returns), when the accounting counts no input anyway."""
    if counts.uncached_input or counts.reused_input:
        return None
    return point.output_tok_s


def _gpu_count_mismatches(
    comparison: ir.Comparison, system: ir.System, runs: Sequence[RunPoint], gpus: int | None
) -> list[Diagnostic]:
    """W512 once for each GPU count the files state that differs from the system's."""
    if not gpus:
        return []
    by_count: dict[float, list[RunPoint]] = {}
    for rp in runs:
        if rp.gpus and not math.isclose(rp.gpus, gpus):
            by_count.setdefault(rp.gpus, []).append(rp)
    found = []
    for count, differing in sorted(by_count.items()):
        files = sorted({rp.path for rp in differing})
        shown = ", ".join(f"`{f}`" for f in files[:3]) + (
            f" and {len(files) - 3} more" if len(files) > 3 else ""
        )
        runs_text = f"{len(differing)} run{'s' * (len(differing) != 1)}"
        found.append(
            warning(
                "W512",
                f"system `{system.name}` counts {gpus} GPUs, but {runs_text} in {shown} "
                f"count{'s' * (len(differing) == 1)} {count:g}",
                file=comparison.file,
                record=None if len(differing) > 1 else f"run {differing[0].index}",
                origin=f"/systems/{comparison.systems.index(system)}/gpus",
            )
        )
    return found


def _run_points(
    comparison: ir.Comparison, system: ir.System, runs: Sequence[RunPoint], gpus: int | None
) -> tuple[list[Point], float | None, T.HitRateBasis]:
    """Each run as a frontier point, and the runs' pooled cache hit rate with its basis."""
    points = []
    counts = accounting(comparison.tokens)
    hit_values: list[tuple[float, float]] = []
    hit_basis: T.HitRateBasis = "unknown"
    for rp in runs:
        denominator = gpus or rp.gpus
        rates = _rates(rp, system)
        counted = counted_tokens(rates, counts) if rates else _output_only(rp, counts)
        if rates is not None and rates.hit_rate is not None:
            hit_values.append((rates.input_cached, rates.input))
            hit_basis = rates.cache_source.value
        if rp.latency_s is None or not rp.latency_s > 0 or counted is None or not denominator:
            continue  # a zero latency (every token in one chunk) has no finite interactivity
        per_gpu = counted / denominator
        rate = _request_rate(rp.fields.get("request_rate"))
        load = load_label(rp.fields)
        points.append(Point(1.0 / rp.latency_s, per_gpu, rp.concurrency, rp.label, rate, load))
    hit = None
    if hit_values:
        hit = sum(c for c, _ in hit_values) / sum(i for _, i in hit_values)
    return points, hit, hit_basis


def _request_rate(value: object) -> float | str | None:
    """A run's stated request rate: a finite number of requests/s, or "inf" (all at once)."""
    if isinstance(value, str):
        if value.strip().lower() in ("inf", "infinity"):
            return "inf"
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "inf" if math.isinf(value) else float(value) if math.isfinite(value) else None
    return None


def goodput(
    comparison: ir.Comparison, runs: Sequence[RunPoint] | None, gpus: int | None
) -> T.Goodput | None:
    """Requests/s per GPU meeting every SLO, per run, and the best of the sweep (DistServe)."""
    slo = comparison.latency.slo
    if not slo or runs is None or not gpus:
        return None
    per_run: list[T.GoodputRun] = [
        {
            "concurrency": rp.concurrency,
            "label": rp.label,
            "goodput_req_s_per_gpu": rp.goodput_req_s / gpus
            if rp.goodput_req_s is not None
            else None,
            "slo_attainment": rp.slo_attainment,
        }
        for rp in runs
    ]
    per_run.sort(key=lambda r: (r["concurrency"] is None, r["concurrency"] or 0))
    measured = [(r, g) for r in per_run if (g := r["goodput_req_s_per_gpu"]) is not None]
    best = max(measured, key=lambda pair: pair[1], default=(None, 0.0))[0]
    return {"slo_ms": {k: v * 1000 for k, v in slo}, "runs": per_run, "best": best}


def point_json(p: Point) -> T.PointResult:
    """A frontier point as results.json states it."""
    return {
        "interactivity_tok_s_user": p.interactivity,
        "throughput_per_gpu": p.throughput,
        "concurrency": p.concurrency,
        "label": p.label,
        "request_rate": p.request_rate,
        "load": p.load or None,
    }
