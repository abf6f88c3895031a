"""Prices, power and TCO of a system, and the comparison's `cost` block."""

from __future__ import annotations

from dataclasses import dataclass, field

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import decode, decode_options
from cmpc.check.sources import source_ref
from cmpc.check.values import Field, listing
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st
from cmpc.syntax.overrides import from_command_line

DEFAULT_MAX_PRICE_AGE_DAYS = ir.DEFAULT_MAX_PRICE_AGE_DAYS
PRICE_PARTS: tuple[V.PricePart, ...] = ("basis", "scenario", "source", "as_of")  # and amount


@dataclass(frozen=True)
class CostBlock:
    """The `cost` block: its IR, and what the cross-block rules need that the IR does not keep."""

    cost: ir.Cost = field(default_factory=ir.Cost)
    max_price_age_days: float = DEFAULT_MAX_PRICE_AGE_DAYS
    scenario_span: Span | None = None


def read_price(ctx: Context, field: Field, pointer: str) -> ir.Price | None:
    ctx.origin(pointer, field.span)
    positional, block = decode_options(ctx, field, V.PRICE, ir.Price)
    got = ctx.read.quantity(
        Field(field.key, positional, field.span, field.key_span), units.GPU_HOUR_PRICE
    )
    basis, basis_field = block.get("basis"), block.field("basis")
    if basis_field is None:  # a rule of its own: the fixture pins its label and note
        ctx.fail(
            "E106",
            "a price needs a `basis`",
            field.key_span,
            label="on-demand, rental, owning, revenue ...?",
            notes=(f"bases: {listing(V.PRICE_BASES)}",),
            help="add e.g. `basis owning`",
        )
    elif basis == "revenue":
        ctx.fail(
            "E115",
            "a revenue price cannot be used as a cost",
            basis_field.value_span,
            label="token revenue, not infrastructure cost",
            notes=(
                "revenue per GPU-hour is what tokens sell for; cost per token needs what the "
                "GPU-hour costs",
            ),
            help="state the figure as a `claim { kind revenue ... }`, or give a cost basis",
        )
        return None
    scenario = _scenario(ctx, block.field("scenario"), "a scenario name") or basis
    source = block.field("source")
    if got is None or basis is None:
        return None
    parts: dict[V.PricePart, tuple[st.Atom, ...]] = {"amount": positional}
    parts |= {k: f.atoms for k in PRICE_PARTS if (f := block.field(k)) is not None}
    given = tuple(k for k, atoms in parts.items() if any(from_command_line(a.span) for a in atoms))
    return ir.Price(
        scenario,
        got[0],
        basis,
        source_ref(ctx, source) if source else None,
        block["as_of"],
        given,
    )


def _scenario(ctx: Context, field: Field | None, what: str) -> str | None:
    """A price scenario's name (`owning`, or one a price declares with `scenario`)."""
    if field is None:
        return None
    if len(field.atoms) == 1 and isinstance(field.atoms[0], st.Name):
        return field.atoms[0].value
    ctx.read.expect(field, what, "owning")
    return None


def read_power(ctx: Context, field: Field) -> ir.Power | None:
    positional, block = decode_options(ctx, field, V.POWER, ir.Power)
    got = ctx.read.quantity(Field(field.key, positional, field.span, field.key_span), units.POWER)
    if "basis" not in block:  # E122, not E106: the fixture pins it
        ctx.fail(
            "E122",
            "a power figure needs a `basis`",
            field.key_span,
            label="measured, tdp or provisioned?",
            help="add e.g. `basis provisioned` (all-in kW per GPU) or `basis measured`",
        )
    source = block.field("source")
    if got is None or block.get("basis") is None:
        return None
    return ir.Power(
        got[0], block["basis"], source_ref(ctx, source) if source else None, block["pue"]
    )


def read_tco(ctx: Context, field: Field) -> ir.Tco | None:
    block = decode(ctx, field, V.TCO, ir.Tco)
    if (block.get("power") is None) != (block.get("electricity") is None):
        ctx.fail(
            "E106",
            "`tco` needs both `power` and `electricity` to cost energy",
            field.key_span,
            help="add the missing one, e.g. `electricity 0.10 USD/kWh`",
        )
    if block.get("capex") is None or block.get("years") is None:
        return None
    source = block.field("source")
    return ir.Tco(
        capex_usd_per_gpu=block["capex"],
        years=block["years"],
        power_watts=block["power"],
        pue=block["pue"],
        electricity_usd_per_kwh=block["electricity"],
        hosting_usd_per_gpu_hour=block["hosting"],
        ops_usd_per_gpu_hour=block["ops"],
        source=source_ref(ctx, source) if source else None,
        as_of=block["as_of"],
    )


def read_cost(ctx: Context, field: Field) -> CostBlock:
    ctx.origin("/cost", field.span)
    block = decode(ctx, field, V.COST, ir.Cost)
    blend_in = blend_out = None
    blend = block.field("blend")
    if blend is not None:
        _, ratios = decode_options(ctx, blend, V.BLEND)
        blend_in, blend_out = ratios["input"], ratios["output"]
    per_million = block.field("per_million")
    if block["per_million"] == "blended" and (blend_in is None or blend_out is None):
        assert per_million is not None  # the default is `total`
        ctx.fail(
            "E106",
            "`per_million blended` needs `blend input N output M`",
            per_million.span,
            help="e.g. `blend input 3 output 1` (Artificial Analysis' 3:1)",
        )
    scenario = block.field("scenario")
    age = block.get("max_price_age")
    max_age = DEFAULT_MAX_PRICE_AGE_DAYS if age is None else age / 86400
    cost = ir.Cost(
        utilization=block["utilization"],
        per_million=block["per_million"],
        blend_input=blend_in,
        blend_output=blend_out,
        scenario=_scenario(ctx, scenario, "a price scenario"),
        max_price_age_days=max_age,
    )
    return CostBlock(
        cost,
        max_age,
        scenario.value_span if scenario else None,
    )
