"""The `claim` blocks: free-standing published figures with scope and provenance."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
    entry_name,
    joined,
    ref,
)
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.compute.claims import compared_at
from cmpc.ir import model as ir
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_claim(
    ctx: Context, field: Field, index: int, normalize: ir.Normalization
) -> ir.Claim | None:
    name = entry_name(ctx, field)
    ctx.origin(f"/claims/{index}", field.span)
    block = decode(ctx, field, V.CLAIM, ir.Claim)
    f = block.field("value")
    if f is None:
        return None  # decode reported it
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
    stated: V.ClaimKind | None = block.get("kind")
    kind: V.ClaimKind = stated or ("revenue" if dimension == units.GPU_HOUR_PRICE else "volume")
    source_field, compare_field = block.field("source"), block.field("compare_to")
    source = compare_to = None
    if source_field is not None and len(source_field.atoms) == 1:
        source = ref(ctx, source_field.atoms[0], "source", ctx.source_names, "source")
    if compare_field is not None and len(compare_field.atoms) == 1:
        compare_to = ref(ctx, compare_field.atoms[0], "system", ctx.systems, "compare_to")
    if compare_to is not None and compare_field is not None:
        claim_scope(
            ctx, name, block["scope"], normalize, block["gpus"], block["nodes"], compare_field, kind
        )
    period = block.field("period")
    return ir.Claim(
        name=name or f"claim{index}",
        value=atom.number.value,
        unit=atom.unit,
        dimension=dimension.name,
        canonical_value=units.convert(atom.number.text, factor),
        canonical_unit=dimension.canonical,
        kind=kind,
        scope=block["scope"],
        period=joined(period.atoms) if period else None,
        source=source,
        status=block["status"],
        about=block["about"],
        gpus=block["gpus"],
        nodes=block["nodes"],
        compare_to=compare_to,
    )


def claim_scope(
    ctx: Context,
    name: str | None,
    scope: V.Scope,
    normalize: ir.Normalization,
    gpus: int | None,
    nodes: int | None,
    field: Field,
    kind: V.ClaimKind,
) -> None:
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
    at = compared_at(per)
    if scope == at:
        return
    key, counted = ("nodes", nodes) if at == "node" else ("gpus", gpus)
    if counted is not None:
        return
    units_of = {"gpu": "GPUs", "node": "nodes"}
    label = f"needs the number of {units_of[at]} in the {scope} (`{key}`)"
    word = "GPU" if at == "gpu" else "node"
    if per == at:
        message = f"claim `{name}` is per {scope} but is compared per {word}"
        notes: tuple[str, ...] = (
            f"a per-{word} figure is the {scope}'s figure divided by the {units_of[at]} in the "
            f"{scope}",
        )
    else:
        message = (
            f"claim `{name}` is per {scope}; with `normalize per {per}` it is compared per GPU"
        )
        notes = (
            f"a claim states no {_LACKS[per]}, so it is never compared per {_UNIT_WORDS[per]}: "
            "cmpc compares its per-GPU rate with the system's per-GPU throughput",
            f"a per-GPU figure is the {scope}'s figure divided by the GPUs in the {scope}",
        )
    ctx.fail(
        "E116",
        message,
        field.value_span,
        label=label,
        notes=notes,
        help=f"add `{key} N` to the claim, or drop `compare_to`",
    )


# what a claim would need to be compared per each unit it cannot be, and the unit in words
_LACKS = {"dollar": "price", "mw": "power", "joule": "power", "rack": "rack size"}
_UNIT_WORDS = {"dollar": "dollar", "mw": "MW", "joule": "joule", "rack": "rack"}
