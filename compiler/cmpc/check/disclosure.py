"""The `disclosure` block: answers to the methodology checklist."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.values import Field
from cmpc.language import vocabulary as V


def read_disclosure(ctx: Context, field: Field) -> tuple[tuple[str, str], ...]:
    ctx.origin("/disclosure", field.span)
    found = ctx.read.block(field, dict.fromkeys(V.CHECKLIST, False))
    out = []
    for key, fields in found.items():
        value = ctx.read.text(fields[0], '"closed loop, concurrency 1-70"')
        if value is not None:
            out.append((key, value))
    return tuple(sorted(out))
