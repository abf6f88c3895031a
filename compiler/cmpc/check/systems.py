"""A `system` block: hardware, engine, model, precision and the checks within one system."""

from __future__ import annotations

from collections.abc import Mapping

from cmpc.check.context import (
    Context,
    entry_name,
    is_unknown,
    text_of,
)
from cmpc.check.data import read_reported, read_runs
from cmpc.check.decode import decode, decode_options
from cmpc.check.parallel import billed_count, gpu_count, node_count, read_parallel
from cmpc.check.prices import read_power, read_price, read_tco
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st


def read_system(
    ctx: Context, field: Field, index: int, latency: ir.Latency, latency_ok: bool
) -> ir.System | None:
    """One system; `latency_ok` says whether the latency block read clean (E118 needs it)."""
    name = entry_name(ctx, field)
    if name is None:
        return None
    base = f"/systems/{index}"
    ctx.origin(base, field.span)
    if field.body is None:
        ctx.fail(
            "E106",
            f"system `{name}` has no body",
            field.span,
            help=f'describe it: system {name} {{ accelerator "..." x 8 ... }}',
        )
        return None
    block = decode(ctx, field, V.SYSTEM, ir.System)
    one = {k: v[0] for k, v in block.fields.items()}  # the entries read by their own checkers
    accelerator, count, count_span = read_accelerator(ctx, one.get("accelerator"))
    # where build-time diagnostics about the system, or its GPU count, point
    ctx.origin(f"{base}/name", field.key_span.to(field.atoms[0].span))
    ctx.origin(f"{base}/gpus", count_span or field.key_span.to(field.atoms[0].span))
    memory, usable = read_memory(ctx, one.get("memory"))
    engine, version = read_engine(ctx, one.get("engine"))
    parallel = read_parallel(ctx, one.get("parallel"), f"{base}/parallel")
    prices = tuple(
        p
        for p in (
            read_price(ctx, f, f"{base}/prices/{j}") for j, f in enumerate(block.all("price"))
        )
        if p is not None
    )
    runs = read_runs(ctx, one["runs"], f"{base}/runs") if "runs" in one else None
    reported = (
        read_reported(ctx, one["reported"], f"{base}/reported", name) if "reported" in one else None
    )
    if runs is None and reported is None and "runs" not in one and "reported" not in one:
        ctx.fail(
            "E121",
            f"system `{name}` has no data",
            field.key_span.to(field.atoms[0].span),
            label="neither `runs` nor `reported`",
            help='add `runs "data/NAME/*.json" format vllm` or a `reported { ... }` block',
        )
    if "runs" in one and "reported" in one:
        ctx.fail(
            "E107",
            f"system `{name}` has both `runs` and `reported` data",
            one["reported"].key_span,
            label="choose one",
            help="measured runs and reported figures cannot be mixed for one system",
        )
    system = ir.System(
        name=name,
        label=block["label"] or name,
        accelerator=accelerator,
        count=count,
        nodes=block["nodes"],
        memory_bytes=memory,
        usable_memory_bytes=usable,
        interconnect=block["interconnect"],
        engine=engine,
        engine_version=version,
        image=block["image"],
        model=block["model"],
        precision=precision(ctx, one.get("precision")),
        parallel=parallel,
        speculative=speculative(ctx, one.get("speculative")),
        scheduler=scheduler(ctx, one.get("scheduler")),
        prices=prices,
        power=read_power(ctx, one["power"]) if "power" in one else None,
        tco=read_tco(ctx, one["tco"]) if "tco" in one else None,
        cache_hit_rate=hit_rate(ctx, one["cache_hit_rate"]) if "cache_hit_rate" in one else None,
        cache_hit_rate_unknown=is_unknown(one.get("cache_hit_rate")),
        runs=runs,
        reported=reported,
        gpus_per_node=block["gpus_per_node"],
        gpus_per_rack=block["gpus_per_rack"],
        billed_gpus=block["billed_gpus"],
    )
    gpu_count(ctx, system, one.get("parallel"), count_span)
    node_count(ctx, system, one.get("gpus_per_node"), one.get("nodes"))
    billed_count(ctx, system, one.get("billed_gpus"))
    reported_statistic(ctx, system, latency, latency_ok, one.get("reported"))
    for misplaced in block.all("interval"):
        interval_outside_reported(ctx, system, misplaced)
    return system


def interval_outside_reported(ctx: Context, system: ir.System, field: Field) -> None:
    """A published interval belongs to a reported figure; runs get intervals cmpc computes."""
    where = (
        "cmpc computes its intervals from the runs' per-request data"
        if system.runs is not None
        else "a published interval goes inside `reported { ... }`, next to its figure"
    )
    ctx.warn(
        "W139",
        f"`{system.name}` declares a published interval outside `reported`: it is not used",
        field.span,
        label="not used",
        notes=(where,),
        help="move it into `reported { ... }`, or drop it for measured runs",
    )


