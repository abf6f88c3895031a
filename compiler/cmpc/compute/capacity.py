"""Memory a model needs (weights + KV cache) and the fewest cards that hold it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

GB = 10**9
GiB = 2**30
TiB = 2**40

# Bytes per element; block-scaled formats (MXFP4, NVFP4) add their scales on top, so declare
# bytes per parameter explicitly when that overhead matters.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "fp4": 0.5,
    "int4": 0.5,
}


def dtype_bytes(dtype: str | float) -> float:
    """Bytes per element of a dtype name (`fp8`) or an explicit byte count."""
    if isinstance(dtype, str):
        return DTYPE_BYTES[dtype.lower()]
    return dtype


def weight_bytes(parameters: float, dtype: str | float) -> float:
    """Bytes of the model weights: parameters × bytes per parameter."""
    return parameters * dtype_bytes(dtype)


@dataclass(frozen=True, slots=True)
class AttentionKv:
    """KV cache of multi-head or grouped-query attention: K and V per KV head per layer."""

    layers: int
    kv_heads: int
    head_dim: int
    dtype: str | float

    @property
    def bytes_per_token(self) -> float:
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes(self.dtype)


@dataclass(frozen=True, slots=True)
class LatentKv:
    """KV cache of multi-head latent attention: one compressed latent plus the RoPE key."""

    layers: int
    latent_dim: int
    rope_dim: int
    dtype: str | float

    @property
    def bytes_per_token(self) -> float:
        return self.layers * (self.latent_dim + self.rope_dim) * dtype_bytes(self.dtype)


@dataclass(frozen=True, slots=True)
class MemoryNeed:
    """Bytes of weights and of KV cache for a context length at a concurrency."""

    weights: float
    kv_cache: float
    other: float = 0.0

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.other


def memory_needed(
    weights: float,
    kv_bytes_per_token: float,
    context_tokens: int,
    concurrency: int,
    other: float = 0.0,
) -> MemoryNeed:
    """Weights once, plus a full context of KV cache for every concurrent sequence."""
    return MemoryNeed(weights, kv_bytes_per_token * context_tokens * concurrency, other)


@dataclass(frozen=True, slots=True)
class CardCount:
    """The fewest cards whose usable memory, less a reserve, holds the need."""

    cards: int
    bytes_needed: float
    usable_bytes_per_card: float
    reserve_fraction: float

    @property
    def available_bytes_per_card(self) -> float:
        return self.usable_bytes_per_card * (1 - self.reserve_fraction)


def _exact(value: float) -> Fraction:
    # The shortest decimal that round-trips (0.1, not 0.1000000000000000055...), so an exact fit
    # such as 270 GB on 3 cards of 100 GB less a 10% reserve is 3 cards, never 4.
    if isinstance(value, int):
        return Fraction(value)
    return Fraction(repr(float(value)))


def fewest_cards(
    bytes_needed: float, usable_bytes_per_card: float, reserve_fraction: float = 0.0
) -> CardCount:
    """ceil(need / (usable × (1 − reserve))), computed exactly on the values as written."""
    available = _exact(usable_bytes_per_card) * (1 - _exact(reserve_fraction))
    cards = math.ceil(_exact(bytes_needed) / available)
    return CardCount(max(cards, 1), bytes_needed, usable_bytes_per_card, reserve_fraction)
