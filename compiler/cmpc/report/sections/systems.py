"""The Results section: one table per system, reads at equal interactivity, all comparisons."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from cmpc.compute.frontier import Point, read_at
from cmpc.compute.frontier import by_latency as on_latency_axis
from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.readwords import (
    axis_unit,
    by_latency,
    frontier_range,
    latency_name,
    lower_bound_note,
    point_position,
    slo_text,
)
from cmpc.report.text import (
    DASH,
    Md,
    code,
    column_digits,
    escape,
    escape_prose,
    fixed,
    gigabytes,
    number,
    percent,
    ratio,
    usd,
)
from cmpc.report.words import (
    PUE_FROM,
    READS,
    load_text,
)


def _round_steps(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round values (multiples of 1, 2 or 5 x 10^k) inside [lo, hi], about `count` of them."""
    span = hi - lo
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(lo / step) * step
    values = []
    k = 0
    while first + k * step <= hi + 1e-9:
        values.append(round(first + k * step, 10))
        k += 1
    return values


def system_views(ctx: Context) -> list[JsonObject]:
    return [_system(ctx, n) for n in ctx.order]


def _system(ctx: Context, name: str) -> dict[str, Any]:
    s = ctx.systems.get(name) or {}
    irs = ctx.ir_systems.get(name) or {}
    at = s.get("at_target") or {}
    unit = at.get("unit") or ctx.unit()
    rows: list[tuple[Md, Md]] = []
    acc = s.get("accelerator") or irs.get("accelerator")
    count = irs.get("count")
    if acc:
        rows.append(
            (Md("Accelerator"), Md("{} \u00d7 {}").format(acc, count) if count else escape(acc))
        )
    gpus = s.get("gpus")
    shown = ctx.fig.add(
        f"{name}.gpus", "GPUs", gpus, "gpus", number(gpus), system=name, source="spec"
    )
    rows.append((Md("GPUs (the per-GPU denominator)"), shown + ctx.parallel_note(irs)))
    billing = ctx.billing(name)
    if billing is not None:
        billed = ctx.fig.add(
            f"{name}.gpus_billed",
            "GPUs billed",
            billing[0],
            "gpus",
            number(billing[0]),
            system=name,
            source="spec",
        )
        rows.append((Md("GPUs billed (cost and per-dollar figures)"), billed))
    mem = irs.get("memory_bytes")
    if is_number(mem):
        text = Md("{} per GPU").format(gigabytes(mem))
        if is_number(irs.get("usable_memory_bytes")):
            text += Md(" (usable {})").format(gigabytes(irs["usable_memory_bytes"]))
        rows.append((Md("Memory"), text))
    if irs.get("interconnect"):
        rows.append((Md("Interconnect"), escape(irs["interconnect"])))
    engine = s.get("engine") or irs.get("engine")
    if engine:
        version = s.get("engine_version") or irs.get("engine_version")
        text = Md("{} {}").format(engine, version or Md("(version not stated)"))
        if irs.get("image"):
            text += Md(", image {}").format(code(irs["image"]))
        rows.append((Md("Engine"), text))
    if irs.get("model"):
        rows.append((Md("Model"), escape(irs["model"])))
    for key, title in (
        ("precision", "Precision"),
        ("speculative", "Speculative decoding"),
        ("scheduler", "Scheduler"),
    ):
        value = irs.get(key)
        if isinstance(value, dict) and value:
            pair = Md("{} {}")
            rows.append(
                (Md(title), Md(", ").join(pair.format(k, v) for k, v in sorted(value.items())))
            )
    rows.append((Md("Data"), ctx.origin_text(name)))
    where = "at the target" if ctx.target() else "with no latency target"
    rows.append((Md("Throughput {} ({})").format(where, unit), _throughput_text(ctx, name, s, at)))
    load = get_in(ctx.results, "load", "systems", name)
    if isinstance(load, list) and load:
        rows.append((Md("Load conditions"), load_text(load)))
    comp = ctx.comparisons.get(name)
    if comp and is_number(comp.get("throughput_ratio")):
        tr = comp["throughput_ratio"]
        shown = ctx.fig.add(
            f"{name}.throughput_ratio",
            "throughput ratio to baseline",
            tr,
            "x",
            ratio(tr),
            system=name,
            source="cmpc",
        )
        against = Md(" (to {})").format(ctx.label(comp.get("baseline")))
        rows.append((Md("Relative to the baseline"), shown + Md("\u00d7") + against))
    elif name == ctx.baseline:
        one = ctx.n(
            f"{name}.throughput_ratio",
            "throughput ratio to baseline",
            1.0,
            "x",
            ratio,
            system=name,
        )
        rows.append((Md("Relative to the baseline"), one + Md("\u00d7 (the baseline)")))
    rows.append((Md("Prefix-cache hit rate"), _hit_rate(ctx, name, s)))
    if s.get("goodput"):
        rows.append(
            (Md("Goodput under the SLOs ({})").format(slo_text(ctx)), _goodput(ctx, name, s))
        )
    cost = s.get("cost") or {}
    if is_number(cost.get("usd_per_gpu_hour")):
        basis = get_in(cost, "price", "basis")
        rows.append(
            (
                Md("Price"),
                ctx.price_shown(name)
                + Md(" per GPU-hour")
                + (Md(" ({})").format(basis) if basis else Md(""))
                + ctx.price_mark(name),
            )
        )
        per_m = cost.get("usd_per_million_tokens")
        basis_t = cost.get("token_basis") or "total"
        label = Md("Cost per million {} tokens").format(basis_t)
        if is_number(per_m):
            upper = at.get("bound") == "lower"
            rows.append(
                (
                    label,
                    ctx.fig.add(
                        f"{name}.usd_per_million_tokens",
                        str(label) + (", an upper bound" if upper else ""),
                        per_m,
                        "USD/Mtok",
                        (Md("\u2264 ") if upper else Md("")) + usd(per_m),
                        system=name,
                        source="cmpc",
                    ),
                )
            )
        else:
            rows.append(
                (
                    label,
                    Md(
                        "not computable: no absolute throughput"
                        if not is_number(at.get("throughput_per_gpu"))
                        else "not computable under this token basis"
                    ),
                )
            )
    energy = s.get("energy") or {}
    if is_number(energy.get("watts_per_gpu")):
        w = energy["watts_per_gpu"]
        shown = ctx.fig.add(
            f"{name}.watts_per_gpu",
            "power per GPU",
            w,
            "W",
            number(w),
            system=name,
            source="spec",
        )
        basis = escape(energy.get("basis") or DASH)
        rows.append((Md("Power"), Md("{} W per GPU ({}){}").format(shown, basis, _pue(ctx, name))))
        if is_number(energy.get("joules_per_token")):
            j = energy["joules_per_token"]
            shown = ctx.fig.add(
                f"{name}.joules_per_token",
                "energy per token",
                j,
                "J/token",
                number(j),
                system=name,
                source="cmpc",
            )
            rows.append((Md("Energy per token"), shown + Md(" J")))
    for note in s.get("notes") or []:
        rows.append((Md("Note"), escape_prose(note)))
    return {
        "name": name,
        "label": ctx.label(name),
        "baseline": name == ctx.baseline,
        "origin": ctx.origin(name),
        "rows": rows,
        "points": _points(ctx, name, s),
        "load_header": load_header(s.get("points") or []),
        "axis_header": axis_header(ctx),
    }


