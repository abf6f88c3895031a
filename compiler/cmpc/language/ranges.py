"""The finite range of each kind of number a spec holds, checked where a number becomes a value."""

from __future__ import annotations

import math
from dataclasses import dataclass

from cmpc.language import units


@dataclass(frozen=True, slots=True)
class Range:
    """Smallest and largest value, in the canonical unit, of one kind of number other than 0."""

    kind: str
    what: str  # how messages name it: "a memory size"
    low: float
    high: float
    unit: str = ""

    def holds(self, value: float) -> bool:
        """Whether `value` (0 aside, which the slot's own rule accepts or not) is in range."""
        return value == 0 or self.low <= abs(value) <= self.high

    def bounds(self) -> str:
        if self.unit == "1":  # a percentage
            return f"{_g(self.low * 100)}% and {_g(self.high * 100)}%"
        unit = f" {self.unit}" if self.unit else ""
        return f"{_g(self.low)}{unit} and {_g(self.high)}{unit}"


def _g(value: float) -> str:
    return f"{value:g}" if value < 1e6 or value != int(value) else f"1e{round(math.log10(value))}"


def _dim(dimension: units.Dimension, low: float, high: float) -> Range:
    return Range(dimension.name, dimension.words.split(" (")[0], low, high, dimension.canonical)


# Wide enough for every real comparison (a fleet's tokens per day, an exabyte of memory, a
# nanosecond), narrow enough that every product the computations form stays a finite double.
BY_DIMENSION: dict[str, Range] = {
    r.kind: r
    for r in (
        _dim(units.TIME, 1e-9, 1e10),
        _dim(units.INTERACTIVITY, 1e-6, 1e9),
        _dim(units.TOKEN_RATE, 1e-9, 1e18),
        _dim(units.TOKEN_RATE_PER_GPU, 1e-9, 1e12),
        _dim(units.TOKEN_RATE_PER_NODE, 1e-9, 1e13),
        _dim(units.TOKEN_COUNT, 1, 1e21),
        _dim(units.REQUEST_RATE, 1e-9, 1e12),
        _dim(units.GPU_HOUR_PRICE, 1e-9, 1e9),
        _dim(units.HOUR_PRICE, 1e-9, 1e12),
        _dim(units.ENERGY_PRICE, 1e-9, 1e6),
        _dim(units.TOKEN_PRICE, 1e-12, 1e9),
        _dim(units.MONEY_PER_GPU, 1e-9, 1e12),
        _dim(units.MONEY, 1e-9, 1e15),
        _dim(units.BYTES, 1, 1e18),
        _dim(units.POWER, 1e-3, 1e12),
        _dim(units.ENERGY, 1e-9, 1e21),
        _dim(units.ENERGY_PER_TOKEN, 1e-12, 1e9),
        _dim(units.FRACTION, 1e-9, 1),
        _dim(units.GPU_COUNT, 1, 1e9),
    )
}

# Plain numbers, by what they count or scale.
COUNT = Range(
    "count", "a count", 1, 1e9
)  # GPUs, nodes, parallel degrees, layers, heads, dims, concurrency
RESAMPLES = Range("resamples", "a bootstrap resample count", 10, 100_000)  # bounds build time
SEED = Range("seed", "a seed", 1, 2**32 - 1)
PARAMS = Range("params", "a parameter count", 1, 1e16)
RATIO = Range(
    "ratio", "a ratio or weight", 1e-9, 1e9
)  # reported ratios, blend weights, a reported point's `conc`
YEARS = Range("years", "a number of years", 1e-3, 1e3)
PUE = Range("pue", "a PUE", 1, 100)  # total over IT power: never below 1
PLAIN: tuple[Range, ...] = (COUNT, PARAMS, RATIO, YEARS, PUE)


def of(dimension: units.Dimension) -> Range:
    return BY_DIMENSION[dimension.name]
