"""The memory a model needs at the declared context and concurrency, and the cards it takes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.hardware import gpu_count
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.compute import capacity as memory
else:  # only a spec with a capacity block sizes memory (fractions and its tables)
    memory = lazy.module("cmpc.compute.capacity")


def capacity(c: ir.Comparison) -> T.CapacityResult | None:
    """Weights and KV cache in bytes, and per system the fewest cards that hold them."""
    cap = c.capacity
    if cap is None:
        return None
    weights = cap.weight_bytes
    if weights is None and cap.params is not None and cap.weight_dtype:
        weights = memory.weight_bytes(cap.params, cap.weight_dtype)
    kv: memory.LatentKv | memory.AttentionKv
    # the checker refuses a capacity without `layers`, and without `latent_dim` or both
    # `kv_heads` and `head_dim` (E106)
    assert cap.layers is not None
    if cap.latent_dim is not None:
        kv = memory.LatentKv(cap.layers, cap.latent_dim, cap.rope_dim or 0, cap.kv_dtype)
    else:
        assert cap.kv_heads is not None and cap.head_dim is not None
        kv = memory.AttentionKv(cap.layers, cap.kv_heads, cap.head_dim, cap.kv_dtype)
    need = memory.memory_needed(
        weights or 0.0, kv.bytes_per_token, cap.context_tokens or 0, cap.concurrency
    )
    per_system: list[T.CapacitySystem] = []
    for s in c.systems:
        usable = s.usable_memory_bytes or s.memory_bytes
        cards = memory.fewest_cards(need.total, usable, cap.reserve).cards if usable else None
        per_system.append(
            {
                "system": s.name,
                "usable_bytes_per_card": usable,
                "usable_is_nominal": s.usable_memory_bytes is None,
                "cards_needed": cards,
                "cards_declared": gpu_count(s),
                "fits": _fits(cards, gpu_count(s)),
            }
        )
    return {
        "weight_bytes": weights,
        "kv_bytes_per_token": kv.bytes_per_token,
        "kv_bytes": need.kv_cache,
        "bytes_needed": need.total,
        "context_tokens": cap.context_tokens,
        "concurrency": cap.concurrency,
        "reserve": cap.reserve,
        "systems": per_system,
    }


def _fits(needed: int | None, declared: int | None) -> bool | None:
    """Whether the declared load fits on the system's cards (None: either count unknown)."""
    if needed is None or declared is None:
        return None
    return needed <= declared


def capacity_warnings(c: ir.Comparison, result: T.CapacityResult | None) -> list[Diagnostic]:
    """W517 for each system on which the declared context and concurrency do not fit."""
    if result is None:
        return []
    return [
        warning(
            "W517",
            f"the declared load does not fit on `{s['system']}`: at a context of "
            f"{result['context_tokens'] or 0:,} tokens x concurrency {result['concurrency']} it "
            f"needs {s['cards_needed']} cards, the system has {s['cards_declared']}",
            file=c.file,
            help="add cards, or lower `capacity { context }` or `capacity { concurrency }`",
            origin="/capacity",
        )
        for s in result["systems"]
        if s["fits"] is False
    ]