def axis_header(ctx: Context) -> Md:
    """The read axis's column header: `Interactivity (tok/s/user)` or `P90 TTFT (s)`."""
    if by_latency(ctx):
        return Md("{} ({})").format(latency_name(ctx), axis_unit(ctx).symbol)
    return Md("Interactivity (tok/s/user)")


def _row_digits(ctx: Context) -> Callable[[object], Md]:
    """One decimal count for the throughput row: the systems sit side by side in one table."""
    systems = (ctx.systems.get(n) or {} for n in ctx.order)
    reads = (get_in(s, "at_target", "throughput_per_unit") for s in systems)
    return fixed(column_digits(reads))


def _throughput_text(ctx: Context, name: str, s: JsonObject, at: JsonObject) -> Md:
    unit = at.get("unit") or ctx.unit()
    value = at.get("throughput_per_unit")
    if is_number(value):
        knots = at.get("knots") or []
        method = at.get("method")
        bound = at.get("bound") == "lower" and bool(knots)
        shown = ctx.fig.add(
            f"{name}.throughput_at_target",
            f"throughput at target ({unit})"
            + (f", a lower bound measured at {point_position(ctx, knots[0])}" if bound else ""),
            value,
            unit,
            (Md("\u2265 ") if bound else Md("")) + _row_digits(ctx)(value),
            system=name,
            source=ctx.data_source(name),
        )
        text = shown
        if bound:
            return text + Md(" {}, {}").format(unit, lower_bound_note(ctx, at))
        if method in READS and len(knots) == 2:
            lo, hi = knots[::-1] if by_latency(ctx) else knots  # lowest latency first
            text += Md(" (read {} between {} and {})").format(
                method, point_position(ctx, lo), point_position(ctx, hi)
            )
        elif method == "reported":
            text += Md(" (as reported)")
        elif method == "peak" and knots:
            where = point_position(ctx, knots[0])
            if by_latency(ctx):  # 1 / TTFT is no tok/s/user: say the latency
                where = Md("a {} of {}").format(latency_name(ctx), where)
            text += (
                Md(" (peak of the frontier, at {})")
                if len(s.get("points") or []) > 1
                else Md(" (the one run as measured, at {})")
            ).format(where)
        return text
    if at.get("reachable") is False:
        front = s.get("frontier") or []
        xs = [
            p.get("interactivity_tok_s_user")
            for p in front
            if is_number(p.get("interactivity_tok_s_user"))
        ]
        text = Md("unreachable: the target lies outside the measured frontier")
        if xs:
            text += Md(" ({})").format(frontier_range(ctx, front))
        return text + Md("; never extrapolated")
    rel = at.get("relative")
    if rel and is_number(rel.get("ratio")):
        if rel.get("to") == name:
            return Md("not reported in absolute terms: the reference of the published ratio")
        return Md("not reported in absolute terms: only a ratio of {} to {} was published").format(
            ratio(rel["ratio"]), ctx.label(rel.get("to"))
        )
    if is_number(at.get("throughput_per_gpu")):
        return Md("{} tok/s/gpu; not convertible to {}").format(
            number(at["throughput_per_gpu"]), unit
        )
    return Md("not available")


