"""The cost section: cost per token per system, the arithmetic, relative cost per scenario."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.text import (
    DASH,
    Md,
    column_digits,
    escape,
    escape_prose,
    fixed,
    footnote_key,
    number,
    percent,
    ratio,
    usd,
)


def cost_view(ctx: Context) -> JsonObject:
    cost = ctx.conditions.get("cost") or {}
    util = cost.get("utilization")
    basis = cost.get("per_million") or "total"
    rows = []
    digits = column_digits(
        get_in(ctx.systems, n, "at_target", "throughput_per_gpu") for n in ctx.order
    )
    for name in ctx.order:
        c = get_in(ctx.systems, name, "cost", default={})
        price = c.get("usd_per_gpu_hour")
        tput = get_in(ctx.systems, name, "at_target", "throughput_per_gpu")
        per_m = c.get("usd_per_million_tokens")
        bound = get_in(ctx.systems, name, "at_target", "bound") == "lower"
        if is_number(price) and is_number(tput) and is_number(util) and is_number(per_m):
            arithmetic = Md("{} / ({} \u00d7 3600 \u00d7 {}) \u00d7 10^6 = {}").format(
                usd(price), fixed(digits)(tput), percent(util), usd(per_m)
            )
            if bound:
                arithmetic += Md(
                    ": the throughput is a lower bound, so this cost is an upper bound"
                )
        elif get_in(ctx.systems, name, "at_target", "reachable") is False:
            arithmetic = Md("the target is unreachable: no throughput, so no cost, there")
        elif is_number(price) and get_in(ctx.systems, name, "at_target", "relative"):
            arithmetic = Md("no absolute throughput: only the ratio below is known")
        elif is_number(price):
            arithmetic = Md("no throughput on the cost's token basis")
        else:
            arithmetic = Md("no price declared")
        rows.append(
            {
                "system": ctx.label(name),
                "price": ctx.price_shown(name) + ctx.price_mark(name)
                if is_number(price)
                else Md(DASH),
                "throughput": ctx.n(
                    f"{name}.throughput_per_gpu",
                    "throughput per GPU at the target" + (", a lower bound" if bound else ""),
                    tput,
                    "tok/s/gpu",
                    partial(_throughput_shown, digits=digits, bound=bound),
                    system=name,
                    source=ctx.data_source(name),
                ),
                "per_million": ctx.n(
                    f"{name}.usd_per_million_tokens",
                    f"cost per million {basis} tokens" + (", an upper bound" if bound else ""),
                    per_m,
                    "USD/Mtok",
                    (lambda v: Md("\u2264 ") + usd(v)) if bound else usd,
                    system=name,
                ),
                "arithmetic": arithmetic,
            }
        )
    steps = []
    for c in ctx.results.get("comparisons") or []:
        steps.append(_cost_steps(ctx, c))
    util_shown = ctx.fig.add(
        "cost.utilization", "utilization", util, "fraction", percent(util), source="spec"
    )
    return {
        "rows": rows,
        "steps": steps,
        "utilization": util_shown + ctx.set_mark("cost.utilization"),
        "basis": escape(basis),
        "scenarios": scenario_costs(ctx),
    }


def _throughput_shown(value: float, digits: int, bound: bool) -> Md:
    """A throughput in the cost table's column format, `≥` before a lower bound."""
    return (Md("\u2265 ") if bound else Md("")) + fixed(digits)(value)


def _cost_steps(ctx: Context, c: JsonObject) -> dict[str, Any]:
    name, base = c.get("system"), c.get("baseline")
    pg = c.get("per_gpu_throughput_ratio")
    pr = c.get("price_ratio")
    cr = c.get("cost_ratio")
    lines: list[Md] = []
    out = {"system": ctx.label(name), "baseline": ctx.label(base), "lines": lines}
    if not is_number(pg):
        lines.append(Md("no throughput ratio: no cost consequence can be drawn"))
        return out
    eq = 1 / pg
    ctx.n(
        f"{name}.per_gpu_throughput_ratio",
        "per-GPU throughput ratio",
        pg,
        "x",
        ratio,
        system=name,
    )
    ctx.n(
        f"{name}.per_gpu_throughput_change",
        "per-GPU throughput change",
        pg - 1,
        "fraction",
        lambda v: percent(v, signed=True),
        system=name,
    )
    ctx.n(
        f"{name}.cost_ratio_at_equal_price",
        "cost ratio at equal prices",
        eq,
        "x",
        ratio,
        system=name,
    )
    if is_number(pr):
        ctx.n(f"{name}.price_ratio", "price ratio to baseline", pr, "x", ratio, system=name)
    magnitude = lambda v: percent(abs(v))  # noqa: E731  (the direction is in words)
    ctx.n(
        f"{name}.per_gpu_throughput_change_magnitude",
        "per-GPU throughput change, size",
        pg - 1,
        "fraction",
        magnitude,
        system=name,
    )
    ctx.n(
        f"{name}.cost_change_at_equal_price",
        "cost change at equal prices, size",
        eq - 1,
        "fraction",
        magnitude,
        system=name,
    )
    if is_number(cr):
        ctx.n(
            f"{name}.cost_change",
            "cost change at the declared prices, size",
            cr - 1,
            "fraction",
            magnitude,
            system=name,
        )
    lines.append(
        Md("Throughput per GPU: {}\u00d7 ({}).").format(ratio(pg), percent(pg - 1, signed=True))
    )
    lines.append(
        Md("At equal prices, cost per token scales by 1 / {} = {}: {} {}").format(
            ratio(pg), ratio(eq), percent(abs(eq - 1)), "lower" if eq < 1 else "higher"
        )
        + (Md(" (not {}).").format(percent(abs(pg - 1))) if not math.isclose(pg, 1) else Md("."))
    )
    if is_number(pr) and is_number(cr):
        ps = get_in(ctx.systems, name, "cost", "usd_per_used_gpu_hour")
        pb = get_in(ctx.systems, base, "cost", "usd_per_used_gpu_hour")
        for n in (name, base):
            billing = ctx.billing(n)
            if billing is not None:
                lines.append(
                    Md("{} is billed for {} GPUs and runs on {}: {}.").format(
                        ctx.label(n), billing[0], billing[1], ctx.used_price_shown(n)
                    )
                )
        lines.append(
            Md(
                "At the declared prices, cost per token scales by ({} / {}) / {} = {} / {} = {}: "
                "{} {}."
            ).format(
                usd(ps),
                usd(pb),
                ratio(pg),
                ratio(pr),
                ratio(pg),
                ratio(cr),
                percent(abs(cr - 1)),
                "lower" if cr < 1 else "higher",
            )
        )
    elif c.get("cost_unavailable"):
        lines.append(
            Md("At the declared prices: not computable ({}).").format(
                escape_prose(c["cost_unavailable"])
            )
        )
    bound = c.get("bound")
    if bound == "neither":
        lines.append(
            Md(
                "Both throughputs are lower bounds, so these ratios are ratios of bounds, not "
                "bounds themselves: the cost at the target may be lower or higher on either side."
            )
        )
    elif bound in ("lower", "upper"):
        side = ctx.label(name if bound == "lower" else base)
        lines.append(
            Md(
                "{}'s throughput is a lower bound, so the throughput ratio is {} bound and the "
                "cost ratios are {} bounds."
            ).format(
                side,
                Md("a lower") if bound == "lower" else Md("an upper"),
                Md("upper") if bound == "lower" else Md("lower"),
            )
        )
    return out


