"""Free-standing published claims: what each supports, what it cannot, and what pairs imply."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.hardware import gpus_per_node
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.compute import claims as claim_rates
else:  # its enums and records (0.8 ms of a build's import): read only for a spec with claims
    claim_rates = lazy.module("cmpc.compute.claims")


def claim_result(
    claim: ir.Claim, c: ir.Comparison, systems: Mapping[str, T.SystemResult] | None = None
) -> T.ClaimResult:
    """A claim with the figures it derives, those it cannot, and how to read it.

    With `compare_to`, the claim is set beside the named system's figure at the same scope.
    """
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
            per_gpu = claim_rates.rate_at_scope(
                claim_rates.Claim(
                    claim.canonical_value,
                    claim_rates.ClaimKind.TOKENS,
                    claim_rates.Scope(claim.scope),
                ),
                claim_rates.Scope.GPU,
                claim_rates.ScopeFacts(**{f"gpus_per_{claim.scope}": claim.gpus}),
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
        "compared_with": compared_with(claim, c, systems or {}),
    }


def compared_with(
    claim: ir.Claim, c: ir.Comparison, systems: Mapping[str, T.SystemResult]
) -> T.ClaimComparison | None:
    """The claim beside `compare_to`'s throughput, per GPU (per node under `normalize per node`)."""
    if claim.compare_to is None:
        return None
    at = claim_rates.Scope(claim_rates.compared_at(c.normalize.per))
    system = c.system(claim.compare_to)
    own_result = systems.get(system.name)
    per_gpu = own_result["at_target"]["throughput_per_gpu"] if own_result else None
    nodes = gpus_per_node(system)
    own = (
        per_gpu
        if at is claim_rates.Scope.GPU or per_gpu is None
        else (per_gpu * nodes if nodes else None)
    )
    result: T.ClaimComparison = {
        "system": system.name,
        "scope": at.value,
        "unit": f"tok/s/{at.value}",
        "claim_value": None,
        "system_value": own,
        "ratio": None,
        "system_tokens": " + ".join(c.tokens.count),
        "note": None,
    }
    if claim.dimension != "token_rate":
        result["note"] = (
            "the claim is not a token rate (tokens per unit of time): nothing to compare"
        )
        return result
    count = claim.nodes if at is claim_rates.Scope.NODE else claim.gpus
    value = claim_rates.rate_per_unit(
        claim.canonical_value, claim_rates.Scope(claim.scope), at, count
    )
    result["claim_value"] = value
    if value is None:  # the checker requires the count (E116); kept for a claims-only read
        result["note"] = f"the claim's {claim.scope} size is not stated"
    elif own is None:
        result["note"] = f"`{system.name}` has no per-{at.value} throughput at the target"
    else:
        result["ratio"] = value / own if own else None
    return result


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
