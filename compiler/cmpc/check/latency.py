"""The `latency` block: metric, statistic, target, read method, SLO limits."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import decode, decode_options
from cmpc.check.statistics import STATISTIC, statistic
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_latency(ctx: Context, field: Field) -> ir.Latency:
    ctx.origin("/latency", field.span)
    block = decode(ctx, field, V.LATENCY, ir.Latency)
    metric = block["metric"]
    ttft = block.get("ttft")
    ttft_field = block.field("ttft")
    if ttft is None:
        ttft = "included" if metric in ("ttft", "e2el", "e2e_per_token") else "excluded"
    elif metric == "tpot" and ttft == "included" and ttft_field is not None:
        ctx.fail(
            "E107",
            "`tpot` excludes TTFT by definition; `ttft included` contradicts it",
            ttft_field.value_span,
            label="contradicts `metric tpot`",
            help="use `metric e2e_per_token` for a per-token latency that includes TTFT",
        )
    target = block.field("target")
    per_request: tuple[tuple[str, float], ...] = ()
    per_run: tuple[tuple[str, str, float], ...] = ()
    for slo in block.all("slo"):
        if _percentile_form(slo):
            per_run += read_percentile_slo(ctx, slo)
        else:
            per_request += read_slo(ctx, slo)
    return ir.Latency(
        slo=per_request,
        percentile_slo=per_run,
        metric=metric,
        ttft=ttft,
        statistic=block["statistic"],
        target=read_target(ctx, target, metric) if target else None,
        read=block["read"],
        percentile_method=block["percentile_method"],
    )


def read_slo(ctx: Context, field: Field) -> tuple[tuple[str, float], ...]:
    """`slo ttft 2 s tpot 40 ms`: per-request limits that define goodput."""
    positional, block = decode_options(ctx, field, V.SLO)
    if positional or not block.fields:
        ctx.read.expect(field, "limits per metric", "ttft 2 s tpot 40 ms")
        return ()
    return tuple((key.name, block[key.name]) for key in V.SLO.keys if block[key.name])


PERCENTILE_SLO_METRICS = ("ttft", "tpot", "e2el", "e2e_per_token")


def _percentile_form(field: Field) -> bool:
    """`slo p99 ttft 2 s ...`: a statistic before each metric makes the limits per run."""
    first = field.atoms[0] if field.atoms else None
    return isinstance(first, st.Name) and (
        first.value in ("mean", "median") or STATISTIC.match(first.value) is not None
    )


def read_percentile_slo(ctx: Context, field: Field) -> tuple[tuple[str, str, float], ...]:
    """`slo p99 ttft 2 s  p99 tpot 50 ms`: limits on each run's statistics (capacity at SLO)."""
    atoms = field.atoms
    example = "p99 ttft 2 s  p99 tpot 50 ms"
    if len(atoms) % 3 or field.body is not None:
        ctx.read.expect(field, "limits as `STATISTIC METRIC LIMIT`, repeated", example)
        return ()
    limits: list[tuple[str, str, float]] = []
    for i in range(0, len(atoms), 3):
        stat_atom, metric_atom, limit_atom = atoms[i : i + 3]
        stat = statistic(ctx, stat_atom, "slo")
        metric = metric_atom.value if isinstance(metric_atom, st.Name) else None
        if metric not in PERCENTILE_SLO_METRICS:
            sub = Field("slo", (metric_atom,), metric_atom.span, field.key_span)
            ctx.read.expect(sub, "a latency metric (ttft, tpot, e2el, e2e_per_token)", example)
            continue
        sub = Field("slo", (limit_atom,), limit_atom.span, field.key_span)
        got = ctx.read.quantity(sub, units.TIME)
        if stat is None or got is None:
            continue
        if got[0] <= 0:
            ctx.fail("E107", "an SLO limit must be positive", limit_atom.span)
            continue
        limits.append((stat, metric, got[0]))
    return tuple(limits)


def read_target(ctx: Context, field: Field, metric: str) -> ir.Target | None:
    ctx.origin("/latency/target", field.span)
    return target_value(ctx, field, metric)


def target_value(
    ctx: Context, field: Field, metric: str, what: str = "the latency target"
) -> ir.Target | None:
    """A target on `metric`'s axis (`latency { target }`, `sensitivity { target }`)."""
    got = ctx.read.quantity(field, units.INTERACTIVITY, units.TIME)
    if got is None:
        return None
    value, dimension, atom = got
    if value <= 0:
        ctx.fail("E107", f"{what} must be positive", atom.span)
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
