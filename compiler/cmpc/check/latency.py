"""The `latency` block: metric, statistic, target, read method, SLO limits."""

from __future__ import annotations

import re

from cmpc.check.context import (
    Context,
)
from cmpc.check.values import Field, suggest
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
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


def read_latency(ctx: Context, field: Field) -> ir.Latency:
    ctx.origin("/latency", field.span)
    one = {k: v[0] for k, v in ctx.read.block(field, V.LATENCY_KEYS).items()}
    metric = ctx.read.word(one["metric"], V.METRICS) if "metric" in one else "tpot"
    ttft = ctx.read.word(one["ttft"], V.TTFT_MODES) if "ttft" in one else None
    statistic = one_statistic(ctx, one["statistic"]) if "statistic" in one else "median"
    read = (
        ctx.read.word(one["read"], V.READ_METHODS, V.READ_ALIASES) if "read" in one else "steffen"
    )
    method = (
        ctx.read.word(one["percentile_method"], V.PERCENTILE_METHODS)
        if "percentile_method" in one
        else "linear"
    )
    metric = metric or "tpot"
    if ttft is None:
        ttft = "included" if metric in ("ttft", "e2el", "e2e_per_token") else "excluded"
    elif metric == "tpot" and ttft == "included":
        ctx.fail(
            "E107",
            "`tpot` excludes TTFT by definition; `ttft included` contradicts it",
            one["ttft"].value_span,
            label="contradicts `metric tpot`",
            help="use `metric e2e_per_token` for a per-token latency that includes TTFT",
        )
    target = read_target(ctx, one["target"], metric) if "target" in one else None
    slo = read_slo(ctx, one["slo"]) if "slo" in one else ()
    return ir.Latency(
        slo=slo,
        metric=metric,
        ttft=ttft,
        statistic=statistic or "median",
        target=target,
        read=read or "steffen",
        percentile_method=method or "linear",
    )


def read_slo(ctx: Context, field: Field) -> tuple[tuple[str, float], ...]:
    """`slo ttft 2 s tpot 40 ms`: per-request limits that define goodput."""
    positional, opts = ctx.read.options(field, V.SLO_OPTIONS)
    if positional or not opts:
        ctx.read.expect(field, "limits per metric", "ttft 2 s tpot 40 ms")
        return ()
    limits = []
    for metric in V.SLO_OPTIONS:
        if metric in opts:
            got = ctx.read.quantity(opts[metric][0], units.TIME)
            if got:
                limits.append((metric, got[0]))
    return tuple(limits)


def read_target(ctx: Context, field: Field, metric: str) -> ir.Target | None:
    ctx.origin("/latency/target", field.span)
    got = ctx.read.quantity(field, units.INTERACTIVITY, units.TIME)
    if got is None:
        return None
    value, dimension, atom = got
    if value <= 0:
        ctx.fail("E107", "the latency target must be positive", atom.span)
        return None
    per_token = metric in V.PER_TOKEN_METRICS
    if dimension == units.INTERACTIVITY and not per_token:
        ctx.fail(
            "E108",
            f"an interactivity target (tok/s/user) needs a per-token metric, not `{metric}`",
            atom.span,
            label="tok/s/user is 1 / a per-token latency",
            help="give the target as a latency, e.g. `target 2 s`, or use `metric tpot`",
        )
        return None
    if dimension == units.INTERACTIVITY:
        return ir.Target("interactivity", atom.number.value, atom.unit, value, 1000.0 / value)
    latency_ms = units.convert(atom.number.text, units.UNITS[atom.unit][1] * 1000)  # one rounding
    interactivity = 1000.0 / latency_ms if per_token else 0.0
    return ir.Target("latency", atom.number.value, atom.unit, interactivity, latency_ms)
