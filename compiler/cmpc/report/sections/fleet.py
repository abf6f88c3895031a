"""The `Fleet planning` section: the highest interactivity within a cost cap, users per MW."""

from __future__ import annotations

from collections.abc import Callable

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, is_number
from cmpc.report.readwords import latency_name
from cmpc.report.sections.uncertainty import confidence_level as level
from cmpc.report.sections.uncertainty import interval_pair as pair
from cmpc.report.text import DASH, Md, escape, escape_prose, fixed, number, percent, ratio, usd

Fmt = Callable[[object], Md]
speed_text = fixed(1)  # interactivities: one decimal throughout the section

CAP_READS = {
    "steffen": "by bisection on the Steffen cubic of the segment it lies in",
    "linear": "exactly on the linear segment it lies in",
    "nearest": "at the fastest measured point within the cap (the nearest read reads measured "
    "points only)",
    "calculator": "by bisection on the calculator's cubic of the segment it lies in",
}
RATIO_NAMES = {
    "interactivity_at_cost_cap": "ratio of the highest interactivities within the cost cap",
    "latency_at_cost_cap": "ratio of the lowest latencies within the cost cap",
    "users_per_mw": "ratio of the users per MW at the target",
}
BASES = {"measured": "measured", "tdp": "TDP", "provisioned": "provisioned all-in"}


LOWER_BOUND = ", a lower bound"


WHOSE_PUE = {"system": "its own", "fleet": "the fleet's", "tco": "its tco"}  # by pue_from


def _interval(
    found: object, fmt: Fmt = number, one_sided: object = None, word: str = "at least"
) -> Md:
    """The interval column: two ends, or the one-sided bound of a read that is a bound."""
    got = pair(found)
    if got:
        return Md("{} to {}").format(fmt(got[0]), fmt(got[1]))
    if is_number(one_sided):
        return Md("{} {} (one-sided)").format(Md(word), fmt(one_sided))
    return Md(DASH)


def _one_sided(ctx: Context, fid: str, what: str, value: object, unit: str, fmt: Fmt,
               name: str, side: str = "low") -> None:  # fmt: skip
    """figures.csv's row for a one-sided bound, named as the report's `at least` names it."""
    if is_number(value):
        word = "lower" if side == "low" else "upper"
        ctx.fig.add(f"{fid}_one_sided_{side}", f"{what}, one-sided {level(ctx)} {word} bound",
                    value, unit, fmt(value), system=name)  # fmt: skip


def _knot_text(knot: JsonObject, latency: bool) -> Md:
    """A knot's place on the read's axis: tok/s/user, or its latency in ms."""
    x = knot.get("interactivity_tok_s_user")
    if latency:
        return speed_text(1000.0 / x) if is_number(x) and x > 0 else Md(DASH)
    return speed_text(x)


def _cap_row(ctx: Context, name: str, read: JsonObject) -> JsonObject:
    status = read.get("status")
    fid = f"{name}.fleet.cost_cap.{read.get('scenario')}"
    latency = read.get("axis") == "latency"
    key, unit = ("latency_ms", "ms") if latency else ("interactivity", "tok/s/user")
    value = read.get("latency_ms" if latency else "interactivity_tok_s_user")
    knots = read.get("knots") or []
    what = (f"lowest {latency_name(ctx)} within the cost cap" if latency
            else "highest interactivity within the cost cap")  # fmt: skip
    what += (", an upper bound" if latency else LOWER_BOUND) * (status == "at_least")
    shown = ctx.n(f"{fid}.{key}", what, value, unit, speed_text, system=name)
    if status == "met":
        ends = [_knot_text(k, latency) for k in knots[:2]]  # by interactivity: latency falls
        where = Md("between {} and {}").format(*(ends[::-1] if latency else ends))
    elif status == "at_least":
        shown = Md("at most {}" if latency else "at least {}").format(shown)
        where = Md("the fastest run is within the cap")
    else:
        shown = Md("cannot meet the cap")
        slowest = knots[0] if knots else {}
        where = Md("lowest cost {} at {} {}").format(
            usd(read.get("usd_per_million_tokens")), _knot_text(slowest, latency), Md(unit)
        )
    found = pair(read.get(f"{key}_ci"))
    if found:
        name_of = "latency" if latency else "interactivity"
        ctx.fig.add(f"{fid}.{key}_ci_low", f"{name_of} within the cap, interval low",
                    found[0], unit, speed_text(found[0]), system=name)  # fmt: skip
        ctx.fig.add(f"{fid}.{key}_ci_high", f"{name_of} within the cap, interval high",
                    found[1], unit, speed_text(found[1]), system=name)  # fmt: skip
    bound = read.get(f"{key}_one_sided_ci")
    _one_sided(ctx, f"{fid}.{key}", f"{'latency' if latency else 'interactivity'} within the cap",
               bound, unit, speed_text, name, "high" if latency else "low")  # fmt: skip
    return {
        "system": ctx.label(name),
        "price": Md("{}/GPU-h ({})").format(
            usd(read.get("usd_per_gpu_hour")), escape(read.get("scenario"))
        ),
        "interactivity": shown,
        "interval": _interval(
            read.get(f"{key}_ci"), speed_text, bound, "at most" if latency else "at least"
        ),
        "where": where,
        "throughput": number(read.get("throughput_per_gpu")),
    }


