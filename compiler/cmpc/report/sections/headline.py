"""The headline section: the one-sentence answer, its conditions and its cautions."""

from __future__ import annotations

import math
from typing import Any, cast

from cmpc.analysis import types as T
from cmpc.analysis.comparisons import inverse_bound
from cmpc.analysis.sensitivity import is_tie
from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.readwords import (
    axis_unit,
    by_latency,
    frontier_range,
    latency_name,
    point_position,
    slo_text,
)
from cmpc.report.sections.sensitivity import tie_band
from cmpc.report.sections.systems import load_cell
from cmpc.report.sections.uncertainty import change_interval, noise_sentence, one_sided_change
from cmpc.report.text import (
    Md,
    escape,
    escape_prose,
    number,
    percent,
    ratio,
)
from cmpc.report.words import (
    METRIC_NAMES,
    PER,
    ROLES,
    load_text,
    statistic_name,
    token_phrase,
)


def headline(ctx: Context) -> JsonObject:
    h = ctx.results.get("headline") or {}
    out: dict[str, Any] = {
        "available": False,
        "reason": None,
        "declared": None,
        "equal": None,
        "system": None,
        "baseline": ctx.label(ctx.baseline),
        "target": target_phrase(ctx) + ctx.set_mark("latency.target"),
        "tokens": escape(token_phrase(get_in(ctx.conditions, "tokens", "count"))),
        "per": escape(PER.get(ctx.per(), "per " + ctx.per())) + ctx.set_mark("normalize"),
        "direction": None,
        "change": None,
        "sources": [],
        "price_normalized": ctx.per() == "dollar",
        "load_caution": load_caution(ctx),
        "cost_unavailable": None,
        "hit_rate_gap": hit_rate_gap(ctx),
        "interval": Md(""),
        "noise": None,
    }
    if not ctx.systems:
        out["reason"] = Md("the spec declares no systems; it audits the claims below")
        out["target"] = Md("")
        return out
    if not h:
        out["reason"] = Md("the spec compares no system with the baseline")
        return out
    out["system"] = ctx.label(h.get("system"))
    out["baseline"] = ctx.label(h.get("baseline"))
    tr = h.get("throughput_ratio")
    if not is_number(tr):
        out["reason"] = _why_no_ratio(ctx, h)
        return out
    out["available"] = True
    out["ratio"] = ctx.fig.add(
        "headline.throughput_ratio",
        "throughput ratio",
        tr,
        "x",
        ratio(tr),
        system=h.get("system", ""),
        source="cmpc",
    )
    change = tr - 1
    band = tie_band(ctx)
    out["direction"] = _direction(tr, band, Md("more"), Md("fewer"))
    out["same"] = _same(tr)
    bound = h.get("bound")
    out["qualifier"] = _qualifier(tr, bound) if out["direction"] else Md("")
    out["bound_caution"] = bound_caution(ctx, h)
    if bound == "neither":
        out["target"] += Md(" (as measured: both reads are lower bounds)")
    out["goodput_caution"] = goodput_caution(ctx, h)
    out["pue_caution"] = pue_caution(ctx)
    out["interval"] = change_interval(
        ctx, "headline.throughput_ratio", "throughput ratio", h.get("throughput_ratio_ci"),
        h.get("system", ""),
    ) + one_sided_change(
        ctx, "headline.throughput_ratio", "throughput ratio",
        h.get("throughput_ratio_one_sided_ci"), bound, ("more", "fewer"), h.get("system", ""),
    )  # fmt: skip
    out["noise"] = noise_sentence(ctx)
    out["change"] = ctx.fig.add(
        "headline.throughput_change",
        "throughput change",
        change,
        "fraction",
        percent(abs(change)),
        system=h.get("system", ""),
        source=ctx.data_source(h.get("system")),
    )
    eq = h.get("cost_ratio_at_equal_price")
    if is_number(eq):
        out["equal"] = _cost_phrase(
            ctx,
            "headline.cost_change_at_equal_price",
            eq,
            "cost change at equal prices",
            h.get("system"),
            band,
        )
        out["equal"]["interval"] = one_sided_change(
            ctx, "headline.cost_ratio_at_equal_price", "cost ratio at equal prices",
            h.get("cost_ratio_at_equal_price_one_sided_ci"), _inverse(bound), ("higher", "lower"),
            h.get("system", ""),
        )  # fmt: skip
        # per node (or rack), fewer tokens can still be cheaper: prices are per GPU-hour
        out["equal"]["basis"] = (
            Md(" per GPU-hour") if ctx.per() not in ("gpu", "dollar") else Md("")
        )
    cr, pr = h.get("cost_ratio"), h.get("price_ratio")
    if is_number(cr) and is_number(pr) and not math.isclose(pr, 1.0):
        declared = _cost_phrase(
            ctx,
            "headline.cost_change_at_declared_prices",
            cr,
            "cost change at the declared prices",
            h.get("system"),
            band,
        )
        declared["interval"] = change_interval(
            ctx, "headline.cost_ratio", "cost ratio", h.get("cost_ratio_ci"), h.get("system", "")
        ) + one_sided_change(
            ctx, "headline.cost_ratio", "cost ratio",
            h.get("cost_ratio_one_sided_ci"), _inverse(bound), ("higher", "lower"),
            h.get("system", ""),
        )  # fmt: skip
        pair = (h.get("system"), h.get("baseline"))
        billed = any(ctx.billing(n) is not None for n in pair)
        declared["prices"] = Md(", vs " if billed else " vs ").join(
            ctx.used_price_shown(n) + ctx.price_mark(n) for n in pair
        )
        out["declared"] = declared
    elif h.get("cost_unavailable"):
        out["cost_unavailable"] = escape_prose(h["cost_unavailable"])
    out["sources"] = _headline_sources(ctx, h)
    return out


