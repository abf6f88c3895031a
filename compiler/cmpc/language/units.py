"""Units of quantity literals: each unit's dimension and its factor to the canonical unit."""

from __future__ import annotations

from dataclasses import dataclass


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

_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
_TIME |= {"day": 86400.0, "days": 86400.0, "year": 365 * 86400.0, "years": 365 * 86400.0}
_PER_TIME = {"s": 1.0, "ms": 1e3, "h": 1 / 3600, "day": 1 / 86400, "year": 1 / (365 * 86400)}
_BYTES = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
_BYTES |= {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def _table() -> dict[str, tuple[Dimension, float]]:
    table: dict[str, tuple[Dimension, float]] = {"%": (FRACTION, 0.01)}
    table |= {u: (TIME, f) for u, f in _TIME.items()}
    table |= {u: (BYTES, float(f)) for u, f in _BYTES.items()}
    for tok in ("tok", "tokens", "token"):
        table[tok] = (TOKEN_COUNT, 1.0)
        for per, f in _PER_TIME.items():
            table[f"{tok}/{per}"] = (TOKEN_RATE, f)
            table[f"{tok}/{per}/gpu"] = (TOKEN_RATE_PER_GPU, f)
            table[f"{tok}/{per}/GPU"] = (TOKEN_RATE_PER_GPU, f)
            table[f"{tok}/{per}/node"] = (TOKEN_RATE_PER_NODE, f)
        table[f"{tok}/s/user"] = (INTERACTIVITY, 1.0)
    for req in ("req", "requests"):
        table[f"{req}/s"] = (REQUEST_RATE, 1.0)
        table[f"{req}/min"] = (REQUEST_RATE, 1 / 60)
    for gpu in ("gpu", "gpus", "GPU", "GPUs"):
        table[gpu] = (GPU_COUNT, 1.0)
    for cur in ("USD",):
        table[cur] = (MONEY, 1.0)
        table[f"{cur}/gpu/h"] = (GPU_HOUR_PRICE, 1.0)
        table[f"{cur}/GPU/h"] = (GPU_HOUR_PRICE, 1.0)
        table[f"{cur}/h"] = (HOUR_PRICE, 1.0)
        table[f"{cur}/kWh"] = (ENERGY_PRICE, 1.0)
        table[f"{cur}/MWh"] = (ENERGY_PRICE, 1e-3)
        table[f"{cur}/M"] = (TOKEN_PRICE, 1.0)
        table[f"{cur}/Mtok"] = (TOKEN_PRICE, 1.0)
        table[f"{cur}/gpu"] = (MONEY_PER_GPU, 1.0)
        table[f"{cur}/GPU"] = (MONEY_PER_GPU, 1.0)
    table |= {"W": (POWER, 1.0), "kW": (POWER, 1e3), "MW": (POWER, 1e6), "GW": (POWER, 1e9)}
    table |= {"J": (ENERGY, 1.0), "kJ": (ENERGY, 1e3), "Wh": (ENERGY, 3600.0)}
    table |= {"kWh": (ENERGY, 3.6e6), "MWh": (ENERGY, 3.6e9)}
    table |= {"J/token": (ENERGY_PER_TOKEN, 1.0), "J/tok": (ENERGY_PER_TOKEN, 1.0)}
    return table


UNITS: dict[str, tuple[Dimension, float]] = _table()


def lookup(unit: str) -> tuple[Dimension, float] | None:
    """The dimension of a unit and the factor that converts it to the canonical unit."""
    return UNITS.get(unit)


def units_of(dimension: Dimension) -> list[str]:
    """Every unit of a dimension, for help texts and the language reference."""
    return [u for u, (d, _) in UNITS.items() if d == dimension]
