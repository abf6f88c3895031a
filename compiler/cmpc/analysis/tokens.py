"""Which tokens a comparison counts, and whether its cost counts the same ones."""

from __future__ import annotations

from cmpc.compute.accounting import TokenAccounting
from cmpc.ir import model as ir


def accounting(tokens: ir.Tokens) -> TokenAccounting:
    """The IR's `tokens` block as the accounting module's three switches."""
    count = set(tokens.count)
    return TokenAccounting(
        output="output" in count,
        uncached_input=bool(count & {"input", "uncached_input"}),
        reused_input="cached_input" in count or ("input" in count and tokens.reused == "included"),
    )


def cost_basis_matches(comparison: ir.Comparison) -> bool:
    """True when `cost { per_million ... }` counts the same tokens as `tokens { count ... }`."""
    bases = {"total": {"input", "output"}, "output": {"output"}, "input": {"input"}}
    return bases.get(comparison.cost.per_million) == set(comparison.tokens.count)
