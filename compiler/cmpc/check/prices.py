"""Prices, power and TCO of a system, and the comparison's `cost` block."""

from __future__ import annotations

from dataclasses import dataclass, field

from cmpc.check.context import (
    Context,
)
from cmpc.check.sources import source_ref
from cmpc.check.values import Field, listing
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st

DEFAULT_MAX_PRICE_AGE_DAYS = 365


@dataclass(frozen=True)
class CostBlock:
    """The `cost` block: its IR, and what the cross-block rules need that the IR does not keep."""

    cost: ir.Cost = field(default_factory=ir.Cost)
    max_price_age_days: float = DEFAULT_MAX_PRICE_AGE_DAYS
    scenario_span: Span | None = None


def read_price(ctx: Context, field: Field, pointer: str) -> ir.Price | None:
    ctx.origin(pointer, field.span)
    positional, opts = ctx.read.options(field, V.PRICE_OPTIONS)
    got = ctx.read.quantity(
        Field(field.key, positional, field.span, field.key_span), units.GPU_HOUR_PRICE
    )
    basis = ctx.read.word(opts["basis"][0], V.PRICE_BASES) if "basis" in opts else None
    if "basis" not in opts:
        ctx.fail(
            "E106",
            "a price needs a `basis`",
            field.key_span,
            label="on-demand, rental, owning, revenue ...?",
            notes=(f"bases: {listing(V.PRICE_BASES)}",),
            help="add e.g. `basis owning`",
        )
    if basis == "revenue":
        ctx.fail(
            "E115",
            "a revenue price cannot be used as a cost",
            opts["basis"][0].value_span,
            label="token revenue, not infrastructure cost",
            notes=(
                "revenue per GPU-hour is what tokens sell for; cost per token needs what the "
                "GPU-hour costs",
            ),
            help="state the figure as a `claim { kind revenue ... }`, or give a cost basis",
        )
        return None
    scenario: str | None = basis
    if "scenario" in opts:
        atoms = opts["scenario"][0].atoms
        if len(atoms) == 1 and isinstance(atoms[0], st.Name):
            scenario = atoms[0].value
        else:
            ctx.read.expect(opts["scenario"][0], "a scenario name", "owning")
    source = source_ref(ctx, opts["source"][0]) if "source" in opts else None
    as_of = ctx.read.date(opts["as_of"][0]) if "as_of" in opts else None
    if got is None or basis is None:
        return None
    return ir.Price(scenario or basis, got[0], basis, source, as_of)


def read_power(ctx: Context, field: Field) -> ir.Power | None:
    positional, opts = ctx.read.options(field, V.POWER_OPTIONS)
    got = ctx.read.quantity(Field(field.key, positional, field.span, field.key_span), units.POWER)
    basis = ctx.read.word(opts["basis"][0], V.POWER_BASES) if "basis" in opts else None
    if "basis" not in opts:
        ctx.fail(
            "E122",
            "a power figure needs a `basis`",
            field.key_span,
            label="measured, tdp or provisioned?",
            help="add e.g. `basis provisioned` (all-in kW per GPU) or `basis measured`",
        )
    source = source_ref(ctx, opts["source"][0]) if "source" in opts else None
    if got is None or basis is None:
        return None
    return ir.Power(got[0], basis, source)


def read_tco(ctx: Context, field: Field) -> ir.Tco | None:
    one = {k: v[0] for k, v in ctx.read.block(field, V.TCO_KEYS).items()}

    def q(key, dim):
        got = ctx.read.quantity(one[key], dim) if key in one else None
        return got[0] if got else None

    capex = q("capex", units.MONEY_PER_GPU)
    years = ctx.read.number(one["years"], ranges.YEARS) if "years" in one else None
    for key in ("capex", "years"):
        if key not in one:
            ctx.fail(
                "E106",
                f"a `tco` block needs `{key}`",
                field.key_span,
                help="e.g. `tco { capex 45000 USD/gpu; years 5; power 1.4 kW; pue 1.3; ... }`",
            )
    power = q("power", units.POWER)
    electricity = q("electricity", units.ENERGY_PRICE)
    if (power is None) != (electricity is None):
        ctx.fail(
            "E106",
            "`tco` needs both `power` and `electricity` to cost energy",
            field.key_span,
            help="add the missing one, e.g. `electricity 0.10 USD/kWh`",
        )
    if capex is None or years is None:
        return None
    return ir.Tco(
        capex_usd_per_gpu=capex,
        years=years,
        power_watts=power,
        pue=ctx.read.number(one["pue"], ranges.PUE) if "pue" in one else 1.0,
        electricity_usd_per_kwh=electricity,
        hosting_usd_per_gpu_hour=q("hosting", units.GPU_HOUR_PRICE) or 0.0,
        ops_usd_per_gpu_hour=q("ops", units.GPU_HOUR_PRICE) or 0.0,
        source=source_ref(ctx, one["source"]) if "source" in one else None,
        as_of=ctx.read.date(one["as_of"]) if "as_of" in one else None,
    )


def read_cost(ctx: Context, field: Field) -> CostBlock:
    ctx.origin("/cost", field.span)
    one = {k: v[0] for k, v in ctx.read.block(field, V.COST_KEYS).items()}
    utilization = ctx.read.fraction(one["utilization"]) if "utilization" in one else None
    per = ctx.read.word(one["per_million"], V.COST_BASES) if "per_million" in one else "total"
    blend_in = blend_out = None
    if "blend" in one:
        _, opts = ctx.read.options(one["blend"], V.BLEND_OPTIONS)
        blend_in = ctx.read.number(opts["input"][0], ranges.RATIO) if "input" in opts else None
        blend_out = ctx.read.number(opts["output"][0], ranges.RATIO) if "output" in opts else None
    if per == "blended" and (blend_in is None or blend_out is None):
        ctx.fail(
            "E106",
            "`per_million blended` needs `blend input N output M`",
            one["per_million"].span,
            help="e.g. `blend input 3 output 1` (Artificial Analysis' 3:1)",
        )
    scenario = None
    if "scenario" in one:
        atoms = one["scenario"].atoms
        if len(atoms) == 1 and isinstance(atoms[0], st.Name):
            scenario = atoms[0].value
        else:
            ctx.read.expect(one["scenario"], "a price scenario", "owning")
    max_price_age = DEFAULT_MAX_PRICE_AGE_DAYS
    if "max_price_age" in one:
        got = ctx.read.quantity(one["max_price_age"], units.TIME)
        if got:
            max_price_age = got[0] / 86400
    cost = ir.Cost(
        utilization=utilization or 1.0,
        per_million=per or "total",
        blend_input=blend_in,
        blend_output=blend_out,
        scenario=scenario,
    )
    scenario_span = one["scenario"].value_span if "scenario" in one else None
    return CostBlock(cost, max_price_age, scenario_span)
