"""How sure the figures are: interval phrases, the noise verdict, the intervals section."""

from __future__ import annotations

from typing import Any

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, is_number
from cmpc.report.text import (
    Md,
    column_digits,
    escape,
    escape_prose,
    fixed,
    number,
    percent,
    ratio,
)

NOT_COMPUTED = "Intervals: no figure here comes from per-request data, so cmpc computed none."
METHOD_NAMES = {"percentile": "percentile"}


def confidence_level(ctx: Context) -> str:
    u = ctx.results.get("uncertainty") or {}
    return f"{round((u.get('confidence') or 0.95) * 100, 1):g}%"


def interval_pair(value: object) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(is_number(v) for v in value):
        return float(value[0]), float(value[1])
    return None


def change_interval(ctx: Context, fid: str, quantity: str, ci: object, system: str) -> Md:
    """` (95% CI +18.0% to +31.0%)` for a ratio's interval as changes; empty without one."""
    pair = interval_pair(ci)
    if pair is None:
        return Md("")
    low, high = pair
    shown_low = ctx.fig.add(
        f"{fid}_ci_low", f"{quantity}, interval low", low, "x", ratio(low), system=system
    )
    shown_high = ctx.fig.add(
        f"{fid}_ci_high", f"{quantity}, interval high", high, "x", ratio(high), system=system
    )
    del shown_low, shown_high  # the ratios go to figures.csv; the sentence shows changes
    return Md(" ({} CI {} to {})[^ci]").format(
        Md(confidence_level(ctx)), percent(low - 1, signed=True), percent(high - 1, signed=True)
    )


def one_sided_change(
    ctx: Context,
    fid: str,
    quantity: str,
    bound: object,
    side: object,
    words: tuple[str, str],
    system: str,
) -> Md:
    """` (one-sided 95%: at least 7.1% higher)` for a bound ratio's one-sided bound as a change
    in the headline's words (`words`: the ratio above and below 1); empty without one."""
    if not is_number(bound) or side not in ("lower", "upper"):
        return Md("")
    end = "low" if side == "lower" else "high"
    ctx.fig.add(
        f"{fid}_one_sided_{end}",
        f"{quantity}, one-sided {'lower' if side == 'lower' else 'upper'} bound",
        bound,
        "x",
        ratio(bound),
        system=system,
    )  # the ratio goes to figures.csv; the sentence shows the change
    above = float(bound) > 1
    # a lower bound above 1 and an upper one below 1 say "at least"; the others "at most"
    least = above if side == "lower" else not above
    return Md(" (one-sided {}: {} {} {})[^ci]").format(
        Md(confidence_level(ctx)),
        Md("at least") if least else Md("at most"),
        percent(abs(float(bound) - 1)),
        Md(words[0] if above else words[1]),
    )


def noise_sentence(ctx: Context) -> Md | None:
    """The verdict when a headline ratio's interval holds 1 or lies within the tie band."""
    h = ctx.results.get("headline") or {}
    parts = []
    pair = interval_pair(h.get("throughput_ratio_ci"))
    if h.get("within_noise") and pair is not None:
        parts.append(
            Md(
                "The throughput difference is within measurement noise: the {} interval of the "
                "ratio ({} to {}) holds 1 or lies within the tie band, so neither system leads "
                "on this evidence.[^ci]"
            ).format(Md(confidence_level(ctx)), ratio(pair[0]), ratio(pair[1]))
        )
    cost = interval_pair(h.get("cost_ratio_ci"))
    if h.get("cost_within_noise") and cost is not None:
        parts.append(
            Md(
                "At the declared prices the cost difference is within measurement noise "
                "(cost ratio {} to {}).[^ci]"
            ).format(ratio(cost[0]), ratio(cost[1]))
        )
    bound = h.get("throughput_ratio_one_sided_ci")
    if h.get("within_noise") and pair is None and is_number(bound):
        parts.append(
            Md(
                "The lead is not established at {}: the ratio's one-sided bound ({}) does not "
                "exclude 1, so neither system is shown to lead on this evidence.[^ci]"
            ).format(Md(confidence_level(ctx)), ratio(bound))
        )
    cost_bound = h.get("cost_ratio_one_sided_ci")
    if h.get("cost_within_noise") and cost is None and is_number(cost_bound):
        parts.append(
            Md(
                "At the declared prices the cost lead is not established either (the cost "
                "ratio's one-sided bound, {}, does not exclude 1).[^ci]"
            ).format(ratio(cost_bound))
        )
    if h.get("interval_note") and h.get("confidence") is not None:
        lead = (
            Md("The ratio's interval is one-sided")
            if is_number(h.get("throughput_ratio_one_sided_ci"))
            else Md("The ratio carries no interval")
        )
        parts.append(Md("{}: {}.[^ci]").format(lead, escape_prose(h["interval_note"])))
    return Md(" ").join(parts) if parts else None


