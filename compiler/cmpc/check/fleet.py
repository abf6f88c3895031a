"""The `fleet` block: the cost cap of the highest-interactivity read, and the PUE of users/MW."""

from __future__ import annotations

from collections.abc import Sequence

from cmpc.check.context import Context
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V


def read_fleet(ctx: Context, field: Field, systems: Sequence[ir.System] = ()) -> ir.Fleet:
    """`fleet { cost_cap 2.00 USD/Mtok  pue 1.3 }`; both keys optional."""
    ctx.origin("/fleet", field.span)
    block = decode(ctx, field, V.FLEET, ir.Fleet)
    fleet = ir.Fleet(
        cost_cap_usd_per_million_tokens=block["cost_cap"],
        pue=block["pue"],
    )
    for system in systems:
        _same_pue(ctx, field, fleet, system)
    return fleet


def _same_pue(ctx: Context, field: Field, fleet: ir.Fleet, system: ir.System) -> None:
    """W144: users per MW at one PUE while the system's `tco` costs its energy at another."""
    tco, power = system.tco, system.power
    if tco is None or tco.power_watts is None or power is None:
        return
    pue = power.pue if power.pue is not None else fleet.pue
    if pue is None or pue == tco.pue:
        return
    whose = "its `power` line" if power.pue is not None else "`fleet { pue }`"
    ctx.warn(
        "W144",
        f"`{system.name}`'s users per MW use PUE {pue:g} ({whose}), its `tco` energy PUE "
        f"{tco.pue:g}",
        field.key_span,
        label="one data centre, two PUEs",
        notes=(f"`tco {{ pue }}` costs `{system.name}`'s electricity; 1 when not declared",),
        help=f"state the PUE where `{system.name}` runs once and use it in both, e.g. "
        f"`power ... pue {pue:g}` and `tco {{ ... pue {pue:g} }}`",
    )
