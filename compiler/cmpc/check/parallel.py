"""A system's `parallel` layout and the GPU count it implies."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.values import Field
from cmpc.compute import cost
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_parallel(ctx: Context, field: Field | None, pointer: str) -> ir.Parallelism:
    if field is None:
        return ir.Parallelism()
    ctx.origin(pointer, field.span)
    positional, opts = ctx.read.options(field, V.PARALLEL_OPTIONS)
    if positional:
        ctx.read.expect(field, "`tp`/`pp`/`ep`/`dp`/`dcp`/`pcp` degrees", "tp 8 dcp 8")
    degrees = read_degrees(ctx, opts)
    pools = []
    for role in ("prefill", "decode"):
        if role in opts:
            _, pool_opts = ctx.read.options(opts[role][0], V.POOL_OPTIONS)
            d = read_degrees(ctx, pool_opts)
            workers = 1
            if "workers" in pool_opts:
                workers = ctx.read.number(pool_opts["workers"][0], integer=True) or 1
            gpus = cost.Pool(d["tp"], d["pp"], d["pcp"], workers * d["dp"]).gpus
            pools.append(ir.Pool(role=role, workers=workers, gpus=gpus, **d))
    if pools:
        gpus = sum(p.gpus for p in pools)
    else:
        # dp replicas are workers of one pool; dcp, ep and dp_attention add no GPU
        gpus = cost.Pool(degrees["tp"], degrees["pp"], degrees["pcp"], degrees["dp"]).gpus
    return ir.Parallelism(**degrees, pools=tuple(pools), gpus=gpus, declared=True)


def read_degrees(ctx: Context, opts: dict[str, list[Field]]) -> dict:
    out: dict = {}
    for key in ("tp", "pp", "ep", "dp", "dcp", "pcp"):
        value = ctx.read.number(opts[key][0], integer=True) if key in opts else None
        out[key] = value or 1
    flag = opts.get("dp_attention")
    out["dp_attention"] = False
    if flag:
        atoms = flag[0].atoms
        value = atoms[0].value if len(atoms) == 1 and isinstance(atoms[0], st.Name) else None
        if not atoms or value in ("true", "on", "yes"):
            out["dp_attention"] = True
        elif value not in ("false", "off", "no"):
            ctx.read.expect(flag[0], "`true` or `false`", "true")
    return out


def gpu_count(ctx: Context, system: ir.System, one: dict[str, Field]) -> None:
    """The declared accelerator count must equal what the parallel layout uses."""
    p = system.parallel
    if not p.declared or system.count is None:
        return
    replicas = system.count / p.gpus if p.gpus else 0
    if system.count == p.gpus:
        return
    rule = "tp·pp·pcp·dp" if not p.pools else "Σ workers·tp·pp·pcp·dp over the pools"
    ctx.fail(
        "E114",
        f"system `{system.name}` declares {system.count} GPUs but its parallel layout uses "
        f"{p.gpus}",
        one["parallel"].span,
        label=f"{rule} = {p.gpus}",
        notes=(
            "dcp, ep and dp_attention add no GPUs; dp replicas and pools do",
            f"accelerator count: {system.count}"
            + (f" ({replicas:g} replicas?)" if replicas == int(replicas) and replicas > 1 else ""),
        ),
        help=(
            f"add `dp {replicas:g}` if the {system.count} GPUs run {replicas:g} replicas"
            if replicas == int(replicas) and replicas > 1
            else "make the accelerator count match the parallel layout"
        ),
    )