def target_phrase(ctx: Context) -> Md:
    lat = ctx.conditions.get("latency") or {}
    t = ctx.target()
    if not t:
        return _peak_phrase(ctx)
    stat = statistic_name(lat.get("statistic"))
    metric = lat.get("metric") or "latency"
    metric = METRIC_NAMES.get(metric, metric)
    inter = t.get("interactivity_tok_s_user")
    shown_i = ctx.fig.add(
        "target.interactivity",
        "target interactivity",
        inter,
        "tok/s/user",
        number(inter),
        source="spec",
    )
    if t.get("given_as") == "latency":
        unit = axis_unit(ctx)
        at = unit.of_ms(t.get("latency_ms"))
        shown = ctx.fig.add(
            "target.latency", f"target {stat} {metric}", at, unit.symbol, number(at), source="spec"
        )
        text = Md("at a {} {} of at most {} {}").format(stat, metric, shown, unit.symbol)
        if is_number(inter) and inter > 0:
            text += Md(" ({} tok/s per user)").format(shown_i)
        return text
    return Md("at {} tok/s per user").format(shown_i)


def _peak_phrase(ctx: Context) -> Md:
    """No target: each system is read at its own peak; say where that peak lies."""
    h = ctx.results.get("headline") or {}
    names = [n for n in (h.get("system"), h.get("baseline")) if n]
    xs = []
    for n in names:
        at = get_in(ctx.systems, n, "at_target", default={})
        knots = at.get("knots") or []
        if at.get("method") != "peak" or not knots:
            return Md("with no latency target")
        xs.append(knots[0].get("interactivity_tok_s_user"))
    if len(xs) != 2 or not all(is_number(x) for x in xs):
        return Md("with no latency target")
    spread = _peak_spread(ctx, names, xs)
    loads = [_single_load(ctx, n) for n in names]
    if loads[0] is None and loads[1] is None:
        return Md("each at its peak throughput, with no latency target ({})").format(spread)
    if loads[0] is not None and loads[1] is not None:
        return Md("each at its measured load, with no latency target ({} vs {}; {})").format(
            loads[0], loads[1], spread
        )
    where = [
        Md("at its measured load ({})").format(w) if w is not None else Md("at its peak throughput")
        for w in loads
    ]
    return Md("with no latency target, {} vs {} ({})").format(where[0], where[1], spread)


def _peak_spread(ctx: Context, names: list[str], xs: list[float]) -> Md:
    """Where the two peaks lie on the read's axis: `0.832 vs 16.08 tok/s per user, so not at
    equal interactivity`, or along latency (ttft, e2el) `a P90 TTFT of 1,202 vs 62.17 ms, ...`."""
    if by_latency(ctx):
        unit = axis_unit(ctx)
        name = latency_name(ctx)
        shown = [
            ctx.fig.add(
                f"{n}.peak_latency",
                f"{name} at peak throughput",
                unit.of_interactivity(x),
                unit.symbol,
                number(unit.of_interactivity(x)),
                system=n,
                source=ctx.data_source(n),
            )
            for n, x in zip(names, xs, strict=True)
        ]
        return Md("a {} of {} vs {} {}, so not at equal latency").format(
            name, shown[0], shown[1], unit.symbol
        )
    shown = [
        ctx.fig.add(
            f"{n}.peak_interactivity",
            "interactivity at peak throughput",
            x,
            "tok/s/user",
            number(x),
            system=n,
            source=ctx.data_source(n),
        )
        for n, x in zip(names, xs, strict=True)
    ]
    return Md("{} vs {} tok/s per user, so not at equal interactivity").format(shown[0], shown[1])


