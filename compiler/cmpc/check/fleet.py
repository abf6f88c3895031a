"""The `fleet` block: the cost cap of the highest-interactivity read, and the PUE of users/MW."""

from __future__ import annotations

from cmpc.check.context import Context
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V


def read_fleet(ctx: Context, field: Field) -> ir.Fleet:
    """`fleet { cost_cap 2.00 USD/Mtok  pue 1.3 }`; both keys optional."""
    ctx.origin("/fleet", field.span)
    block = decode(ctx, field, V.FLEET, ir.Fleet)
    return ir.Fleet(
        cost_cap_usd_per_million_tokens=block["cost_cap"],
        pue=block["pue"],
    )