def _goodput(ctx: Context, name: str, s: JsonObject) -> Md:
    """Requests/s per GPU meeting every SLO and the share of requests that do, at the best run."""
    g = s.get("goodput") or {}
    best = g.get("best")
    if not best:
        return Md("not computable: the runs carry no per-request latencies")
    shown = ctx.fig.add(
        f"{name}.goodput",
        "goodput per GPU (best run)",
        best.get("goodput_req_s_per_gpu"),
        "req/s/gpu",
        fixed(4)(best.get("goodput_req_s_per_gpu")),
        system=name,
        source=ctx.data_source(name),
    )
    attained = ctx.fig.add(
        f"{name}.slo_attainment",
        "SLO attainment (best run)",
        best.get("slo_attainment"),
        "fraction",
        percent(best.get("slo_attainment")),
        system=name,
        source=ctx.data_source(name),
    )
    text = Md("{} requests/s per GPU; SLO attainment {} of requests").format(shown, attained)
    runs = g.get("runs") or []
    if len(runs) > 1:
        text += Md(" (the best of {} runs{})").format(
            number(len(runs)),
            Md(", at concurrency {}").format(number(best["concurrency"]))
            if is_number(best.get("concurrency"))
            else Md(""),
        )
    return text


def _hit_rate(ctx: Context, name: str, s: JsonObject) -> Md:
    rate, basis = s.get("hit_rate"), s.get("hit_rate_basis") or "unknown"
    if is_number(rate):
        shown = ctx.fig.add(
            f"{name}.hit_rate",
            "prefix-cache hit rate",
            rate,
            "fraction",
            percent(rate),
            system=name,
            source=basis,
        )
        return Md("{} ({})").format(shown, basis)
    if ctx.ir_systems.get(name, {}).get("cache_hit_rate_unknown"):
        return Md("unknown (stated as not published)")
    return Md("unknown")


