"""The `claim` blocks: free-standing published figures with scope and provenance."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
    entry_name,
    getter,
    ref,
    text_of,
)
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_claim(ctx: Context, field: Field, index: int, normalize) -> ir.Claim | None:
    name = entry_name(ctx, field)
    pointer = f"/claims/{index}"
    ctx.origin(pointer, field.span)
    one = {k: v[0] for k, v in ctx.read.block(field, V.CLAIM_KEYS).items()}
    if "value" not in one:
        ctx.fail(
            "E106",
            "a claim needs a `value`",
            field.key_span,
            help="e.g. `value 155e12 tokens/day`",
        )
        return None
    f = one["value"]
    if len(f.atoms) != 1 or not isinstance(f.atoms[0], st.Quantity):
        ctx.read.expect(f, "a quantity", "155e12 tokens/day")
        return None
    atom = f.atoms[0]
    found = units.lookup(atom.unit)
    # an unknown unit is E109; a known one is checked as a value of its own dimension
    dims = (found[0],) if found else (units.TOKEN_RATE,)
    if ctx.read.quantity_atom(atom, "value", dims) is None or found is None:
        return None
    dimension, factor = found
    get = getter(one)
    kind = get("kind", lambda f: ctx.read.word(f, V.CLAIM_KINDS))
    if kind is None:
        kind = "revenue" if dimension == units.GPU_HOUR_PRICE else "volume"
    scope = (ctx.read.word(one["scope"], V.SCOPES) if "scope" in one else None) or "cluster"
    source = None
    if "source" in one and len(one["source"].atoms) == 1:
        source = ref(ctx, one["source"].atoms[0], "source", ctx.source_names, "source")
    compare_to = None
    if "compare_to" in one and len(one["compare_to"].atoms) == 1:
        compare_to = ref(ctx, one["compare_to"].atoms[0], "system", ctx.systems, "compare_to")
    gpus = get("gpus", lambda f: ctx.read.number(f, integer=True))
    nodes = get("nodes", lambda f: ctx.read.number(f, integer=True))
    if compare_to is not None:
        claim_scope(ctx, name, scope, normalize, gpus, nodes, one["compare_to"], kind)
    period = None
    if "period" in one:
        period = " ".join(text_of(a) for a in one["period"].atoms)
    return ir.Claim(
        name=name or f"claim{index}",
        value=atom.number.value,
        unit=atom.unit,
        dimension=dimension.name,
        canonical_value=units.convert(atom.number.text, factor),
        canonical_unit=dimension.canonical,
        kind=kind,
        scope=scope,
        period=period,
        source=source,
        status=get("status", lambda f: ctx.read.word(f, V.STATUSES)) or "unverified",
        about=get("about", ctx.read.text),
        gpus=gpus,
        nodes=nodes,
        compare_to=compare_to,
    )


def claim_scope(ctx: Context, name, scope, normalize, gpus, nodes, field, kind) -> None:
    """A claim compared with per-unit figures must carry the facts that convert its scope."""
    if kind == "revenue":
        ctx.fail(
            "E115",
            f"claim `{name}` is revenue and cannot be compared with cost or throughput",
            field.value_span,
            label="revenue, not cost",
            help="keep the claim as a stated figure; remove `compare_to`",
        )
        return
    per = normalize.per
    if scope == per:
        return
    missing = None
    if per == "gpu" and gpus is None:
        missing = "gpus"
    elif per == "node" and nodes is None:
        missing = "nodes"
    elif per not in ("gpu", "node"):
        missing = "a conversion"
    if missing:
        ctx.fail(
            "E116",
            f"claim `{name}` is per {scope} but is compared per {per}",
            field.value_span,
            label=f"needs the {scope}'s `{missing}` to convert",
            notes=(f"a per-{per} figure needs the number of {per}s in the {scope}",),
            help=f"add `{missing} N` to the claim, or drop `compare_to`",
        )
