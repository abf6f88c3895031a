"""The `source` blocks (who measured, when, verified or not) and references to them."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
    entry_name,
    ref,
)
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_source(ctx: Context, field: Field, index: int) -> ir.Source:
    name = entry_name(ctx, field) or f"source{index}"
    ctx.origin(f"/sources/{index}", field.span)
    block = decode(ctx, field, V.SOURCE, ir.Source)
    return ir.Source(name, **{key.name: block[key.name] for key in V.SOURCE.keys})


def source_ref(ctx: Context, field: Field) -> str | None:
    """A `source` option: a declared source's name, or a free-text string."""
    atoms = field.atoms
    if len(atoms) == 1 and isinstance(atoms[0], st.Name):
        return ref(ctx, atoms[0], "source", ctx.source_names, "source")
    return ctx.read.text(field, '"SemiAnalysis AI Cloud TCO model"')
