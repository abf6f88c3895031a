"""The `capacity` block: weights, KV cache dimensions, context and concurrency."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_capacity(ctx: Context, field: Field) -> ir.Capacity:
    ctx.origin("/capacity", field.span)
    one = {k: v[0] for k, v in ctx.read.block(field, V.CAPACITY_KEYS).items()}

    def integer(key):
        return ctx.read.number(one[key], integer=True) if key in one else None

    weights = None
    if "weights" in one:
        got = ctx.read.quantity(one["weights"], units.BYTES)
        weights = got[0] if got else None
    context = None
    if "context" in one:
        f = one["context"]
        if len(f.atoms) == 1 and isinstance(f.atoms[0], st.Quantity):
            got = ctx.read.quantity(f, units.TOKEN_COUNT)
            context = int(got[0]) if got else None
        else:
            context = integer("context")
    dtype = lambda key: ctx.read.word(one[key], V.DTYPES) if key in one else None  # noqa: E731
    if "params" in one and "weight_dtype" not in one and weights is None:
        ctx.fail(
            "E106",
            "`capacity` gives `params` but not `weight_dtype`",
            one["params"].key_span,
            help="add e.g. `weight_dtype fp8`, or give `weights N GB` directly",
        )
    if weights is None and "params" not in one:
        ctx.fail(
            "E106",
            "`capacity` needs `weights N GB` or `params N` with `weight_dtype`",
            field.key_span,
        )
    if "latent_dim" not in one and not ("kv_heads" in one and "head_dim" in one):
        ctx.fail(
            "E106",
            "`capacity` needs `kv_heads` and `head_dim`, or `latent_dim`, to size the KV cache",
            field.key_span,
        )
    if "layers" not in one:
        ctx.fail("E106", "`capacity` needs `layers`", field.key_span)
    reserve = ctx.read.fraction(one["reserve"], allow_zero=True) if "reserve" in one else 0.0
    if reserve == 1:  # a card with no memory left holds nothing
        ctx.fail(
            "E111",
            "`reserve` is 100%, outside [0, 100%)",
            one["reserve"].value_span,
            label="leaves no memory to use",
        )
    return ir.Capacity(
        weight_bytes=weights,
        params=ctx.read.number(one["params"], ranges.PARAMS) if "params" in one else None,
        weight_dtype=dtype("weight_dtype"),
        layers=integer("layers"),
        kv_heads=integer("kv_heads"),
        head_dim=integer("head_dim"),
        latent_dim=integer("latent_dim"),
        rope_dim=integer("rope_dim"),
        kv_dtype=dtype("kv_dtype") or "bf16",
        context_tokens=context,
        concurrency=integer("concurrency") or 1,
        reserve=reserve or 0.0,
    )