def _any_one_sided(ctx: Context) -> bool:
    """Whether a figure in the report carries a one-sided bound (the headline's or a read's)."""
    h = ctx.results.get("headline") or {}
    if is_number(h.get("throughput_ratio_one_sided_ci")):
        return True
    reads = ((ctx.systems.get(n) or {}).get("uncertainty") or {} for n in ctx.order)
    return any(is_number(u.get("throughput_per_gpu_one_sided_ci")) for u in reads)


def footnote(ctx: Context) -> Md | None:
    """The intervals' method, resample count and seed, and what they do not cover."""
    u = ctx.results.get("uncertainty") or {}
    if not u.get("enabled"):
        return Md("Intervals are off (`uncertainty off`): no figure carries an interval.")
    target = bool(ctx.target())
    left_out = Md("")
    if target:  # with no target each replicate reads its frontier's peak: none misses
        left_out = Md(" Replicates whose frontier misses the target are left out{}.").format(
            Md(
                " of two-sided intervals; a one-sided bound counts them as its least favourable "
                "value"
            )
            if _any_one_sided(ctx)
            else Md("")
        )
    parts = [
        Md(
            "Intervals: {} bootstrap {} intervals, {} resamples, seed {}. Each replicate "
            "resamples every run's requests (with replacement), lets a closed-loop run's "
            "duration follow its resampled mean end-to-end latency (an open-loop run's is held), "
            "rebuilds each system's frontier and reads it {}, so the ratio's interval holds every "
            "run's variation.{} See docs/statistics.md."
        ).format(
            Md(confidence_level(ctx)),
            escape(METHOD_NAMES.get(u.get("method", ""), u.get("method", ""))),
            number(u.get("resamples")),
            number(u.get("seed")),
            Md("at the target" if target else "at its highest throughput (no latency target)"),
            left_out,
        )
    ]
    if not any((ctx.systems.get(n) or {}).get("data") == "runs" for n in ctx.order):
        parts = [Md(NOT_COMPUTED)]  # reported figures only: no bootstrap ran
    for name in ctx.order:
        s = ctx.systems.get(name) or {}
        su = s.get("uncertainty") or {}
        if su.get("note"):
            parts.append(Md("{}: {}.").format(ctx.label(name), escape_prose(su["note"])))
        parts.extend(_published(ctx, name, p) for p in su.get("published_intervals") or [])
    h = ctx.results.get("headline") or {}
    if h.get("interval_note"):
        parts.append(Md("Headline: {}.").format(escape_prose(h["interval_note"])))
    if h.get("interval_assumption"):
        parts.append(
            Md(
                "Headline: the ratio's interval is {}; it is what the verdict on noise uses."
            ).format(escape_prose(h["interval_assumption"]))
        )
    return Md(" ").join(parts)


def _declared_level(su: JsonObject) -> Md:
    levels = [p.get("confidence") for p in su.get("published_intervals") or []]
    level = next((v for v in levels if is_number(v)), None)
    return Md("{:g}%").format(round(level * 100, 1)) if level is not None else Md("\u2014")


def _published(ctx: Context, name: str, p: JsonObject) -> Md:
    """`A: interval published by SOURCE (DATE), not computed by cmpc: throughput 95% ...`."""
    unit = p.get("unit")
    ends = Md("{} to {}").format(number(p.get("low")), number(p.get("high")))
    if unit and unit != "x":
        ends += Md(" ") + escape(unit)
    return Md("{}: interval published by {} ({}), not computed by cmpc: {} {} {}.").format(
        ctx.label(name),
        escape(p.get("source_title") or p.get("source") or ""),
        escape(p.get("as_of") or ""),
        escape(p.get("figure") or ""),
        Md("{:g}%").format(round((p.get("confidence") or 0) * 100, 1)),
        ends,
    )


def _ci_text(pair: tuple[float, float] | None, fmt: Any = number) -> Md:
    if pair is None:
        return Md("\u2014")
    return Md("{} to {}").format(fmt(pair[0]), fmt(pair[1]))


def _read_column(ctx: Context) -> list[object]:
    """Every read and interval end the `How sure` table shows."""
    values: list[object] = []
    for name in ctx.order:
        s = ctx.systems.get(name) or {}
        if s.get("uncertainty") is not None:
            values.append((s.get("at_target") or {}).get("throughput_per_gpu"))
            values.extend(interval_pair(s["uncertainty"].get("throughput_per_gpu_ci")) or ())
            values.append(s["uncertainty"].get("throughput_per_gpu_one_sided_ci"))
    return values