def _users_row(ctx: Context, name: str, entry: JsonObject) -> JsonObject:
    users = entry.get("users_per_mw")
    if not users:
        return {"system": ctx.label(name), "missing": escape_prose(entry.get("users_per_mw_note"))}
    fid = f"{name}.fleet.users_per_mw"
    what = "concurrent users per MW at the target" + LOWER_BOUND * bool(users.get("bound"))
    value = ctx.n(fid, what, users.get("users_per_mw"), "users/MW", fixed(0), system=name)
    found = pair(users.get("users_per_mw_ci"))
    if found:
        ctx.fig.add(f"{fid}_ci_low", "users per MW, interval low", found[0], "users/MW",
                    fixed(0)(found[0]), system=name)  # fmt: skip
        ctx.fig.add(f"{fid}_ci_high", "users per MW, interval high", found[1], "users/MW",
                    fixed(0)(found[1]), system=name)  # fmt: skip
    bound = users.get("users_per_mw_one_sided_ci")
    _one_sided(ctx, fid, "users per MW", bound, "users/MW", fixed(0), name)
    return {
        "system": ctx.label(name),
        "missing": None,
        "output": fixed(1)(users.get("output_throughput_per_gpu")),
        "streams": fixed(2)(users.get("streams_per_gpu")),
        "power": Md("{} W ({}){}").format(
            number(users.get("watts_per_gpu")),
            escape(BASES.get(users.get("basis"), "?")),
            Md(", PUE {}").format(number(users["pue"])) if is_number(users.get("pue")) else Md(""),
        ),
        "gpus": fixed(1)(users.get("gpus_per_mw")),
        "users": Md("at least {}").format(value) if users.get("bound") else value,
        "interval": _interval(users.get("users_per_mw_ci"), fixed(0), bound),
    }


def _ratios(ctx: Context, fleet: JsonObject, quantity: str) -> list[Md]:
    out = []
    for r in fleet.get("ratios") or []:
        if r.get("quantity") != quantity or not is_number(r.get("ratio")):
            continue
        fid = f"{r['system']}.fleet.{quantity}_ratio"
        if r.get("scenario"):
            fid += f".{r['scenario']}"
        shown = ctx.n(fid, RATIO_NAMES[quantity], r["ratio"], "x", ratio,
                      system=r["system"])  # fmt: skip
        text = Md("{} / {}: {}").format(ctx.label(r["system"]), ctx.label(r["baseline"]), shown)
        found = pair(r.get("ratio_ci"))
        if found:
            text += Md(" ({} CI {})").format(Md(level(ctx)), _interval(r["ratio_ci"], ratio))
            if found[0] <= 1 <= found[1]:
                text += Md(", within measurement noise")
        out.append(text)
    return out


def read_axis(latency: bool) -> str:
    return "latency" if latency else "interactivity"


