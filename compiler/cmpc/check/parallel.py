"""A system's `parallel` layout and the GPU count it implies."""

from __future__ import annotations

from typing import Any

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import Block, decode_options
from cmpc.check.values import Field
from cmpc.compute import cost
from cmpc.diagnostics import Label
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st


def read_parallel(ctx: Context, field: Field | None, pointer: str) -> ir.Parallelism:
    if field is None:
        return ir.Parallelism()
    ctx.origin(pointer, field.span)
    positional, block = decode_options(ctx, field, V.PARALLEL, ir.Parallelism)
    if positional:
        ctx.read.expect(field, "`tp`/`pp`/`ep`/`dp`/`dcp`/`pcp` degrees", "tp 8 dcp 8")
    degrees = read_degrees(ctx, block)
    pools = []
    for role in ("prefill", "decode"):
        pool_field = block.field(role)
        if pool_field is not None:
            _, pool = decode_options(ctx, pool_field, V.POOL, ir.Pool)
            d = read_degrees(ctx, pool)
            workers: int = pool["workers"]
            gpus = cost.Pool(d["tp"], d["pp"], d["pcp"], workers * d["dp"]).gpus
            pools.append(ir.Pool(role=role, workers=workers, gpus=gpus, **d))
    if pools:
        gpus = sum(p.gpus for p in pools)
    else:
        # dp replicas are workers of one pool; dcp, ep and dp_attention add no GPU
        gpus = cost.Pool(degrees["tp"], degrees["pp"], degrees["pcp"], degrees["dp"]).gpus
    return ir.Parallelism(**degrees, pools=tuple(pools), gpus=gpus, declared=True)


def read_degrees(ctx: Context, block: Block) -> dict[str, Any]:
    """The degrees (1 unless given) and the `dp_attention` flag of a layout or a pool."""
    out: dict[str, Any] = {k: block[k] for k in ("tp", "pp", "ep", "dp", "dcp", "pcp")}
    flag = block.field("dp_attention")
    out["dp_attention"] = False
    if flag is not None:
        atoms = flag.atoms
        value = atoms[0].value if len(atoms) == 1 and isinstance(atoms[0], st.Name) else None
        if not atoms or value in ("true", "on", "yes"):
            out["dp_attention"] = True
        elif value not in ("false", "off", "no"):
            ctx.read.expect(flag, "`true` or `false`", "true")
    return out


def gpu_count(
    ctx: Context, system: ir.System, parallel: Field | None, count_span: Span | None
) -> None:
    """The declared accelerator count must equal what the parallel layout uses."""
    p = system.parallel
    if not p.declared or system.count is None or parallel is None:
        return
    replicas = system.count / p.gpus if p.gpus else 0
    if system.count == p.gpus:
        return
    rule = "tp·pp·pcp·dp" if not p.pools else "Σ workers·tp·pp·pcp·dp over the pools"
    ctx.fail(
        "E114",
        f"system `{system.name}` declares {system.count} GPUs but its parallel layout uses "
        f"{p.gpus}",
        parallel.span,
        label=f"{rule} = {p.gpus}",
        secondary=(Label(count_span, f"{system.count} GPUs declared here"),) if count_span else (),
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


def node_count(
    ctx: Context, system: ir.System, per_node: Field | None, nodes: Field | None
) -> None:
    """A declared `gpus_per_node` times the nodes must equal the GPUs over all pools."""
    gpus = system.parallel.gpus if system.parallel.declared else system.count
    if per_node is None or system.gpus_per_node is None or gpus is None:
        return
    if system.nodes * system.gpus_per_node == gpus:
        return
    used = gpus / system.nodes
    nodes_word = "node" if system.nodes == 1 else "nodes"
    ctx.fail(
        "E125",
        f"system `{system.name}` has {system.nodes} {nodes_word} of {system.gpus_per_node} "
        f"GPUs, but runs on {gpus} GPUs",
        per_node.span,
        label=f"{system.nodes} × {system.gpus_per_node} = {system.nodes * system.gpus_per_node}",
        secondary=(Label(nodes.span, f"{system.nodes} {nodes_word} declared here"),)
        if nodes
        else (),
        notes=(
            "a per-node figure is the system's throughput over its nodes, so the nodes must "
            "hold exactly the GPUs the system runs on",
            f"GPUs used (parallel layout, else accelerator count): {gpus}",
        ),
        help=(
            f"write `gpus_per_node {used:g}` if each node runs {used:g} GPUs"
            if used == int(used)
            else "make `nodes` × `gpus_per_node` equal the GPUs used"
        ),
    )


def billed_count(ctx: Context, system: ir.System, billed: Field | None) -> None:
    """`billed_gpus` counts the GPUs paid for: never fewer than those the system runs on."""
    used = system.parallel.gpus if system.parallel.declared else system.count
    if billed is None or system.billed_gpus is None or used is None:
        return
    if system.billed_gpus >= used:
        return
    ctx.fail(
        "E127",
        f"system `{system.name}` is billed for {system.billed_gpus} GPUs but runs on {used}",
        billed.value_span,
        label=f"fewer than the {used} GPUs used",
        notes=(
            "`billed_gpus` counts the GPUs paid for (whole VMs or nodes), which include every "
            "GPU the system runs on",
            f"GPUs used (parallel layout, else accelerator count): {used}",
        ),
        help=f"write `billed_gpus {used}` or more, or remove it when every billed GPU is used",
    )