def _single_load(ctx: Context, name: str) -> Md | None:
    """A one-run system's load (`4 req/s`, `all requests at once`); None for a sweep."""
    points = get_in(ctx.systems, name, "points", default=[]) or []
    if len(points) != 1:
        return None  # a sweep: its read is the maximum, its peak
    if points[0].get("request_rate") == "inf" and not is_number(points[0].get("concurrency")):
        return Md("all requests at once")
    if is_number(points[0].get("concurrency")):  # in prose a bare number says nothing
        return Md("concurrency {}").format(number(points[0]["concurrency"]))
    return load_cell(points[0])


def _direction(value_ratio: float, band: float, up: Md, down: Md) -> Md | None:
    """The word for a ratio's change, None for a tie (a ratio within the tie band of 1)."""
    if is_tie(value_ratio, band):
        return None
    return up if value_ratio > 1 else down if value_ratio < 1 else None


def _same(value_ratio: float) -> Md:
    """`the same` for equal values, `about the same` for a tie that is not exact."""
    return Md("the same") if value_ratio == 1 else Md("about the same")


def _cost_phrase(
    ctx: Context,
    fid: str,
    cost_ratio: float,
    quantity: str,
    system: str | None,
    band: float,
) -> dict[str, Md | None]:
    change = cost_ratio - 1
    bound = get_in(ctx.results, "headline", "bound")
    return {
        "ratio": ctx.fig.add(
            fid.replace("change", "ratio"),
            quantity.replace("change", "ratio"),
            cost_ratio,
            "x",
            ratio(cost_ratio),
            system=system,
            source="cmpc",
        ),
        "change": ctx.fig.add(
            fid,
            quantity,
            change,
            "fraction",
            percent(abs(change)),
            system=system,
            source="cmpc",
        ),
        "direction": _direction(cost_ratio, band, Md("higher"), Md("lower")),
        "same": _same(cost_ratio),
        "qualifier": _qualifier(cost_ratio, _inverse(bound))
        if _direction(cost_ratio, band, Md("+"), Md("-"))
        else Md(""),
    }


def _inverse(bound: object) -> str | None:
    """`inverse_bound` of a bound as results.json has it."""
    return inverse_bound(cast("T.RatioBound", bound)) if bound else None


def _qualifier(value_ratio: float, bound: object) -> Md:
    """`at least ` or `at most ` before a change whose ratio is a bound; empty otherwise."""
    if bound == "lower":
        return Md("at least ") if value_ratio > 1 else Md("at most ")
    if bound == "upper":
        return Md("at least ") if value_ratio < 1 else Md("at most ")
    return Md("")


def _bound_read(ctx: Context, name: str | None) -> Md:
    at = get_in(ctx.systems, name, "at_target", default={})
    knots = at.get("knots") or [{}]
    return Md("{}: \u2265 {} {} measured at {}").format(
        ctx.label(name),
        number(at.get("throughput_per_unit")),
        at.get("unit") or ctx.unit(),
        point_position(ctx, knots[0]),
    )


def bound_caution(ctx: Context, h: JsonObject) -> Md | None:
    """What a ratio built from lower-bound reads does and does not show."""
    bound = h.get("bound")
    system, base = h.get("system"), h.get("baseline")
    if bound == "neither":
        return Md(
            "both reads are lower bounds ({}; {}). A ratio of two lower bounds is not itself a "
            "bound: neither the size nor the direction of the lead at the target follows from "
            "these runs, so no winner is named"
        ).format(_bound_read(ctx, system), _bound_read(ctx, base))
    if bound not in ("lower", "upper"):
        return None
    name = system if bound == "lower" else base
    text = Md(
        "the read of {} is a lower bound (every point of its frontier is faster than the "
        "target), so the ratio is {} bound"
    ).format(_bound_read(ctx, name), Md("a lower") if bound == "lower" else Md("an upper"))
    if not h.get("winner"):
        text += Md(": the lead at the target may be smaller or reverse, so no winner is named")
    return text


def pue_caution(ctx: Context) -> Md | None:
    """Per MW with a PUE on some systems only: facility megawatts against IT megawatts."""
    if ctx.per() != "mw":
        return None
    pues = {n: get_in(ctx.systems, n, "energy", "pue", default=None) for n in ctx.order}
    without = [n for n, p in pues.items() if not is_number(p)]
    if not without or len(without) == len(pues):
        return None
    return Md(
        "the megawatts differ: facility power (power per GPU \u00d7 PUE) for {}, IT power "
        "only (no PUE stated) for {}, so the ratio favours the side{} without a PUE; state the "
        "PUE where each system runs"
    ).format(
        Md(" and ").join(ctx.label(n) for n in pues if n not in without),
        Md(" and ").join(ctx.label(n) for n in without),
        Md("s") if len(without) > 1 else Md(""),
    )