def fleet_view(ctx: Context) -> JsonObject | None:
    """Rows of the section, or None without a `fleet` block."""
    fleet = ctx.results.get("fleet")
    if not fleet:
        return None
    systems = fleet.get("systems") or {}
    caps: list[JsonObject] = []
    notes: list[Md] = []
    users: list[JsonObject] = []
    for name in ctx.order:
        entry = systems.get(name)
        if entry is None:
            continue
        caps.extend(_cap_row(ctx, name, read) for read in entry.get("cost_cap") or [])
        if fleet.get("cost_cap_usd_per_million_tokens") and entry.get("cost_cap_note"):
            notes.append(Md("{}: {}").format(ctx.label(name), escape_prose(entry["cost_cap_note"])))
        users.append(_users_row(ctx, name, entry))
    target = (ctx.conditions.get("latency") or {}).get("target") or {}
    cap = fleet.get("cost_cap_usd_per_million_tokens")
    reads = [read for entry in systems.values() for read in entry.get("cost_cap") or []]
    latency = any(read.get("axis") == "latency" for read in reads)
    key = "latency_ms" if latency else "interactivity"
    return {
        "cap": ctx.n("fleet.cost_cap", "cost cap", cap, "USD/Mtok", usd) if cap else None,
        "basis": escape(fleet.get("token_basis") or "total"),
        "utilization": percent(fleet.get("utilization"), 0),
        "level": Md(level(ctx)),
        "caps": caps,
        "cap_notes": notes,
        "cap_ratios": _ratios(ctx, fleet, f"{read_axis(latency)}_at_cost_cap"),
        "cap_intervals": any(
            pair(read.get(f"{key}_ci")) or is_number(read.get(f"{key}_one_sided_ci"))
            for read in reads
        ),
        "cap_what": Md("lowest {}").format(latency_name(ctx))
        if latency
        else Md("highest interactivity"),
        "cap_column": Md("Lowest {} (ms)").format(latency_name(ctx))
        if latency
        else Md("Highest interactivity (tok/s/user)"),
        "cap_ratio_what": Md("latencies (below 1: the system is faster)")
        if latency
        else Md("interactivities"),
        "target": number(target.get("interactivity_tok_s_user")),
        "users": users,
        "users_read": any(not u.get("missing") for u in users),
        "users_ratios": _ratios(ctx, fleet, "users_per_mw"),
    }


def footnote(ctx: Context) -> Md | None:
    """How this build's reads were computed, each sentence only where its fact holds."""
    fleet = ctx.results.get("fleet")
    if not fleet:
        return None
    named = [(n, e) for n in ctx.order if (e := (fleet.get("systems") or {}).get(n)) is not None]
    reads = [read for _, e in named for read in e.get("cost_cap") or []]
    users = [u for _, e in named if (u := e.get("users_per_mw"))]
    parts = [Md("Fleet reads (InferenceX's fleet planner).")]
    if reads:
        parts.append(_cap_method(ctx, fleet, reads))
    if users:
        parts.append(_users_method(ctx, users))
    some_pue = any(is_number(u.get("pue")) for u in users)
    powers = [_power(ctx, n, u, some_pue) for n, e in named if (u := e.get("users_per_mw"))]
    if powers:
        parts.append(Md("Power: ") + Md("; ").join(powers) + Md("."))
    two = any(pair(r.get(f"{_key(r)}_ci")) for r in reads) or any(
        pair(u.get("users_per_mw_ci")) for u in users
    )
    upper = any(is_number(r.get("latency_ms_one_sided_ci")) for r in reads)
    lower = any(is_number(r.get("interactivity_one_sided_ci")) for r in reads) or any(
        is_number(u.get("users_per_mw_one_sided_ci")) for u in users
    )
    one = upper or lower
    if two or one:
        parts.append(
            Md("Intervals: every bootstrap replicate's frontier read the same way{}.").format(
                Md(
                    "; a read that is a bound has a one-sided {} bound from its replicates' "
                    "reads: {} (a replicate without a read counted past every value)"
                ).format(Md(level(ctx)), Md(_tails(ctx, lower, upper)))
                if one
                else Md("")
            )
        )
    return Md(" ").join(parts)


