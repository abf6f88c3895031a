"""Intervals a source published for its reported figures: carried, and propagated to the ratio.

cmpc never invents an interval for reported figures. A declared one stays on the figure it was
published for; the headline ratio gets one only when both sides' figures carry one (or one side
is the reference, exact by definition), combined under a stated assumption.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from cmpc.analysis import types as T
from cmpc.compute.intervals import Interval, normal_ppf, within_noise
from cmpc.ir import model as ir

ASSUMPTION = (
    "derived from {what} assuming independent, normally distributed errors "
    "on the log scale: each side's log half-widths over its level's normal quantile, combined "
    "in quadrature and scaled to the {level} level"
)
CARRIED = "the interval {source} published for this ratio ({date}), not computed by cmpc"

BOUND_NOTE = (
    "a side's read is a lower bound (every point of its frontier is faster than the target), "
    "so the ratio is itself a bound; cmpc derives no one-sided bound from a published "
    "interval, so it carries none"
)


@dataclass(frozen=True)
class Spread:
    """A figure's published interval as log half-widths below and above it, at `confidence`."""

    below: float
    above: float
    confidence: float
    point: float
    figure: ir.PublishedInterval | None  # None: exact, or computed by cmpc from runs
    exact: bool = False  # the reference itself: a ratio of 1 to itself


def _spread(declared: ir.PublishedInterval, point: float) -> Spread:
    below, above = math.log(point / declared.low), math.log(declared.high / point)
    return Spread(below, above, declared.confidence, point, declared)


def figure_spread(system: ir.System) -> Spread | None:
    """The spread of the figure a reported system's read comes from; None if it has none."""
    rep = system.reported
    if rep is None or rep.points:
        return None  # measured runs, or a read between published points: no published interval
    if rep.throughput is not None:
        declared = rep.interval("throughput")
        return _spread(declared, rep.throughput) if declared else None
    if rep.ratio is not None:
        if rep.ratio_to == system.name:
            return Spread(0.0, 0.0, 1.0, 1.0, None, exact=True)
        declared = rep.interval("ratio")
        return _spread(declared, rep.ratio) if declared else None
    return None


def published_entries(comparison: ir.Comparison, system: ir.System) -> list[T.PublishedInterval]:
    """Each interval the spec declares for the system's reported figures, as results.json has it."""
    rep = system.reported
    if rep is None:
        return []
    out: list[T.PublishedInterval] = []
    for i in rep.intervals:
        src = comparison.source(i.source)
        out.append(
            {
                "figure": i.figure,
                "confidence": i.confidence,
                "low": i.low,
                "high": i.high,
                "unit": (rep.throughput_unit or "tok/s/gpu") if i.figure == "throughput" else "x",
                "source": i.source,
                "source_title": src.title if src else None,
                "as_of": i.as_of,
                "basis": "declared",
            }
        )
    return out


def read_interval(system: ir.System, per_gpu: float | None) -> list[float] | None:
    """The per-GPU read's interval from a published throughput interval (same relative ends)."""
    rep = system.reported
    if rep is None or rep.points or rep.throughput is None or per_gpu is None:
        return None
    declared = rep.interval("throughput")
    if declared is None:
        return None
    scale = per_gpu / rep.throughput  # per node or per system to per GPU: a constant factor
    return [declared.low * scale, declared.high * scale]


def computed_spread(point: float | None, found: list[float] | None, level: float) -> Spread | None:
    """A measured side's read interval (cmpc's bootstrap) as log half-widths, or None."""
    if point is None or found is None or not 0 < found[0] <= point <= found[1]:
        return None
    return Spread(math.log(point / found[0]), math.log(found[1] / point), level, point, None)


