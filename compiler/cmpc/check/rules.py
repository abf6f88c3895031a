"""Rules across blocks: what normalization, cost and token accounting need of every system."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence

from cmpc.check.context import (
    Context,
)
from cmpc.check.prices import CostBlock
from cmpc.check.values import Field, listing
from cmpc.ir import model as ir


def cross_checks(
    ctx: Context,
    systems: Sequence[ir.System],
    system_fields: Mapping[str, Field],
    normalize: ir.Normalization,
    cost: CostBlock,
    tokens: ir.Tokens,
    normalize_field: Field | None,
) -> None:
    """The rules that read several blocks: each reports at the block that asks."""
    if normalize_field is not None and normalize.per == "dollar":
        for s in systems:
            if not s.prices and s.tco is None:
                ctx.fail(
                    "E117",
                    f"per-dollar normalization needs a price on every system; `{s.name}` has none",
                    normalize_field.span,
                    label="normalizes per dollar",
                    notes=(f"system `{s.name}` declares no `price` and no `tco`",),
                    help=f"add `price N USD/gpu/h basis ...` to system `{s.name}`",
                )
    if normalize_field is not None and normalize.per in ("mw", "joule"):
        for s in systems:
            if s.power is None:
                ctx.fail(
                    "E122",
                    f"per-{normalize.per} normalization needs power on every system; "
                    f"`{s.name}` has none",
                    normalize_field.span,
                    help=f"add `power N kW basis provisioned` to system `{s.name}`",
                )
    if normalize_field is not None and normalize.per == "rack":
        for s in systems:
            if s.gpus_per_rack is None:
                ctx.fail(
                    "E126",
                    f"per-rack normalization needs `gpus_per_rack` on every system; "
                    f"`{s.name}` has none",
                    normalize_field.span,
                    label="normalizes per rack",
                    help=f"add `gpus_per_rack N` to system `{s.name}`",
                )
    scenario = cost.cost.scenario
    if cost.scenario_span is None:
        pass
    elif scenario == "tco":
        for s in systems:
            if s.tco is None:
                ctx.fail(
                    "E105",
                    f"cost scenario `tco` needs a `tco` block on every system; `{s.name}` has none",
                    cost.scenario_span,
                    help=f"add `tco {{ capex ...; years ... }}` to system `{s.name}`",
                )
    elif scenario is not None:
        for s in systems:
            if s.prices and scenario not in {p.scenario for p in s.prices}:
                ctx.fail(
                    "E105",
                    f"system `{s.name}` has no price for scenario `{scenario}`",
                    cost.scenario_span,
                    notes=(f"its scenarios: {listing(p.scenario for p in s.prices)}",),
                )
    if tokens.reused == "included" and any(k in ("input", "cached_input") for k in tokens.count):
        for s in systems:
            declared = (
                s.cache_hit_rate is not None
                or s.cache_hit_rate_unknown
                or (s.reported is not None and s.reported.cache_hit_rate is not None)
            )
            if s.reported is not None and not declared:
                ctx.warn(
                    "W131",
                    f"reused input tokens count, but `{s.name}`'s cache hit rate is not declared",
                    system_fields[s.name].key_span,
                    label="reported data carry no measured hit rate",
                    help="add `cache_hit_rate N%` to the system, or `cache_hit_rate unknown` "
                    "to state that it was not published",
                )
    price_ages(ctx, systems, system_fields, cost.max_price_age_days)


def price_ages(
    ctx: Context,
    systems: Sequence[ir.System],
    system_fields: Mapping[str, Field],
    max_age_days: float,
) -> None:
    """Warn when a price is older than the data it prices by more than the allowed age."""
    for s in systems:
        data_date = None
        named = s.reported.source if s.reported else (s.runs.source if s.runs else None)
        src = ctx.sources.get(named) if named else None
        if src is not None:  # runs without a dated source: the build uses the files' dates
            data_date = src.snapshot or src.run_date
        if data_date is None:
            continue
        for p in s.prices:
            if p.as_of is None:
                continue
            age = (
                datetime.date.fromisoformat(data_date) - datetime.date.fromisoformat(p.as_of)
            ).days
            if age > max_age_days:
                ctx.warn(
                    "W130",
                    f"`{s.name}`'s {p.scenario} price ({p.as_of}) is {age} days older than "
                    f"its data ({data_date})",
                    system_fields[s.name].key_span,
                    help="use a price from the data's time, or raise `cost { max_price_age }`",
                )


def mixed_pue(
    ctx: Context,
    systems: Sequence[ir.System],
    normalize: ir.Normalization,
    normalize_field: Field | None,
    fleet: ir.Fleet | None,
) -> None:
    """W145: per MW with a PUE stated for some systems only (facility MW against IT MW)."""
    if normalize_field is None or normalize.per != "mw" or (fleet and fleet.pue is not None):
        return
    stated = [s for s in systems if s.power is not None and _states_pue(s)]
    bare = [s for s in systems if s.power is not None and not _states_pue(s)]
    if not stated or not bare:
        return
    ctx.warn(
        "W145",
        f"per-MW throughput counts facility power for {listing(s.name for s in stated)} and IT "
        f"power for {listing(s.name for s in bare)}",
        normalize_field.span,
        label="facility megawatts against IT megawatts",
        notes=("a side without a PUE gets more tokens from each megawatt it is charged with",),
        help="state the PUE where each system runs: `power ... pue P` on every system, or "
        "`fleet { pue P }` for all",
    )


def _states_pue(system: ir.System) -> bool:
    """A PUE stated for the system itself: its `power ... pue`, or its tco's (1: none)."""
    power, tco = system.power, system.tco
    return (power is not None and power.pue is not None) or (tco is not None and tco.pue != 1.0)