def _key(read: JsonObject) -> str:
    return "latency_ms" if read.get("axis") == "latency" else "interactivity"


def _tails(ctx: Context, lower: bool, upper: bool) -> str:
    """Which quantile gives the bounds shown: `the 5% quantile` (lower), `the 95%` (upper)."""
    confidence = (ctx.results.get("uncertainty") or {}).get("confidence") or 0.95
    low = round((1 - confidence) * 100, 6)
    words = [f"the {low:g}% quantile for a lower bound"] * lower
    words += [f"the {100 - low:g}% quantile for an upper bound"] * upper
    return " and ".join(words)


def _cap_method(ctx: Context, fleet: JsonObject, reads: list[JsonObject]) -> Md:
    """The cost-cap read: the cost formula, how the crossing was found, the bounds it met."""
    statuses = {r.get("status") for r in reads}
    latency = any(r.get("axis") == "latency" for r in reads)
    method = (ctx.conditions.get("latency") or {}).get("read") or "steffen"
    what = Md(latency_name(ctx)) if latency else Md("interactivity")
    text = Md(
        "Cost per million {basis} tokens = price per GPU-hour / (counted tokens per GPU-hour × "
        "utilization {util}), billed GPUs paid for as in the cost table. Along each frontier "
        "throughput falls as {falls}, so the cap holds {upto} the read throughput falls "
        "to price × 10^6 / (cap × 3600 × utilization)"
    ).format(
        basis=escape(fleet.get("token_basis") or "total"),
        util=percent(fleet.get("utilization"), 0),
        falls=Md("the {} falls").format(what) if latency else Md("interactivity rises"),
        upto=Md("down to the latency at which") if latency else Md("up to where"),
    )
    if "met" in statuses:
        text += Md("; that {} is found {}{}").format(
            what, Md(CAP_READS.get(method, CAP_READS["steffen"])),
            Md(" along latency") if latency else Md(""),
        )  # fmt: skip
    clauses = [Md("never beyond the measured range")]
    if "cannot_meet" in statuses:
        clauses.append(Md("when even the slowest run costs more, the cap cannot be met"))
    if "at_least" in statuses:
        clauses.append(
            Md("when the fastest run is within it, the read is a bound: {} that run's {}").format(
                Md("at most") if latency else Md("at least"), what
            )
        )
    return text + Md(", ") + Md("; ").join(clauses) + Md(".")


def _users_method(ctx: Context, users: list[JsonObject]) -> Md:
    """Users per MW: the formula, its PUE, and the bound a too-easy target gives."""
    pues = [u.get("pue") for u in users]
    text = Md(
        "Users per MW = output tokens/s per GPU read at the target on the output-token "
        "frontier / the target tok/s per user (concurrent streams per GPU; input tokens are "
        "not streams) × GPUs per MW (10^6 W / {power})"
    ).format(
        power=Md("(power per GPU × PUE)") if any(is_number(p) for p in pues)
        else Md("power per GPU"),
    )  # fmt: skip
    if not any(is_number(p) for p in pues):
        text += Md("; no PUE declared, so IT power as declared")
    if any(u.get("bound") for u in users):
        text += Md("; a target easier than every run reads the best run's output, a lower bound")
    return text + Md(".")


def _power(ctx: Context, name: str, users: JsonObject, some_pue: bool) -> Md:
    """One system's power per GPU, its basis, its PUE (and whose) and its source."""
    pue = users.get("pue")
    whose = WHOSE_PUE.get(str(users.get("pue_from")), "")
    return Md("{} {} W per GPU, {}{}, source {}").format(
        ctx.label(name),
        number(users.get("watts_per_gpu")),
        escape(BASES.get(str(users.get("basis")), "?")),
        Md(", PUE {} ({})").format(number(pue), Md(whose))
        if is_number(pue)
        else Md(", no PUE (IT power)")
        if some_pue
        else Md(""),
        ctx.source_title(users.get("source")),
    )
