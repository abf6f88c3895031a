"""The assumptions section: every price, power and TCO figure with its source and date."""

from __future__ import annotations

from collections.abc import Callable

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, is_number
from cmpc.report.sections.cost import tco_hourly
from cmpc.report.text import (
    DASH,
    Md,
    escape,
    footnote_key,
    number,
    percent,
    usd,
)
from cmpc.report.words import PUE_FROM


def assumptions(ctx: Context) -> list[JsonObject]:
    rows = []
    for name in ctx.order:
        irs = ctx.ir_systems.get(name) or {}
        for p in irs.get("prices") or []:
            v = p.get("usd_per_gpu_hour")
            scenario = p.get("scenario") or p.get("basis")
            shown = ctx.n(
                f"{name}.price.{footnote_key(scenario)}",
                f"price per GPU-hour ({scenario})",
                v,
                "USD/gpu/h",
                usd,
                system=name,
                source=ctx.price_plain(p),
            )
            rows.append(
                {
                    "system": ctx.label(name),
                    "item": Md("price ({})").format(scenario),
                    "value": shown + Md(" per GPU-hour") + ctx.price_mark(name, p),
                    "basis": escape(p.get("basis") or DASH),
                    "source": ctx.price_source_md(p),
                    "date": ctx.price_date_md(p),
                }
            )
        billing = ctx.billing(name)
        if billing is not None:
            rows.append(
                {
                    "system": ctx.label(name),
                    "item": Md("GPUs billed"),
                    "value": Md("{} billed, {} used").format(billing[0], billing[1]),
                    "basis": Md("cost and per-dollar figures pay for every billed GPU"),
                    "source": Md("`--set`")
                    if ctx.given_by(f"system.{name}.billed_gpus") != "spec"
                    else Md("spec"),
                    "date": Md(DASH),
                }
            )
        pw = irs.get("power") or {}
        if is_number(pw.get("watts_per_gpu")):
            watts = ctx.n(
                f"{name}.watts_per_gpu",
                "power per GPU",
                pw["watts_per_gpu"],
                "W",
                system=name,
                source="spec",
            )
            rows.append(
                {
                    "system": ctx.label(name),
                    "item": Md("power per GPU"),
                    "value": watts + Md(" W"),
                    "basis": escape(pw.get("basis") or DASH),
                    "source": ctx.source_title(pw.get("source")),
                    "date": ctx.source_date(pw.get("source")),
                }
            )
        energy = (ctx.systems.get(name) or {}).get("energy") or {}
        if is_number(energy.get("pue")) and energy.get("pue_from") != "tco":  # tco's: below
            rows.append(
                {
                    "system": ctx.label(name),
                    "item": Md("PUE"),
                    "value": ctx.n(f"{name}.pue", "PUE", energy["pue"], "x", system=name,
                                   source="spec"),
                    "basis": Md("facility power = power per GPU \u00d7 PUE ({})").format(
                        Md(PUE_FROM.get(str(energy.get("pue_from")), "stated"))
                    ),
                    "source": ctx.source_title(pw.get("source"))
                    if energy.get("pue_from") == "system"
                    else Md(DASH),
                    "date": ctx.source_date(pw.get("source"))
                    if energy.get("pue_from") == "system"
                    else Md(DASH),
                }
            )  # fmt: skip
        tco = irs.get("tco") or {}
        if tco:

            def t(
                key: str,
                unit: str,
                fmt: Callable[[float], Md] = number,
                *,
                name: str = name,
                tco: JsonObject = tco,
            ) -> Md:
                return ctx.n(
                    f"{name}.tco.{key}",
                    f"TCO {key}",
                    tco.get(key),
                    unit,
                    fmt,
                    system=name,
                    source="spec",
                )

            parts = [
                ("capex per GPU", t("capex_usd_per_gpu", "USD/gpu", usd)),
                ("depreciation", t("years", "years") + Md(" years")),
                ("TCO power", t("power_watts", "W") + Md(" W")),
                ("PUE", t("pue", "")),
                ("electricity", t("electricity_usd_per_kwh", "USD/kWh", usd) + Md(" per kWh")),
                ("hosting", t("hosting_usd_per_gpu_hour", "USD/gpu/h", usd) + Md(" per GPU-h")),
                ("operations", t("ops_usd_per_gpu_hour", "USD/gpu/h", usd) + Md(" per GPU-h")),
            ]
            for item, value in parts:
                rows.append(
                    {
                        "system": ctx.label(name),
                        "item": Md(item),
                        "value": value,
                        "basis": Md("tco"),
                        "source": ctx.source_title(tco.get("source")),
                        "date": escape(tco.get("as_of") or DASH),
                    }
                )
            derived = tco_hourly(ctx, name)
            if derived is not None:
                rows.append(
                    {
                        "system": ctx.label(name),
                        "item": Md("TCO per GPU-hour (derived)"),
                        "value": derived["arithmetic"],
                        "basis": Md("tco"),
                        "source": Md("cmpc"),
                        "date": escape(tco.get("as_of") or DASH),
                    }
                )
        if is_number(irs.get("cache_hit_rate")):
            rows.append(
                {
                    "system": ctx.label(name),
                    "item": Md("prefix-cache hit rate"),
                    "value": percent(irs["cache_hit_rate"]),
                    "basis": Md("declared"),
                    "source": Md("spec"),
                    "date": Md(DASH),
                }
            )
    cost = ctx.conditions.get("cost") or {}
    rows.append(
        {
            "system": Md("all"),
            "item": Md("utilization"),
            "value": percent(cost.get("utilization")) + ctx.set_mark("cost.utilization"),
            "basis": Md("assumed: share of hours serving at the measured throughput"),
            "source": Md("`--set`") if ctx.given_by("cost.utilization") != "spec" else Md("spec"),
            "date": Md(DASH),
        }
    )
    basis = cost.get("per_million") or "total"
    value = Md("per million {} tokens").format(basis)
    if basis == "blended":
        value += Md(" (input {} : output {})").format(
            number(cost.get("blend_input")), number(cost.get("blend_output"))
        )
    rows.append(
        {
            "system": Md("all"),
            "item": Md("cost token basis"),
            "value": value + ctx.set_mark("cost.per_million"),
            "basis": Md(DASH),
            "source": Md("`--set`") if ctx.given_by("cost.per_million") != "spec" else Md("spec"),
            "date": Md(DASH),
        }
    )
    return rows
