"""Published claims: period and scope conversions, missing facts, revenue is not a cost."""

from __future__ import annotations

import pytest

from cmpc.compute.claims import (
    Claim,
    ClaimKind,
    Scope,
    ScopeFacts,
    claim_notes,
    per_second,
    rate_at_scope,
)

CLUSTER_CLAIM = Claim(155e12, ClaimKind.TOKENS, Scope.CLUSTER, "day")


def test_tokens_per_day_to_tokens_per_second():
    assert per_second(155e12, "day") == pytest.approx(1.794e9, rel=5e-4)
    assert round(per_second(155e12, "day") / 1e9, 3) == 1.794


def test_same_scope_needs_no_facts():
    derivation = rate_at_scope(CLUSTER_CLAIM, Scope.CLUSTER)
    assert derivation.value == pytest.approx(155e12 / 86_400)


def test_per_gpu_rate_needs_the_cluster_gpu_count():
    derivation = rate_at_scope(CLUSTER_CLAIM, Scope.GPU)
    assert not derivation.derived
    assert derivation.missing == ("gpus_per_cluster",)
    assert "gpus_per_cluster" in derivation.notes[0]


def test_per_gpu_rate_with_the_cluster_gpu_count():
    derivation = rate_at_scope(CLUSTER_CLAIM, Scope.GPU, ScopeFacts(gpus_per_cluster=100_000))
    assert derivation.value == pytest.approx(155e12 / 86_400 / 100_000)


def test_node_to_cluster_needs_both_counts():
    claim = Claim(20_000, ClaimKind.TOKENS, Scope.NODE)
    missing = rate_at_scope(claim, Scope.CLUSTER, ScopeFacts(gpus_per_cluster=1024))
    assert missing.missing == ("gpus_per_node",)
    facts = ScopeFacts(gpus_per_node=8, gpus_per_cluster=1024)
    assert rate_at_scope(claim, Scope.CLUSTER, facts).value == pytest.approx(20_000 * 128)


def test_revenue_is_stated_but_never_a_cost():
    revenue = Claim(38, ClaimKind.REVENUE, Scope.GPU, "hour")
    assert any("not a cost" in note for note in claim_notes(revenue))
