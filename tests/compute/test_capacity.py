"""Weight and KV-cache bytes, and the fewest cards that hold them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cmpc.compute.capacity import (
    GB,
    AttentionKv,
    LatentKv,
    TiB,
    fewest_cards,
    memory_needed,
    weight_bytes,
)


def test_kv_cache_of_a_128k_sequence_is_one_tebibyte():
    # 128 layers × 128 KV heads × 128 dims × 131,072 tokens × (K and V) × 2 bytes.
    kv = AttentionKv(layers=128, kv_heads=128, head_dim=128, dtype="bf16")
    per_sequence = kv.bytes_per_token * 131_072
    assert per_sequence == TiB == 2**40
    # One source article says 64 GB; the arithmetic says about 17 times that.
    assert per_sequence / (64 * GB) == pytest.approx(17.18, abs=0.01)


def test_grouped_query_attention_llama_70b():
    # 80 layers, 8 KV heads of 128 dims, bf16: 320 KiB per token.
    assert AttentionKv(80, 8, 128, "bf16").bytes_per_token == 320 * 1024


def test_latent_attention_deepseek_v3():
    # 61 layers of a 512-dim latent plus a 64-dim RoPE key, bf16.
    assert LatentKv(61, 512, 64, "bf16").bytes_per_token == 61 * 576 * 2


def test_explicit_bytes_per_element():
    assert AttentionKv(2, 1, 4, 1.0).bytes_per_token == 16
    assert weight_bytes(1e9, 0.5625) == 0.5625e9  # e.g. a block-scaled 4-bit format


def test_memory_for_context_and_concurrency():
    need = memory_needed(
        weight_bytes(70e9, "bf16"),
        AttentionKv(80, 8, 128, "bf16").bytes_per_token,
        context_tokens=8192,
        concurrency=64,
    )
    assert need.weights == 140e9
    assert need.kv_cache == 327_680 * 8192 * 64
    assert need.total == pytest.approx(311.8e9, rel=1e-3)


def test_fewest_cards_with_and_without_a_reserve():
    need = 311.8e9
    assert fewest_cards(need, 80 * GB).cards == 4
    assert fewest_cards(need, 80 * GB, reserve_fraction=0.1).cards == 5


def test_an_exact_fit_is_not_rounded_up():
    assert fewest_cards(270 * GB * 3, 270 * GB).cards == 3
    assert fewest_cards(0.9 * 3 * 100, 100, reserve_fraction=0.1).cards == 3
    assert fewest_cards(np.float64(270.0), np.float64(100.0), np.float64(0.1)).cards == 3


@given(
    st.floats(1, 1e13, allow_nan=False),
    st.floats(1e9, 3e11, allow_nan=False),
    st.floats(0, 0.5, allow_nan=False),
)
def test_fewest_cards_is_the_least_count_that_fits(need, usable, reserve):
    count = fewest_cards(need, usable, reserve)
    available = usable * (1 - reserve)
    assert count.cards * available >= need * (1 - 1e-12)
    assert count.cards == 1 or (count.cards - 1) * available < need * (1 + 1e-12)