def ratio_interval(
    comparison: ir.Comparison,
    head: T.Ratios,
    empty: T.HeadlineUncertainty,
    computed: Mapping[str, Spread | None] | None = None,
) -> T.HeadlineUncertainty:
    """The headline's intervals from the published ones (with a measured side's computed one, in
    `computed`), or `empty` saying why there are none."""
    sides = [comparison.system(head["system"]), comparison.system(head["baseline"])]
    if all(s.reported is None for s in sides):
        return empty
    if head["bound"] is not None:  # two interval ends around a bound would mean nothing
        return {**empty, "interval_note": BOUND_NOTE}
    spreads = [
        figure_spread(s) if s.reported is not None else (computed or {}).get(s.name) for s in sides
    ]
    if any(s.reported is None for s in sides) and not any(
        s.reported is not None and s.reported.intervals for s in sides
    ):
        return empty  # a measured side against a reported one that published no interval
    a, b = spreads
    ratio, per_gpu = head["throughput_ratio"], head["per_gpu_throughput_ratio"]
    if a is None or b is None or ratio is None or not per_gpu or (a.exact and b.exact):
        missing = [n for n, s in ((head["system"], a), (head["baseline"], b)) if s is None]
        if len(missing) == 1 and any(s.reported and s.reported.intervals for s in sides):
            gone = comparison.system(missing[0])
            empty["interval_note"] = (
                f"`{missing[0]}`'s reported figure carries no published interval, and cmpc "
                "invents none (no per-request data)"
                if gone.reported is not None
                else f"`{missing[0]}`'s read has no interval to combine with the published one"
            )
        return empty
    level = comparison.uncertainty.confidence
    what = (
        "the published intervals"
        if all(s.reported is not None for s in sides)
        else "the interval cmpc computed from the runs and the published one"
    )
    low, high, basis, note = _combine(a, b, per_gpu, level, what)
    found = Interval(low * (ratio / per_gpu), high * (ratio / per_gpu), level, basis, 0)
    cost = head["cost_ratio"]
    cost_ci = None
    if cost is not None:
        cost_ci = Interval(cost * (per_gpu / high), cost * (per_gpu / low), level, basis, 0)
    band = comparison.tie_band
    return {
        "throughput_ratio_ci": found.as_list(),
        "cost_ratio_ci": None if cost_ci is None else cost_ci.as_list(),
        "throughput_ratio_one_sided_ci": None,
        "cost_ratio_one_sided_ci": None,
        "cost_ratio_at_equal_price_one_sided_ci": None,
        "confidence": level,
        "within_noise": within_noise(found, band),
        "cost_within_noise": within_noise(cost_ci, band) if cost_ci else None,
        "interval_note": None,
        "interval_basis": basis,
        "interval_assumption": note,
    }


def _combine(
    a: Spread, b: Spread, per_gpu: float, level: float, what: str
) -> tuple[float, float, T.IntervalBasis, str]:
    """(low, high) of the per-GPU ratio a / b at `level`, how it was found, and the statement."""
    one = b if a.exact else a if b.exact else None
    if one is not None and one.figure is not None and one.confidence == level:
        declared = one.figure
        said = CARRIED.format(source=declared.source, date=declared.as_of)
        if one is a:  # the system's ratio to the baseline, as published
            scale = per_gpu / one.point
            return declared.low * scale, declared.high * scale, "declared", said
        # the baseline's ratio to the system: its inverse
        return per_gpu * (one.point / declared.high), per_gpu * (one.point / declared.low), \
            "declared", said  # fmt: skip
    z = normal_ppf(0.5 + level / 2)

    def sigma(s: Spread, log_half: float) -> float:
        return 0.0 if s.exact else log_half / normal_ppf(0.5 + s.confidence / 2)

    below = z * math.hypot(sigma(a, a.below), sigma(b, b.above))
    above = z * math.hypot(sigma(a, a.above), sigma(b, b.below))
    shown = f"{round(level * 100, 1):g}%"
    return (
        per_gpu * math.exp(-below),
        per_gpu * math.exp(above),
        "derived",
        ASSUMPTION.format(what=what, level=shown),
    )
