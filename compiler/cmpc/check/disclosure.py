"""The `disclosure` block: answers to the methodology checklist."""

from __future__ import annotations

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.language import vocabulary as V


def read_disclosure(ctx: Context, field: Field) -> tuple[tuple[str, str], ...]:
    ctx.origin("/disclosure", field.span)
    block = decode(ctx, field, V.DISCLOSURE)
    return tuple(sorted((k, v) for k, v in block.read.items() if v is not None))
