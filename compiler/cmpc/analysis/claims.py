"""Free-standing published claims: what each supports, what it cannot, and what pairs imply."""

from __future__ import annotations

from collections.abc import Iterable

from cmpc.analysis import types as T
from cmpc.compute.claims import Claim, ClaimKind, Scope, ScopeFacts, rate_at_scope
from cmpc.ir import model as ir


def claim_result(claim: ir.Claim, c: ir.Comparison) -> T.ClaimResult:
    """A claim with the figures it derives, those it cannot, and how to read it."""
    derived: list[T.Derived] = []
    cannot: list[T.CannotDerive] = []
    notes: list[str] = []
    if claim.dimension == "token_rate":
        derived.append(
            {
                "quantity": f"tokens per second per {claim.scope}",
                "value": claim.canonical_value,
                "unit": "tok/s",
            }
        )
        if claim.scope != "gpu":
            per_gpu = rate_at_scope(
                Claim(claim.canonical_value, ClaimKind.TOKENS, Scope(claim.scope)),
                Scope.GPU,
                ScopeFacts(**{f"gpus_per_{claim.scope}": claim.gpus}),
            )
            if per_gpu.value is not None:
                derived.append(
                    {
                        "quantity": "tokens per second per GPU",
                        "value": per_gpu.value,
                        "unit": "tok/s/gpu",
                    }
                )
            else:
                cannot.append(
                    {
                        "quantity": "tokens per second per GPU",
                        "missing": f"the {claim.scope}'s GPU count (`gpus`)",
                    }
                )
        cannot.append(
            {
                "quantity": "cost per token",
                "missing": "a price or TCO for the hardware that served it",
            }
        )
    if claim.kind == "revenue":
        notes.append(
            "revenue: what tokens sold for (token price × throughput), not what the "
            "GPU-hour cost; it is never used as a cost"
        )
        cannot.append(
            {"quantity": "cost per token or margin", "missing": "the hardware's cost per GPU-hour"}
        )
    if claim.period:
        notes.append(f"period: {claim.period}")
    if claim.status != "verified":
        notes.append(f"{claim.status}: as published, not checked by cmpc")
    src = c.source(claim.source) if claim.source else None
    return {
        "name": claim.name,
        "value": claim.value,
        "unit": claim.unit,
        "kind": claim.kind,
        "scope": claim.scope,
        "period": claim.period,
        "status": claim.status,
        "about": claim.about,
        "source": claim.source,
        "source_title": src.title if src else None,
        "derived": derived,
        "cannot_derive": cannot,
        "notes": notes,
    }


def claim_combinations(claims: Iterable[ir.Claim]) -> list[T.ClaimCombination]:
    """What two claims would imply together, and the fact that is missing for it."""
    out: list[T.ClaimCombination] = []
    volumes = [c for c in claims if c.dimension == "token_rate" and c.scope != "gpu"]
    revenues = [c for c in claims if c.kind == "revenue" and c.dimension == "gpu_hour_price"]
    for v in volumes:
        for r in revenues:
            gpus = v.gpus
            implied = r.canonical_value * gpus / (v.canonical_value * 3600) * 1e6 if gpus else None
            out.append(
                {
                    "claims": [v.name, r.name],
                    "quantity": "implied token price (USD per million tokens)",
                    "formula": "revenue per GPU-hour x GPUs / (tokens per second x 3600) x 1e6",
                    "value": implied,
                    "missing": None if gpus else f"the {v.scope}'s GPU count (`gpus`)",
                    "note": "only if every GPU earned the stated rate during the tokens' hours; "
                    "periods must match (an off-peak rate does not cover a whole day)",
                }
            )
    return out
