"""Words for a read: where a point lies on the read's axis, frontier spans, lower bounds."""

from __future__ import annotations

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.latency_unit import LatencyUnit, along_latency, latency_unit
from cmpc.report.text import Md, number
from cmpc.report.words import METRIC_NAMES
from cmpc.report.words import latency_name as words_latency_name


def by_latency(ctx: Context) -> bool:
    """True when reads go along latency, lower is better (a duration target, or ttft or e2el
    with no target)."""
    return along_latency(ctx.conditions.get("latency") or {})


def axis_unit(ctx: Context) -> LatencyUnit:
    """The unit the latency axis is shown in (the spec target's: ms or s)."""
    return latency_unit(ctx.conditions.get("latency") or {})


def latency_name(ctx: Context) -> str:
    """The constrained statistic and metric: `P90 TTFT`."""
    return words_latency_name(ctx.conditions.get("latency") or {})


def point_position(ctx: Context, point: JsonObject) -> Md:
    """Where a measured point lies on the read's axis: `36.19 tok/s/user`, `850.2 ms`, `12.4 s`."""
    x = point.get("interactivity_tok_s_user")
    if not is_number(x) or x <= 0:
        return Md("n/a")
    if by_latency(ctx):
        unit = axis_unit(ctx)
        return Md("{} {}").format(number(unit.of_interactivity(x)), unit.symbol)
    return Md("{} tok/s/user").format(number(x))


def frontier_range(ctx: Context, frontier: list[JsonObject]) -> Md:
    """The frontier's span on the read's axis; one point reads as one value, not `a–a`."""
    xs = [p for p in frontier if is_number(p.get("interactivity_tok_s_user"))]
    if not xs:
        return Md("no point")
    ends = sorted(xs, key=lambda p: p["interactivity_tok_s_user"])
    lo, hi = point_position(ctx, ends[0]), point_position(ctx, ends[-1])
    if lo == hi:
        return Md("measured at {} only").format(lo)
    if by_latency(ctx):
        lo, hi = hi, lo  # latency: lowest first
    head = Md("{} from ").format(latency_name(ctx)) if by_latency(ctx) else Md("")
    return head + Md("{}\u2013{}").format(lo, hi)


def lower_bound_note(ctx: Context, at: JsonObject) -> Md:
    """Why a read is a lower bound and where it was measured."""
    knots = at.get("knots") or [{}]
    where = point_position(ctx, knots[0])
    if by_latency(ctx):
        return Md(
            "measured at a {} of {}: a lower bound (every run meets the target; "
            "throughput at the target itself was not measured)"
        ).format(latency_name(ctx), where)
    return Md(
        "measured at {}: a lower bound (every point of its frontier is faster than the target; "
        "throughput at the target itself was not measured)"
    ).format(where)


def slo_text(ctx: Context) -> Md:
    """The declared SLOs: `TTFT ≤ 2,000 ms, TPOT ≤ 50 ms`."""
    slo = get_in(ctx.conditions, "latency", "slo", default=[]) or []
    return Md(", ").join(
        Md("{} \u2264 {} ms").format(METRIC_NAMES.get(k, k), number(v * 1000)) for k, v in slo
    )
