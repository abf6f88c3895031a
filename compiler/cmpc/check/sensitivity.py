"""The `sensitivity` block: the alternatives each varied parameter takes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cmpc.check.context import (
    Context,
    text_of,
)
from cmpc.check.decode import decode
from cmpc.check.latency import target_value
from cmpc.check.statistics import statistic
from cmpc.check.tokens import token_sum
from cmpc.check.values import Field, listing, suggest
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_sensitivity(
    ctx: Context, field: Field, systems: Sequence[ir.System], latency: ir.Latency
) -> tuple[tuple[ir.SensitivityAxis, ...], float]:
    """The varied parameters' alternatives, and the tie band (`tie`, E111 outside [0, 100%])."""
    ctx.origin("/sensitivity", field.span)
    block = decode(ctx, field, V.SENSITIVITY)
    if "tie" in block.fields:
        ctx.origin("/tie_band", block.fields["tie"][0].span)
    tie = block.read.get("tie")
    axes = []
    for key, fields in block.fields.items():
        if key == "tie":
            continue
        assert V.is_word(key, V.SENSITIVITY_PARAMETERS)  # block() keeps only these keys
        f = fields[0]
        alts = []
        for alt in f.alternatives:
            value = sensitivity_value(ctx, key, alt, systems, latency.metric)
            if value is not None:
                alts.append(ir.Alternative(" ".join(text_of(a) for a in alt.atoms), value))
        axes.append(ir.SensitivityAxis(key, tuple(alts)))
    return tuple(axes), ir.DEFAULT_TIE_BAND if tie is None else tie


def sensitivity_value(
    ctx: Context, key: str, alt: st.Alternative, systems: Sequence[ir.System], metric: str
) -> Any:
    sub = Field(key, alt.atoms, alt.span, alt.span)
    if key == "tokens":
        return list(token_sum(ctx, alt.atoms, key, alt.span) or ()) or None
    if key == "statistic":
        if len(alt.atoms) != 1:
            ctx.read.expect(sub, "a statistic", "p50 | p90")
            return None
        stat = statistic(ctx, alt.atoms[0], key)
        for s in systems:
            rep = s.reported
            if stat and rep is not None and rep.statistic and rep.statistic != stat:
                ctx.fail(
                    "E118",
                    f"sensitivity asks `{stat}` of `{s.name}`, whose reported figures are at "
                    f"`{rep.statistic}`",
                    alt.span,
                    notes=("reported values cannot be re-aggregated into another statistic",),
                    help=f"drop `{stat}` from the alternatives",
                )
                return None
        return stat
    if key == "utilization":
        return ctx.read.fraction(sub)
    if key == "read":
        return ctx.read.word(sub, V.READ_METHODS, V.READ_ALIASES)
    if key == "normalize":
        return ctx.read.word(sub, V.NORMALIZATIONS)
    if key == "target":  # as the spec's own target: both forms, read along the spec's axis
        return target_value(ctx, sub, metric, "a sensitivity target")
    if key == "price":
        if len(alt.atoms) != 1 or not isinstance(alt.atoms[0], st.Name):
            ctx.read.expect(sub, "a price scenario", "owning | rental")
            return None
        scenario = alt.atoms[0].value
        if scenario == "tco":
            lacking = [s.name for s in systems if s.tco is None]
            if lacking:
                ctx.fail(
                    "E105",
                    f"price scenario `tco` needs a `tco` block on {listing(lacking)}",
                    alt.span,
                )
                return None
            return scenario
        known = {p.scenario for s in systems for p in s.prices}
        missing = [
            s.name for s in systems if s.prices and scenario not in {p.scenario for p in s.prices}
        ]
        if missing:
            close = suggest(scenario, known)
            ctx.fail(
                "E105",
                f"price scenario `{scenario}` is missing on {listing(missing)}",
                alt.span,
                notes=(f"declared scenarios: {listing(sorted(known))}",),
                help=f"did you mean `{close}`?"
                if close
                else "declare it with `price ... scenario NAME`",
            )
            return None
        return scenario
    return None
