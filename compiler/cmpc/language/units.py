"""Units of quantity literals: each unit's dimension and its factor to the canonical unit.

Every conversion of a decimal literal is one correctly rounded operation: the literal's text,
read exactly, times the unit's exact factor, rounded once to the nearest double (`convert`).
So `70%` is 0.7 and `7 ms` is 0.007 s, never 0.7000000000000001 from `70 * 0.01`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class Dimension:
    """A kind of quantity, with its canonical unit and how the language describes it."""

    name: str
    canonical: str
    words: str


TIME = Dimension("time", "s", "a duration (ms, s, h)")
INTERACTIVITY = Dimension("interactivity", "tok/s/user", "an interactivity (tok/s/user)")
TOKEN_RATE = Dimension("token_rate", "tok/s", "a token rate (tok/s, tokens/day)")
TOKEN_RATE_PER_GPU = Dimension("token_rate_per_gpu", "tok/s/gpu", "a rate per GPU (tok/s/gpu)")
TOKEN_RATE_PER_NODE = Dimension("token_rate_per_node", "tok/s/node", "a rate per node")
TOKEN_COUNT = Dimension("token_count", "tokens", "a token count (tokens)")
REQUEST_RATE = Dimension("request_rate", "req/s", "a request rate (req/s)")
GPU_HOUR_PRICE = Dimension("gpu_hour_price", "USD/gpu/h", "a price per GPU-hour (USD/gpu/h)")
HOUR_PRICE = Dimension("hour_price", "USD/h", "a price per hour (USD/h)")
ENERGY_PRICE = Dimension("energy_price", "USD/kWh", "an energy price (USD/kWh)")
TOKEN_PRICE = Dimension("token_price", "USD/Mtok", "a token price (USD/Mtok)")
MONEY_PER_GPU = Dimension("money_per_gpu", "USD/gpu", "an amount per GPU (USD/gpu)")
MONEY = Dimension("money", "USD", "an amount of money (USD)")
BYTES = Dimension("bytes", "B", "a memory size (GB, GiB)")
POWER = Dimension("power", "W", "a power (W, kW)")
ENERGY = Dimension("energy", "J", "an energy (J, kWh)")
ENERGY_PER_TOKEN = Dimension("energy_per_token", "J/token", "an energy per token (J/token)")
FRACTION = Dimension("fraction", "1", "a percentage (60%)")
GPU_COUNT = Dimension("gpu_count", "gpus", "a GPU count (gpus)")

_TIME = {"ns": Fraction(1, 10**9), "us": Fraction(1, 10**6), "ms": Fraction(1, 1000)}
_TIME |= {"s": Fraction(1), "min": Fraction(60), "h": Fraction(3600)}
_TIME |= {"day": Fraction(86400), "days": Fraction(86400)}
_TIME |= {"year": Fraction(365 * 86400), "years": Fraction(365 * 86400)}
_PER_TIME = {u: 1 / _TIME[u] for u in ("s", "ms", "h", "day", "year")}
_BYTES = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_BYTES |= {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _table() -> dict[str, tuple[Dimension, Fraction]]:
    one = Fraction(1)
    table: dict[str, tuple[Dimension, Fraction]] = {"%": (FRACTION, Fraction(1, 100))}
    table |= {u: (TIME, f) for u, f in _TIME.items()}
    table |= {u: (BYTES, Fraction(f)) for u, f in _BYTES.items()}
    for tok in ("tok", "tokens", "token"):
        table[tok] = (TOKEN_COUNT, one)
        for per, f in _PER_TIME.items():
            table[f"{tok}/{per}"] = (TOKEN_RATE, f)
            table[f"{tok}/{per}/gpu"] = (TOKEN_RATE_PER_GPU, f)
            table[f"{tok}/{per}/GPU"] = (TOKEN_RATE_PER_GPU, f)
            table[f"{tok}/{per}/node"] = (TOKEN_RATE_PER_NODE, f)
        table[f"{tok}/s/user"] = (INTERACTIVITY, one)
    for req in ("req", "requests"):
        table[f"{req}/s"] = (REQUEST_RATE, one)
        table[f"{req}/min"] = (REQUEST_RATE, Fraction(1, 60))
    for gpu in ("gpu", "gpus", "GPU", "GPUs"):
        table[gpu] = (GPU_COUNT, one)
    for cur in ("USD",):
        table[cur] = (MONEY, one)
        table[f"{cur}/gpu/h"] = (GPU_HOUR_PRICE, one)
        table[f"{cur}/GPU/h"] = (GPU_HOUR_PRICE, one)
        table[f"{cur}/h"] = (HOUR_PRICE, one)
        table[f"{cur}/kWh"] = (ENERGY_PRICE, one)
        table[f"{cur}/MWh"] = (ENERGY_PRICE, Fraction(1, 1000))
        table[f"{cur}/M"] = (TOKEN_PRICE, one)
        table[f"{cur}/Mtok"] = (TOKEN_PRICE, one)
        table[f"{cur}/gpu"] = (MONEY_PER_GPU, one)
        table[f"{cur}/GPU"] = (MONEY_PER_GPU, one)
    table |= {"W": (POWER, one), "kW": (POWER, Fraction(10**3))}
    table |= {"MW": (POWER, Fraction(10**6)), "GW": (POWER, Fraction(10**9))}
    table |= {"J": (ENERGY, one), "kJ": (ENERGY, Fraction(10**3)), "Wh": (ENERGY, Fraction(3600))}
    table |= {"kWh": (ENERGY, Fraction(3_600_000)), "MWh": (ENERGY, Fraction(3_600_000_000))}
    table |= {"J/token": (ENERGY_PER_TOKEN, one), "J/tok": (ENERGY_PER_TOKEN, one)}
    return table


UNITS: dict[str, tuple[Dimension, Fraction]] = _table()


def lookup(unit: str) -> tuple[Dimension, Fraction] | None:
    """The dimension of a unit and the exact factor that converts it to the canonical unit."""
    return UNITS.get(unit)


# A double's halfway points have at most 767 significant decimal digits, so digits past the
# 800th only matter as "some nonzero digit follows" (a sticky digit, as strtod keeps): the
# rounding stays exact and a 200,000-digit literal costs microseconds, not seconds.
_SIGNIFICANT = 800
# Past 10^±400 every canonical value is 0 or infinite (factors lie within 10^±10); the range
# checks reject it either way, so no 10^999999 is ever built as an integer.
_MAGNITUDE = 400


def convert(text: str, factor: Fraction = Fraction(1)) -> float:
    """The decimal literal `text` times `factor`, rounded once to the nearest double."""
    number = Decimal(text)
    if not number.is_finite() or not number or abs(number.adjusted()) > _MAGNITUDE:
        return float(number) * float(factor)
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)  # finite, checked above
    if len(digits) > _SIGNIFICANT:
        exponent += len(digits) - _SIGNIFICANT - 1
        digits = (*digits[:_SIGNIFICANT], 1 if any(digits[_SIGNIFICANT:]) else 0)
    exact = Fraction(Decimal((sign, digits, exponent))) * factor
    try:
        return float(exact)
    except OverflowError:  # beyond the largest double: infinite, as float() of the text is
        return math.inf if exact > 0 else -math.inf


def shown_in_seconds(unit: str) -> bool:
    """A duration given in s, min or h is shown in s; ms, us and ns (and no unit) in ms."""
    found = UNITS.get(unit)
    return found is not None and found[0] == TIME and found[1] >= 1


def units_of(dimension: Dimension) -> list[str]:
    """Every unit of a dimension, for help texts and the language reference."""
    return [u for u, (d, _) in UNITS.items() if d == dimension]