def goodput_caution(ctx: Context, h: JsonObject) -> Md | None:
    """A sentence when goodput under the declared SLOs favours the other side."""
    gr, tr = h.get("goodput_ratio"), h.get("throughput_ratio")
    if not is_number(gr) or not is_number(tr) or gr == 1 or tr == 1:
        return None
    if (gr > 1) == (tr > 1):
        return None
    system, base = h.get("system"), h.get("baseline")
    better = system if gr > 1 else base
    shown = ctx.fig.add(
        "headline.goodput_ratio",
        "goodput ratio",
        gr,
        "x",
        ratio(gr),
        system=system or "",
        source="cmpc",
    )
    what = Md("reverses the throughput winner") if h.get("winner") else Md("points the other way")
    return Md(
        "goodput under the SLOs ({}) {}: {} serves more requests within them per GPU "
        "(goodput ratio {}, best runs; see each system's goodput below)"
    ).format(slo_text(ctx), what, ctx.label(better), shown)


def _why_no_ratio(ctx: Context, h: JsonObject) -> Md:
    for name in (h.get("system"), h.get("baseline")):
        at = get_in(ctx.systems, name, "at_target", default={})
        if at.get("reachable") is False:
            front = get_in(ctx.systems, name, "frontier", default=[]) or []
            span = frontier_range(ctx, front)
            if len(front) > 1:
                span = Md("its frontier spans {}").format(span)
            return Md("{} does not reach the target ({}; cmpc never extrapolates)").format(
                ctx.label(name), span
            )
    return Md("the data give no throughput for both sides under the spec's conditions")


def _headline_sources(ctx: Context, h: JsonObject) -> list[Md]:
    seen, out = set(), []
    for name in (h.get("system"), h.get("baseline")):
        s = ctx.systems.get(name) or {}
        runs = s.get("data") == "runs"
        ref = (
            (ctx.ir_systems.get(name, {}).get("runs") or {}).get("source")
            if runs
            else (s.get("source"))
        )
        key = ("runs" if runs else "reported", ref)
        if key in seen:
            continue
        seen.add(key)
        src = ctx.sources.get(ref) or {}
        words = [ctx.source_title(ref)] if ref else []
        if ref and (src.get("role") or src.get("status")):
            role = src.get("role")
            tags = [ROLES.get(role, role) if isinstance(role, str) else role, src.get("status")]
            tags = [escape(str(t).replace("_", "-")) for t in tags if t]
            words[0] = Md("{} ({})").format(words[0], Md(", ").join(tags))
        for k in ("snapshot", "run_date"):
            if src.get(k):
                words.append(Md("{} {}").format(k.replace("_", " "), src[k]))
                break
        if runs:
            text = Md("{} runs").format(ctx.origin(name))
            if words:
                text += Md(" by ") + Md(", ").join(words)
            out.append(text + Md(", read by cmpc"))
        else:
            out.append(Md("{} by {}").format(ctx.origin(name), Md(", ").join(words)))
    return out


def load_caution(ctx: Context) -> Md | None:
    """A sentence when the systems ran under different load conditions."""
    load = ctx.results.get("load")
    if not isinstance(load, dict) or load.get("comparable") is not False:
        return None
    per = load.get("systems") or {}
    parts = [Md("{}: {}").format(ctx.label(n), load_text(per[n])) for n in ctx.order if per.get(n)]
    return Md(
        "the systems ran under different load conditions ({}), so this is not a like-for-like test"
    ).format(Md("; ").join(parts))


def hit_rate_gap(ctx: Context) -> Md | None:
    """A sentence when counted reused tokens meet hit rates further apart than the margin."""
    tok = ctx.conditions.get("tokens") or {}
    count = tok.get("count") or []
    if tok.get("reused") != "included" or not any(k in ("input", "cached_input") for k in count):
        return None
    rates = {n: (ctx.systems.get(n) or {}).get("hit_rate") for n in ctx.order}
    known = {n: r for n, r in rates.items() if is_number(r)}
    margin = tok.get("hit_rate_margin")
    if len(known) < 2 or not is_number(margin):
        return None
    gap = max(known.values()) - min(known.values())
    if gap <= margin:
        return None
    shown = ctx.fig.add(
        "tokens.hit_rate_gap",
        "prefix-cache hit-rate gap",
        gap,
        "fraction",
        number(gap * 100, 1),
        source="cmpc",
    )
    return Md(
        "the sides' hit rates differ by {} percentage points, more than the "
        "{}-point margin: counting reused input favours the side that "
        "reuses more, so compare `count uncached_input + output` too."
    ).format(shown, number(margin * 100))
