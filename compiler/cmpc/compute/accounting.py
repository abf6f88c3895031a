"""Token accounting: which tokens count, and how much of the input was reused from a cache."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cmpc.diagnostics import Diagnostic, warning

DEFAULT_HIT_RATE_MARGIN = 0.05  # five percentage points


@dataclass(frozen=True, slots=True)
class TokenAccounting:
    """Which tokens a throughput counts: output, uncached input, reused (prefix-cached) input."""

    output: bool = True
    uncached_input: bool = False
    reused_input: bool = False

    @property
    def needs_cache_split(self) -> bool:
        """True when exactly one of the two input kinds counts, so the split must be known."""
        return self.uncached_input != self.reused_input

    @property
    def label(self) -> str:
        if self.uncached_input and self.reused_input:
            inputs = "input (reused included)"
        elif self.uncached_input:
            inputs = "uncached input"
        elif self.reused_input:
            inputs = "reused input"
        else:
            inputs = ""
        parts = [p for p in (inputs, "output" if self.output else "") if p]
        return " + ".join(parts) or "no tokens"


OUTPUT_ONLY = TokenAccounting(output=True)
INPUT_AND_OUTPUT = TokenAccounting(output=True, uncached_input=True, reused_input=True)
UNCACHED_INPUT_AND_OUTPUT = TokenAccounting(output=True, uncached_input=True)
INPUT_ONLY = TokenAccounting(output=False, uncached_input=True, reused_input=True)


class CacheSource(StrEnum):
    """Where a cache hit rate comes from."""

    MEASURED = "measured"
    DECLARED = "declared"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class TokenRates:
    """Token rates (or counts) split by kind; `input_cached` is part of all input."""

    input: float
    output: float
    input_cached: float = 0.0
    cache_source: CacheSource = CacheSource.UNKNOWN

    @property
    def input_uncached(self) -> float:
        return self.input - self.input_cached

    @property
    def hit_rate(self) -> float | None:
        if self.cache_source is CacheSource.UNKNOWN or self.input <= 0:
            return None
        return self.input_cached / self.input


def split_input(
    input_tokens: float,
    output_tokens: float,
    *,
    measured_cached: float | None = None,
    declared_hit_rate: float | None = None,
) -> TokenRates:
    """Split input into cached and uncached: measured counts first, a declared hit rate next."""
    if measured_cached is not None:
        return TokenRates(input_tokens, output_tokens, measured_cached, CacheSource.MEASURED)
    if declared_hit_rate is not None:
        cached = input_tokens * declared_hit_rate
        return TokenRates(input_tokens, output_tokens, cached, CacheSource.DECLARED)
    return TokenRates(input_tokens, output_tokens)


def counted_tokens(rates: TokenRates, accounting: TokenAccounting) -> float | None:
    """Tokens that count under the accounting; None when it needs an unknown cache split."""
    if accounting.needs_cache_split and rates.cache_source is CacheSource.UNKNOWN:
        return None
    total = rates.output if accounting.output else 0.0
    # not `+=`: the rates may be arrays of replicates, which the sum must not write into
    if accounting.uncached_input:
        total = total + rates.input_uncached
    if accounting.reused_input:
        total = total + rates.input_cached
    return total


@dataclass(frozen=True, slots=True)
class TokenWeights:
    """Relative weights (e.g. list-price ratios) of each token kind for a blended basis."""

    input: float = 1.0
    output: float = 1.0
    input_cached: float = 1.0


def weighted_tokens(rates: TokenRates, weights: TokenWeights) -> float:
    """Σ weight·count over uncached input, cached input and output."""
    return (
        weights.input * rates.input_uncached
        + weights.input_cached * rates.input_cached
        + weights.output * rates.output
    )


@dataclass(frozen=True, slots=True)
class HitRateGap:
    """Two systems' cache hit rates differ by more than the declared margin."""

    system: str
    hit_rate: float
    source: CacheSource
    baseline: str
    baseline_hit_rate: float
    baseline_source: CacheSource
    margin: float

    @property
    def gap(self) -> float:
        return abs(self.hit_rate - self.baseline_hit_rate)

    def diagnostic(self) -> Diagnostic:
        return warning(
            "W410",
            f"cache hit rates of `{self.system}` and `{self.baseline}` differ by "
            f"{self.gap * 100:.1f} points",
            notes=(
                f"`{self.system}`: {self.hit_rate * 100:.1f}% ({self.source}); "
                f"`{self.baseline}`: {self.baseline_hit_rate * 100:.1f}% ({self.baseline_source}); "
                f"margin {self.margin * 100:g} points",
                "reused input is cheap to serve, so the side with more reuse looks faster",
            ),
            help="compare at matched cache hit rates, or count uncached input + output only",
        )


def hit_rate_gap(
    system: str,
    rates: TokenRates,
    baseline: str,
    baseline_rates: TokenRates,
    margin: float = DEFAULT_HIT_RATE_MARGIN,
) -> HitRateGap | None:
    """A warning value when both hit rates are known and differ by more than `margin`."""
    a, b = rates.hit_rate, baseline_rates.hit_rate
    # Rounded so that 95% vs 90% sits exactly on a 5-point margin despite binary fractions.
    if a is None or b is None or round(abs(a - b), 12) <= margin:
        return None
    return HitRateGap(
        system, a, rates.cache_source, baseline, b, baseline_rates.cache_source, margin
    )