def read_accelerator(
    ctx: Context, field: Field | None
) -> tuple[str | None, int | None, Span | None]:
    """The accelerator's model, its count (`x 8`) and where the count is written."""
    if field is None:
        return None, None, None
    positional, block = decode_options(ctx, field, V.ACCELERATOR)
    if len(positional) != 1 or not isinstance(positional[0], st.String):
        ctx.read.expect(field, "a model name", '"AMD Instinct MI355X" x 8')
        return None, None, None
    count = block.field("x")
    return positional[0].value, block["x"], count.span if count else None


def read_memory(ctx: Context, field: Field | None) -> tuple[float | None, float | None]:
    if field is None:
        return None, None
    positional, block = decode_options(ctx, field, V.MEMORY)
    nominal = ctx.read.quantity(
        Field(field.key, positional, field.span, field.key_span), units.BYTES
    )
    return (nominal[0] if nominal else None), block["usable"]


def read_engine(ctx: Context, field: Field | None) -> tuple[str | None, str | None]:
    if field is None:
        return None, None
    positional, opts = ctx.read.options(field, V.ENGINE_OPTIONS)
    name = None
    if len(positional) == 1 and isinstance(positional[0], st.Name | st.String):
        name = positional[0].value
    else:
        ctx.read.expect(field, "an engine name", 'vllm version "0.11.0"')
    version = None
    if "version" in opts:
        f = opts["version"][0]
        if len(f.atoms) == 1 and isinstance(f.atoms[0], st.String | st.Name | st.Number):
            atom = f.atoms[0]
            version = atom.text if isinstance(atom, st.Number) else atom.value
        else:
            ctx.read.expect(f, "a version", '"0.11.0"')
    return name, version


def pairs(
    ctx: Context, field: Field | None, allowed: Mapping[str, bool]
) -> tuple[tuple[str, str], ...]:
    if field is None:
        return ()
    positional, opts = ctx.read.options(field, allowed)
    out = []
    if positional:
        first = next(iter(allowed))
        out.append((first, " ".join(text_of(a) for a in positional)))
    for key, fields in opts.items():
        out.append((key, " ".join(text_of(a) for a in fields[0].atoms)))
    return tuple(out)


def precision(ctx: Context, field: Field | None) -> tuple[tuple[str, str], ...]:
    return pairs(ctx, field, V.PRECISION_OPTIONS)


def speculative(ctx: Context, field: Field | None) -> tuple[tuple[str, str], ...]:
    if field is None:
        return ()
    positional, opts = ctx.read.options(field, V.SPECULATIVE_OPTIONS)
    out = [("method", " ".join(text_of(a) for a in positional) or "none")]
    out += [(k, " ".join(text_of(a) for a in v[0].atoms)) for k, v in opts.items()]
    return tuple(out)


def scheduler(ctx: Context, field: Field | None) -> tuple[tuple[str, str], ...]:
    """Free-form scheduler parameters: `key value` pairs, inline or in a body."""
    if field is None:
        return ()
    out = []
    atoms = list(field.atoms)
    while atoms:
        key = atoms.pop(0)
        if not isinstance(key, st.Name) or not atoms:
            ctx.read.expect(field, "`name value` pairs", "max_num_seqs 256")
            return ()
        out.append((key.value, text_of(atoms.pop(0))))
    for entry in field.body or ():
        out.append((entry.key.value, " ".join(text_of(a) for a in entry.atoms)))
    return tuple(out)


def hit_rate(ctx: Context, field: Field) -> float | None:
    """A declared prefix-cache hit rate, or None for `unknown`."""
    if is_unknown(field):
        return None
    return ctx.read.fraction(field, allow_zero=True)


def reported_statistic(
    ctx: Context,
    system: ir.System,
    latency: ir.Latency,
    latency_ok: bool,
    reported: Field | None,
) -> None:
    """Reported figures carry one statistic; asking another of them cannot be answered."""
    rep = system.reported
    if rep is None or rep.statistic is None or rep.statistic == latency.statistic:
        return
    if not latency_ok or reported is None:  # the latency block's own error explains it
        return
    ctx.fail(
        "E118",
        f"the latency statistic is `{latency.statistic}`, but `{system.name}`'s reported "
        f"figures are at `{rep.statistic}`",
        reported.key_span,
        label=f"reported at `{rep.statistic}`",
        notes=("reported values cannot be re-aggregated into another statistic",),
        help=f"use `statistic {rep.statistic}` in `latency`, or measured runs",
    )
