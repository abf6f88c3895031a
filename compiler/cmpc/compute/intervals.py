"""Bootstrap confidence intervals from replicates: percentile and BCa (pure numpy).

Specs select `percentile` only (language.vocabulary.INTERVAL_METHODS); BCa was withdrawn
(E135) and stays here so benchmarks/coverage.py can show why (docs/statistics.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

METHODS = ("percentile", "bca")


@dataclass(frozen=True)
class Interval:
    """A two-sided interval at `confidence`, from `replicates` finite bootstrap replicates."""

    low: float
    high: float
    confidence: float
    method: str
    replicates: int

    def holds(self, value: float) -> bool:
        """Whether `value` lies inside the interval (ends included)."""
        return self.low <= value <= self.high

    def as_list(self) -> list[float]:
        return [self.low, self.high]


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[float])
    out: np.ndarray = 0.5 * (1.0 + erf(z / math.sqrt(2.0)))
    return out


def normal_ppf(p: float) -> float:
    """The standard normal quantile (Acklam's rational approximation, then one Newton step)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    a = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
         -30.66479806614716, 2.506628277459239)  # fmt: skip
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
         -13.28068155288572)  # fmt: skip
    c = (-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
         4.374664141464968, 2.938163982698783)  # fmt: skip
    d = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    low = 0.02425
    if p < low:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p > 1 - low:
        q = math.sqrt(-2 * math.log(1 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p
    return x - e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)


def acceleration(jack: Sequence[float] | np.ndarray) -> float:
    """BCa's acceleration from jackknife values: sum(d^3) / (6 sum(d^2)^1.5), d = mean - value
    (Efron and Tibshirani 1993, eq. 14.15); 0 without spread."""
    values = np.asarray(jack, dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 2:
        return 0.0
    d = values.mean() - values
    spread = float(np.sum(d * d))
    return float(np.sum(d**3)) / (6.0 * spread**1.5) if spread > 0 else 0.0


def interval(
    replicates: Sequence[float] | np.ndarray,
    estimate: float,
    confidence: float,
    method: str = "percentile",
    accel: float | None = None,
) -> Interval | None:
    """The bootstrap interval of `estimate` from its replicates (non-finite ones dropped).

    `bca` is Efron's bias-corrected and accelerated interval; `accel` is its acceleration
    (`acceleration` of jackknife values), 0 when not given (then bias-corrected only). None:
    fewer than ten finite replicates, or an estimate that is not finite.
    """
    if method not in METHODS:
        raise ValueError(f"unknown interval method `{method}`")
    values = np.asarray(replicates, dtype=float)
    values = np.sort(values[np.isfinite(values)])
    if values.size < 10 or not math.isfinite(estimate):
        return None
    alpha = (1.0 - confidence) / 2.0
    levels = np.array([alpha, 1.0 - alpha])
    if method == "bca":
        below = float(np.mean(values < estimate)) + 0.5 * float(np.mean(values == estimate))
        below = min(max(below, 0.5 / values.size), 1 - 0.5 / values.size)
        z0 = normal_ppf(below)
        a = accel or 0.0
        z = np.array([normal_ppf(float(p)) for p in levels])
        adjusted = z0 + (z0 + z) / (1 - a * (z0 + z))
        levels = _normal_cdf(adjusted)
    low, high = sorted_quantiles(values, levels)
    return Interval(float(low), float(high), confidence, method, int(values.size))


def sorted_quantiles(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """`np.quantile(values, levels, method="linear")` of sorted values, value for value, without
    numpy's partition: its np.unique imports numpy.ma (about 15 ms a build)."""
    plain = values.ndim == 1 and values.size and not math.isnan(float(values[-1]))  # NaN: last
    if not plain or not bool(np.all((levels >= 0) & (levels <= 1))):
        return np.asarray(np.quantile(values, levels, method="linear"))  # as numpy says, or raises
    # numpy's _get_indexes, _get_gamma and _lerp, step for step (index -1 is the top value)
    virtual = (values.size - 1) * levels
    before = np.floor(virtual)
    after = before + 1
    top = virtual >= values.size - 1
    before[top] = -1
    after[top] = -1
    gamma = virtual - before
    a, b = values[before.astype(np.intp)], values[after.astype(np.intp)]
    diff = b - a
    out: np.ndarray = np.add(a, diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


def within_noise(ci: Interval | None, tie_band: float) -> bool:
    """A ratio's interval that holds 1, or lies wholly inside the tie band around 1."""
    if ci is None:
        return False
    return ci.holds(1.0) or (1 - tie_band <= ci.low and ci.high <= 1 + tie_band)


def spread(values: Sequence[float]) -> tuple[float, float, float | None]:
    """Mean, sample standard deviation (n - 1) and coefficient of variation of repetitions."""
    x = np.asarray(values, dtype=float)
    mean = float(np.mean(x))
    std = float(np.std(x, ddof=1)) if x.size > 1 else 0.0
    return mean, std, (std / mean if mean else None)
