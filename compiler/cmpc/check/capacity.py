"""The `capacity` block: weights, KV cache dimensions, context and concurrency."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_capacity(ctx: Context, field: Field) -> ir.Capacity:
    ctx.origin("/capacity", field.span)
    block = decode(ctx, field, V.CAPACITY, ir.Capacity)
    context = block.field("context")
    context_tokens = None
    if (
        context is not None
        and len(context.atoms) == 1
        and isinstance(context.atoms[0], st.Quantity)
    ):
        got = ctx.read.quantity(context, units.TOKEN_COUNT)
        context_tokens = int(got[0]) if got else None
    elif context is not None:
        context_tokens = ctx.read.number(context, integer=True)
    params = block.field("params")
    if params is not None and "weight_dtype" not in block and block.get("weights") is None:
        ctx.fail(
            "E106",
            "`capacity` gives `params` but not `weight_dtype`",
            params.key_span,
            help="add e.g. `weight_dtype fp8`, or give `weights N GB` directly",
        )
    if block.get("weights") is None and params is None:
        ctx.fail(
            "E106",
            "`capacity` needs `weights N GB` or `params N` with `weight_dtype`",
            field.key_span,
        )
    if "latent_dim" not in block and not ("kv_heads" in block and "head_dim" in block):
        ctx.fail(
            "E106",
            "`capacity` needs `kv_heads` and `head_dim`, or `latent_dim`, to size the KV cache",
            field.key_span,
        )
    reserve = block.field("reserve")
    if reserve is not None and block["reserve"] == 1:  # a card with no memory left holds nothing
        ctx.fail(
            "E111",
            "`reserve` is 100%, outside [0, 100%)",
            reserve.value_span,
            label="leaves no memory to use",
        )
    return ir.Capacity(
        weight_bytes=block["weights"],
        params=block["params"],
        weight_dtype=block["weight_dtype"],
        layers=block["layers"],
        kv_heads=block["kv_heads"],
        head_dim=block["head_dim"],
        latent_dim=block["latent_dim"],
        rope_dim=block["rope_dim"],
        kv_dtype=block["kv_dtype"],
        context_tokens=context_tokens,
        concurrency=block["concurrency"],
        reserve=block["reserve"],
    )
