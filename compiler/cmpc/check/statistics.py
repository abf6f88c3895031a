"""A statistic over requests, as a spec writes it: `mean`, `median` or `pNN`."""

from __future__ import annotations

import re

from cmpc.check.context import Context
from cmpc.check.values import Field, suggest
from cmpc.syntax import tree as st

STATISTIC = re.compile(r"^p(\d+(?:\.\d+)?)$")


def statistic(ctx: Context, atom: st.Atom, key: str) -> str | None:
    if not isinstance(atom, st.Name):
        ctx.fail(
            "E107",
            f"`{key}` expects a statistic (`mean`, `median` or `pNN`)",
            atom.span,
            help=f"write it like `{key} p90`",
        )
        return None
    value = atom.value
    if value in ("mean", "median"):
        return value
    match = STATISTIC.match(value)
    if match is None:
        close = suggest(value, ["mean", "median", "p50", "p90", "p95", "p99"])
        ctx.fail(
            "E107",
            f"`{value}` is not a statistic",
            atom.span,
            label="expected `mean`, `median` or `pNN`",
            help=f"did you mean `{close}`?" if close else "write a percentile as `p90`",
        )
        return None
    pct = float(match.group(1))
    if not 0 < pct < 100:
        ctx.fail(
            "E110",
            f"percentile `{value}` is outside (0, 100)",
            atom.span,
            label="must be strictly between p0 and p100",
            help="a far tail is e.g. `p99.9`; the middle is `median`",
        )
        return None
    return "median" if value == "p50" else value


def one_statistic(ctx: Context, field: Field) -> str | None:
    if len(field.atoms) != 1:
        ctx.read.expect(field, "a statistic", "p90")
        return None
    return statistic(ctx, field.atoms[0], field.key)