def intervals(ctx: Context) -> JsonObject:
    """Rows of the `How sure` section: each system's read, repetitions, capacity at SLO."""
    rows = []
    capacity = []
    shown = fixed(column_digits(_read_column(ctx)))  # reads and their ends: one column format
    for name in ctx.order:
        s = ctx.systems.get(name) or {}
        su = s.get("uncertainty")
        at = s.get("at_target") or {}
        if su is not None:
            pair = interval_pair(su.get("throughput_per_gpu_ci"))
            bound = su.get("throughput_per_gpu_one_sided_ci")
            rows.append(
                {
                    "system": ctx.label(name),
                    "read": (Md("\u2265 ") if at.get("bound") else Md(""))
                    + shown(at.get("throughput_per_gpu")),
                    "interval": Md("at least {} (one-sided)").format(shown(bound))
                    if is_number(bound)
                    else _ci_text(pair, shown)
                    if s.get("data") != "reported"
                    else _ci_text(pair, shown) + Md(" (published, {})").format(_declared_level(su))
                    if pair is not None
                    else Md("none (reported figures)"),
                    "reachable": percent(su.get("reachable_share"))
                    if is_number(su.get("reachable_share"))
                    else Md("\u2014"),
                    "run_to_run": escape(su.get("run_to_run", "unknown"))
                    if s.get("data") != "reported"
                    else Md("n/a"),
                    "repetitions": [
                        Md("concurrency {}: {} runs, throughput CV {}").format(
                            number(r.get("concurrency")),
                            number(r.get("runs")),
                            percent((r.get("throughput_per_gpu") or {}).get("cv")),
                        )
                        for r in su.get("repetitions") or []
                    ],
                }
            )
            if is_number(bound):
                ctx.fig.add(f"{name}.throughput_per_gpu_one_sided_low",
                            f"read at the target, one-sided {confidence_level(ctx)} lower bound",
                            bound, "tok/s/gpu", number(bound), system=name)  # fmt: skip
            if pair is not None:
                ctx.fig.add(f"{name}.throughput_per_gpu_ci_low", "read interval low", pair[0],
                            "tok/s/gpu", number(pair[0]), system=name)  # fmt: skip
                ctx.fig.add(f"{name}.throughput_per_gpu_ci_high", "read interval high", pair[1],
                            "tok/s/gpu", number(pair[1]), system=name)  # fmt: skip
        cap = s.get("capacity_at_slo")
        if cap is not None:
            capacity.append(_capacity_row(ctx, name, cap))
    h = ctx.results.get("headline") or {}
    ratio_pair = interval_pair(h.get("capacity_at_slo_ratio_ci"))
    return {
        "level": Md(confidence_level(ctx)),
        "target": bool(ctx.target()),
        "rows": rows,
        "measured": any(
            (ctx.systems.get(n) or {}).get("data") == "runs"
            and (ctx.systems.get(n) or {}).get("uncertainty")
            for n in ctx.order
        ),
        "capacity": capacity,
        "capacity_limits": _limits(ctx),
        "capacity_ratio": ctx.fig.add(
            "headline.capacity_at_slo_ratio",
            "throughput ratio at SLO capacity",
            h["capacity_at_slo_ratio"],
            "x",
            ratio(h["capacity_at_slo_ratio"]),
            system=h.get("system", ""),
        )
        if is_number(h.get("capacity_at_slo_ratio"))
        else None,
        "capacity_ratio_ci": _ci_text(ratio_pair, ratio) if ratio_pair else None,
    }


def _limits(ctx: Context) -> Md | None:
    for name in ctx.order:
        cap = (ctx.systems.get(name) or {}).get("capacity_at_slo")
        if cap:
            return Md(" and ").join(
                Md("{} {} \u2264 {} ms").format(
                    escape(lim["statistic"]), escape(lim["metric"]), number(lim["limit_ms"])
                )
                for lim in cap["limits"]
            )
    return None


def _capacity_row(ctx: Context, name: str, cap: JsonObject) -> JsonObject:
    load_word = "concurrency" if cap.get("load_key") == "concurrency" else "request rate"
    if not cap.get("met"):
        where = Md("no run of the sweep meets every limit")
    elif cap.get("bounded_by_sweep"):
        where = Md("at least {} {} (the highest load measured meets every limit)").format(
            escape(load_word), number(cap.get("load"))
        )
    else:
        bracket = cap.get("bracket") or []
        where = Md("{} {} (between {}; {} reached first)").format(
            escape(load_word),
            number(cap.get("load")),
            Md(" and ").join(number(b) for b in bracket),
            escape(cap.get("limiting") or ""),
        )
    if is_number(cap.get("throughput_per_gpu")):
        ctx.fig.add(f"{name}.capacity_at_slo.throughput_per_gpu", "throughput at SLO capacity",
                    cap["throughput_per_gpu"], "tok/s/gpu", number(cap["throughput_per_gpu"]),
                    system=name)  # fmt: skip
    usd = cap.get("usd_per_million_tokens")
    return {
        "system": ctx.label(name),
        "capacity": where,
        "load_ci": Md("at least {} (one-sided)").format(number(cap["load_one_sided_ci"]))
        if is_number(cap.get("load_one_sided_ci"))
        else _ci_text(interval_pair(cap.get("load_ci"))),
        "throughput": number(cap.get("throughput_per_gpu")),
        "throughput_ci": _ci_text(interval_pair(cap.get("throughput_per_gpu_ci"))),
        "usd": Md("${}").format(number(usd, 3)) if is_number(usd) else Md("\u2014"),
    }
