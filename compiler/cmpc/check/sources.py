"""The `source` blocks (who measured, when, verified or not) and references to them."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
    entry_name,
    getter,
    ref,
)
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_source(ctx: Context, field: Field, index: int) -> ir.Source:
    name = entry_name(ctx, field) or f"source{index}"
    ctx.origin(f"/sources/{index}", field.span)
    found = ctx.read.block(field, V.SOURCE_KEYS)
    one = {k: v[0] for k, v in found.items()}
    get = getter(one)
    return ir.Source(
        name=name,
        title=get("title", ctx.read.text),
        role=get("role", lambda f: ctx.read.word(f, V.ROLES)) or "self",
        snapshot=get("snapshot", ctx.read.date),
        run_date=get("run_date", ctx.read.date),
        retrieved=get("retrieved", ctx.read.date),
        url=get("url", ctx.read.text),
        status=get("status", lambda f: ctx.read.word(f, V.STATUSES)) or "unverified",
        publisher=get("publisher", ctx.read.text),
        notes=get("notes", ctx.read.text),
    )


def source_ref(ctx: Context, field: Field) -> str | None:
    """A `source` option: a declared source's name, or a free-text string."""
    atoms = field.atoms
    if len(atoms) == 1 and isinstance(atoms[0], st.Name):
        return ref(ctx, atoms[0], "source", ctx.source_names, "source")
    return ctx.read.text(field, '"SemiAnalysis AI Cloud TCO model"')
