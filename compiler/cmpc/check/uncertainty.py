"""The `uncertainty` block: bootstrap interval level, method, resample count and seed."""

from __future__ import annotations

from cmpc.check.context import Context
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st

LOWEST_CONFIDENCE = 0.5  # below it an interval says less than the estimate alone


def read_uncertainty(ctx: Context, field: Field) -> ir.Uncertainty:
    """`uncertainty off`, or its keys (each missing one at its default)."""
    ctx.origin("/uncertainty", field.span)
    if field.body is None:
        atom = field.atoms[0] if len(field.atoms) == 1 else None
        if isinstance(atom, st.Name) and atom.value in ("off", "on"):
            return ir.Uncertainty(enabled=atom.value == "on")
        ctx.read.expect(field, "`off`, `on` or a `{ ... }` block", "{ confidence 95% }")
        return ir.Uncertainty()
    block = decode(ctx, field, V.UNCERTAINTY, ir.Uncertainty)
    confidence = block["confidence"]
    given = block.field("confidence")
    read = block.get("confidence")
    if given is not None and read is not None and not LOWEST_CONFIDENCE <= read < 1:
        ctx.read.expect(given, "a confidence level from 50% up to (not including) 100%", "95%")
        confidence = ir.Uncertainty.confidence
    method = block["method"]
    if method in V.WITHDRAWN_INTERVAL_METHODS:
        given_method = block.field("method")
        assert given_method is not None
        ctx.fail(
            "E135",
            f"interval method `{method}` was withdrawn: {V.WITHDRAWN_INTERVAL_METHODS[method]}",
            given_method.value_span,
            help="use `method percentile` (the default), whose 95% intervals held the truth in "
            "96-97% of the sweeps; see docs/statistics.md",
        )
        method = ir.Uncertainty.method
    return ir.Uncertainty(
        enabled=True,
        confidence=confidence,
        method=method,
        resamples=block["resamples"],
        seed=block["seed"],
    )