def _points(ctx: Context, name: str, s: JsonObject) -> list[dict[str, Any]]:
    front = {
        (p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu"))
        for p in s.get("frontier") or []
    }
    rows = []
    pts = sorted(
        s.get("points") or [],
        key=lambda p: (
            p.get("interactivity_tok_s_user") or 0,
            p.get("throughput_per_gpu") or 0,
            str(p.get("label")),
        ),
    )
    unit = axis_unit(ctx)
    along = by_latency(ctx)  # the column shows the latency, in the target's unit
    axis = [
        unit.of_interactivity(p.get("interactivity_tok_s_user"))
        if along
        else p.get("interactivity_tok_s_user")
        for p in pts
    ]
    shown_x = fixed(column_digits(axis))
    shown_y = fixed(column_digits(p.get("throughput_per_gpu") for p in pts))
    for i, p in enumerate(pts):
        x, y = p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu")
        at = ctx.fig.add(
            f"{name}.point{i}.latency" if along else f"{name}.point{i}.interactivity",
            f"point {latency_name(ctx)}" if along else "point interactivity",
            axis[i],
            unit.symbol if along else "tok/s/user",
            shown_x(axis[i]),
            system=name,
            source=str(p.get("label") or ""),
        )
        if p.get("load"):  # the point's label in the figure
            ctx.fig.add(
                f"{name}.point{i}.load",
                "point load",
                p["load"],
                "",
                escape(p["load"]),
                system=name,
                source=str(p.get("label") or ""),
            )
        rows.append(
            {
                "concurrency": load_cell(p),
                "at": at,  # on the read's axis: interactivity, or latency in the target's unit
                "interactivity": at if not along else number(x),
                "throughput": ctx.fig.add(
                    f"{name}.point{i}.throughput",
                    "point throughput per GPU",
                    y,
                    "tok/s/gpu",
                    shown_y(y),
                    system=name,
                    source=str(p.get("label") or ""),
                ),
                "frontier": (x, y) in front,
                "label": escape(p.get("label") or ""),
            }
        )
    return rows


def load_cell(point: JsonObject) -> Md:
    """A point's load: its concurrency, else `inf (all at once)`, else its load label
    (`4 req/s poisson`, `sync`, `Offline`), else its request rate, else n/a."""
    conc, rate = point.get("concurrency"), point.get("request_rate")
    if is_number(conc):
        return number(conc)
    if rate == "inf":
        return Md("inf (all at once)")
    if point.get("load"):
        return escape(point["load"])
    if is_number(rate):
        return Md("{} req/s").format(number(rate))
    return Md(DASH)


def load_header(points: list[JsonObject]) -> Md:
    """`Concurrency` when every point has one, else `Load` (concurrency or request rate)."""
    if all(is_number(p.get("concurrency")) for p in points):
        return Md("Concurrency")
    return Md("Load (concurrency or request rate)")


def iso_interactivity(ctx: Context) -> JsonObject | None:
    """Headline system and baseline read at several shared interactivities (InferenceX's
    iso-interactivity table), with the same read method; rows where the lead reverses are
    marked, never smoothed over."""
    h = ctx.results.get("headline") or {}
    a, b = h.get("system"), h.get("baseline")
    method = get_in(ctx.conditions, "latency", "read", default="steffen")
    fronts = []
    for name in (a, b):
        pts = get_in(ctx.systems, name, "frontier", default=[]) or []
        front = [
            Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
            for p in pts
            if is_number(p.get("interactivity_tok_s_user"))
            and is_number(p.get("throughput_per_gpu"))
        ]
        if len(front) < 2:
            return None
        fronts.append(front)
    # a duration target: rows at equal latency, in the target's unit, read along latency
    along, unit = by_latency(ctx), axis_unit(ctx)
    if along:
        fronts = [list(on_latency_axis(f)) for f in fronts]  # x = -latency in ms

    def inner(x: float) -> float:
        """A row's value (interactivity, or latency in `unit`) on the fronts' x axis."""
        return -x * unit.ms_per_unit if along else x

    lo = max(f[0].interactivity for f in fronts)
    hi = min(f[-1].interactivity for f in fronts)
    if not lo < hi:
        return None
    if along:
        lo, hi = -hi / unit.ms_per_unit, -lo / unit.ms_per_unit
    xs = set(_round_steps(lo, hi))
    target = (
        unit.of_ms(ctx.target().get("latency_ms"))
        if along
        else get_in(ctx.target(), "interactivity_tok_s_user")
    )
    if is_number(target) and lo <= target <= hi:
        xs.add(float(target))
    reads = []
    for x in sorted(xs):
        va = read_at(fronts[0], inner(x), method).value
        vb = read_at(fronts[1], inner(x), method).value
        if is_number(va) and is_number(vb) and vb > 0:
            reads.append((x, va, vb))
    shown_x = fixed(column_digits(x for x, _, _ in reads))
    shown_a = fixed(column_digits(va for _, va, _ in reads))
    shown_b = fixed(column_digits(vb for _, _, vb in reads))
    rows = []
    for i, (x, va, vb) in enumerate(reads):
        r = va / vb
        lead = r > 1
        fid = f"iso.{i}"
        rows.append(
            {
                "interactivity": ctx.n(
                    f"{fid}.latency" if along else f"{fid}.interactivity",
                    latency_name(ctx) if along else "interactivity",
                    x,
                    unit.symbol if along else "tok/s/user",
                    shown_x,
                    source="cmpc",
                ),
                "system": ctx.n(
                    f"{fid}.{a}",
                    "throughput per GPU",
                    va,
                    "tok/s/gpu",
                    shown_a,
                    system=a,
                    source=f"cmpc, {method} read",
                ),
                "baseline": ctx.n(
                    f"{fid}.{b}",
                    "throughput per GPU",
                    vb,
                    "tok/s/gpu",
                    shown_b,
                    system=b,
                    source=f"cmpc, {method} read",
                ),
                "ratio": ctx.n(f"{fid}.ratio", "per-GPU throughput ratio", r, "x", ratio, system=a),
                "target": is_number(target) and math.isclose(x, target),
                "lead": lead,
            }
        )
    if len(rows) < 2:
        return None
    head = h.get("per_gpu_throughput_ratio")
    reference = head > 1 if is_number(head) else rows[0]["lead"]
    for row in rows:
        row["reversed"] = row["lead"] != reference
    leads = {r["lead"] for r in rows}
    return {
        "system": ctx.label(a),
        "baseline": ctx.label(b),
        "method": escape(method),
        "rows": rows,
        "reverses": len(leads) > 1,
        "target_row": any(r["target"] for r in rows),
        "axis": axis_header(ctx),
        "axis_word": Md("latency" if along else "interactivity"),
        "axis_words": Md("latencies" if along else "interactivities"),
    }


def comparison_rows(ctx: Context) -> list[JsonObject]:
    rows = []
    for c in ctx.results.get("comparisons") or []:
        name = c.get("system")
        mark = {"lower": Md("\u2265 "), "upper": Md("\u2264 ")}.get(c.get("bound") or "", Md(""))
        if not is_number(c.get("throughput_ratio")):
            mark = Md("")
        rows.append(
            {
                "system": ctx.label(name),
                "baseline": ctx.label(c.get("baseline")),
                "throughput_ratio": mark
                + ctx.n(
                    f"{name}.throughput_ratio",
                    "throughput ratio to baseline",
                    c.get("throughput_ratio"),
                    "x",
                    ratio,
                    system=name,
                ),
                "throughput_change": ctx.n(
                    f"{name}.throughput_change",
                    "throughput change to baseline",
                    c["throughput_ratio"] - 1 if is_number(c.get("throughput_ratio")) else None,
                    "fraction",
                    lambda v: percent(v, signed=True),
                    system=name,
                ),
                "cost_equal": ctx.n(
                    f"{name}.cost_ratio_at_equal_price",
                    "cost ratio at equal prices",
                    c.get("cost_ratio_at_equal_price"),
                    "x",
                    ratio,
                    system=name,
                ),
                "cost_declared": ctx.n(
                    f"{name}.cost_ratio",
                    "cost ratio at the declared prices",
                    c.get("cost_ratio"),
                    "x",
                    ratio,
                    system=name,
                ),
                "winner": ctx.label(c["winner"]) if c.get("winner") else Md(DASH),
                "cost_winner": ctx.label(c["cost_winner"]) if c.get("cost_winner") else Md(DASH),
            }
        )
    return rows


def _pue(ctx: Context, name: str) -> Md:
    """`; PUE 1.3 (its `power` line): 1,560 W of facility power per GPU`, or where another
    system states one, that this one's power is IT power; empty when none does."""
    energy = get_in(ctx.systems, name, "energy", default=None) or {}
    pue, watts = energy.get("pue"), energy.get("watts_per_gpu")
    if not is_number(pue) or not is_number(watts):
        others = (get_in(ctx.systems, n, "energy", "pue", default=None) for n in ctx.order)
        return Md("; no PUE stated (IT power)") if any(is_number(p) for p in others) else Md("")
    shown = ctx.fig.add(f"{name}.pue", "PUE", pue, "x", number(pue), system=name, source="spec")
    facility = ctx.fig.add(
        f"{name}.facility_watts_per_gpu",
        "facility power per GPU (power per GPU x PUE)",
        watts * pue,
        "W",
        number(watts * pue),
        system=name,
        source="cmpc",
    )
    return Md("; PUE {} ({}): {} W of facility power per GPU").format(
        shown, Md(PUE_FROM.get(str(energy.get("pue_from")), "stated")), facility
    )
