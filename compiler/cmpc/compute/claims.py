"""Published figures with scope and period: what each can be converted to, and what it cannot."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

PERIOD_SECONDS: dict[str, int] = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86_400,
    "week": 604_800,
    "year": 365 * 86_400,
}


class Scope(StrEnum):
    """What a published figure covers."""

    GPU = "gpu"
    NODE = "node"
    CLUSTER = "cluster"
    FLEET = "fleet"


class ClaimKind(StrEnum):
    """What a published figure measures."""

    TOKENS = "tokens"
    COST = "cost"
    REVENUE = "revenue"


@dataclass(frozen=True, slots=True)
class Claim:
    """A free-standing published figure: value per period, over a scope."""

    value: float
    kind: ClaimKind
    scope: Scope
    period: str = "second"


@dataclass(frozen=True, slots=True)
class ScopeFacts:
    """Declared GPU counts that let a figure move between scopes."""

    gpus_per_node: int | None = None
    gpus_per_cluster: int | None = None
    gpus_per_fleet: int | None = None

    def gpus(self, scope: Scope) -> int | None:
        return {
            Scope.GPU: 1,
            Scope.NODE: self.gpus_per_node,
            Scope.CLUSTER: self.gpus_per_cluster,
            Scope.FLEET: self.gpus_per_fleet,
        }[scope]


@dataclass(frozen=True, slots=True)
class Derivation:
    """A derived figure, or None with the facts that are missing to derive it."""

    value: float | None
    scope: Scope
    missing: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def derived(self) -> bool:
        return self.value is not None


def per_second(value: float, period: str) -> float:
    """A per-period figure as a per-second rate (155e12 tokens/day -> 1.794e9 tok/s)."""
    return value / PERIOD_SECONDS[period]


def _fact_name(scope: Scope) -> str:
    return f"gpus_per_{scope}"


def rate_at_scope(claim: Claim, scope: Scope, facts: ScopeFacts = ScopeFacts()) -> Derivation:
    """The claim per second at another scope, when the GPU counts of both scopes are declared."""
    rate = per_second(claim.value, claim.period)
    if scope is claim.scope:
        return Derivation(rate, scope)
    source_gpus, target_gpus = facts.gpus(claim.scope), facts.gpus(scope)
    if source_gpus is None or target_gpus is None:  # never at GPU scope: one GPU is a GPU
        missing = tuple(
            _fact_name(s)
            for s, n in ((claim.scope, source_gpus), (scope, target_gpus))
            if n is None and s is not Scope.GPU
        )
        return Derivation(
            None,
            scope,
            missing,
            (f"a per-{scope} figure from a per-{claim.scope} claim needs {', '.join(missing)}",),
        )
    return Derivation(
        rate * target_gpus / source_gpus,
        scope,
        notes=(f"assumes every GPU of the {claim.scope} contributes equally",),
    )


def claim_notes(claim: Claim) -> tuple[str, ...]:
    """What a claim can and cannot support, for the report."""
    notes = [f"a per-{claim.scope} figure over a {claim.period}"]
    if claim.kind is ClaimKind.REVENUE:
        notes.append("a revenue figure: token price times throughput, not a cost")
    return tuple(notes)


def rate_per_unit(rate: float, scope: Scope, at: Scope, count: int | None) -> float | None:
    """A claim's rate (tok/s over its scope) per GPU or per node of that scope.

    `count` is the number of GPUs (or nodes) in the claim's scope; None when it is not stated.
    At its own scope the rate is the rate itself.
    """
    if scope is at:
        return rate
    if at not in (Scope.GPU, Scope.NODE) or not count:
        return None
    return rate / count


def compared_at(per: str) -> str:
    """The scope a claim is set beside a system's figure at: per node under `normalize per node`,
    else per GPU (per dollar, MW or rack figures need a price, power or rack size of the claim's
    hardware, which a claim does not state)."""
    return "node" if per == "node" else "gpu"