def scenario_costs(ctx: Context) -> list[JsonObject]:
    """Cost per token relative to the baseline under equal prices and each price scenario."""
    base = ctx.baseline
    ratios = {base: 1.0}
    for c in ctx.results.get("comparisons") or []:
        if is_number(c.get("per_gpu_throughput_ratio")):
            ratios[c.get("system")] = c["per_gpu_throughput_ratio"]
    prices: dict[str, dict[str, float]] = {}
    for name in ctx.order:
        for sc in get_in(ctx.systems, name, "cost", "scenarios", default=[]):
            if is_number(sc.get("usd_per_gpu_hour")):
                prices.setdefault(sc.get("scenario") or "price", {})[name] = sc["usd_per_gpu_hour"]
    for name in ctx.order:
        tco = tco_hourly(ctx, name)
        if tco is not None and name not in prices.get("tco", {}):
            prices.setdefault("tco", {})[name] = tco["total"]
    out: list[dict[str, Any]] = [
        {
            "scenario": "equal prices",
            "values": {n: (1 / ratios[n] if ratios.get(n) else None) for n in ctx.order},
        }
    ]
    for scenario in sorted(prices):
        per = prices[scenario]
        values: dict[str, float | None] = {}
        for n in ctx.order:
            if n in per and base in per and n in ratios and ratios[n]:
                values[n] = per[n] / per[base] / ratios[n]
            else:
                values[n] = None
        out.append({"scenario": scenario, "values": values})
    for row in out:
        row["shown"] = {
            n: ctx.fig.add(
                f"{n}.relative_cost.{footnote_key(row['scenario'])}",
                f"cost per token relative to baseline ({row['scenario']})",
                v,
                "x",
                ratio(v),
                system=n,
                source="cmpc",
            )
            if is_number(v)
            else Md(DASH)
            for n, v in row["values"].items()
        }
    return out


def tco_hourly(ctx: Context, name: str) -> dict[str, Any] | None:
    """A system's TCO per GPU-hour, from its parts, with the arithmetic shown."""
    tco = (ctx.ir_systems.get(name) or {}).get("tco") or {}
    capex, years = tco.get("capex_usd_per_gpu"), tco.get("years")
    if not (is_number(capex) and is_number(years) and years > 0):
        return None
    watts, pue = tco.get("power_watts"), tco.get("pue") or 1.0
    kwh = tco.get("electricity_usd_per_kwh")
    hosting = tco.get("hosting_usd_per_gpu_hour") or 0.0
    ops = tco.get("ops_usd_per_gpu_hour") or 0.0
    hours = years * 365 * 24
    energy = watts / 1000 * pue * kwh if is_number(watts) and is_number(kwh) else 0.0
    total = capex / hours + energy + hosting + ops
    terms = [Md("{} / ({} \u00d7 8,760 h)").format(usd(capex), number(years))]
    if is_number(watts) and is_number(kwh):
        terms.append(
            Md("{} kW \u00d7 {} \u00d7 {}/kWh").format(number(watts / 1000), number(pue), usd(kwh))
        )
    terms += [usd(hosting), usd(ops)]
    shown = ctx.fig.add(
        f"{name}.tco_usd_per_gpu_hour",
        "TCO per GPU-hour",
        total,
        "USD/gpu/h",
        usd(total),
        system=name,
        source="cmpc",
    )
    return {"total": total, "arithmetic": Md(" + ").join(terms) + Md(" = ") + shown}
