"""InferenceX's calculator read: its Steffen slopes (ends included) and Hermite evaluation.

A port of the rule of SemiAnalysisAI/InferenceX-app `packages/app/src/components/calculator/
interpolation.ts` (`monotoneSlopes`, `hermiteInterpolate`, the clamp of `interpolateForGPU`'s
`buildMetric`; commit 4399639) and of its Python twin `.claude/skills/write-inferencex-blog/
iso_interactivity.py` (`interpolate_metric`), operation for operation so the floats agree.

It differs from `read steffen` (d3's drawn curve) in one place: the end slopes
`m0 = (3·s0 − m1)/2` and `m(n−1) = (3·s(n−2) − m(n−2))/2` are applied on a two-knot frontier too,
where m1 is still 0 when m0 is computed, so the segment bends (m0 = 3s/2, m1 = 3s/4) instead of
being d3's straight line. Their `sign` is d3's: zero counts as positive.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload


def _sign(value: float) -> float:
    return -1.0 if value < 0 else 1.0


def monotone_slopes(xs: Sequence[float], ys: Sequence[float]) -> list[float]:
    """Knot slopes as the calculator's `monotoneSlopes` computes them."""
    n = len(xs)
    if n < 2:
        return [0.0] * n
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    s = [0.0 if h[i] == 0 else (ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]
    m = [0.0] * n
    for i in range(1, n - 1):
        s0, s1, h0, h1 = s[i - 1], s[i], h[i - 1], h[i]
        denominator = h0 + h1
        p = (s0 * h1 + s1 * h0) / denominator if denominator else 0.0
        slope = (_sign(s0) + _sign(s1)) * min(abs(s0), abs(s1), 0.5 * abs(p))
        m[i] = slope if slope == slope and slope != 0 else 0.0  # JS `|| 0`: NaN and -0 are 0
    # In this order: m[0] sees the interior m[1] (0 on two knots), m[n-1] the new m[n-2].
    m[0] = (3 * s[0] - m[1]) / 2 if h[0] else m[1]
    m[n - 1] = (3 * s[n - 2] - m[n - 2]) / 2 if h[n - 2] else m[n - 2]
    return m


def hermite(xs: Sequence[float], ys: Sequence[float], m: Sequence[float], target: float) -> float:
    """The calculator's `hermiteInterpolate`: the cubic at `target`, the end value outside."""
    n = len(xs)
    if n == 0:
        return 0.0
    if n == 1 or target <= xs[0]:
        return ys[0]
    if target >= xs[n - 1]:
        return ys[n - 1]
    lo, hi = 0, n - 1
    while lo < hi - 1:
        mid = (lo + hi) >> 1
        if xs[mid] <= target:
            lo = mid
        else:
            hi = mid
    hh = xs[hi] - xs[lo]
    if hh == 0:
        return ys[lo]
    h00, h10, h01, h11 = hermite_basis((target - xs[lo]) / hh)
    return h00 * ys[lo] + h10 * hh * m[lo] + h01 * ys[hi] + h11 * hh * m[hi]


@overload
def hermite_basis(t: float) -> tuple[float, float, float, float]: ...
@overload
def hermite_basis(t: Any) -> tuple[Any, Any, Any, Any]: ...
def hermite_basis(t: Any) -> tuple[Any, Any, Any, Any]:
    """The cubic Hermite basis at `t` (a float, or a numpy array: the same operations in the
    same order, so a batch of replicates reads bit for bit what one read gives)."""
    t2 = t * t
    t3 = t2 * t
    return 2 * t3 - 3 * t2 + 1, t3 - 2 * t2 + t, -2 * t3 + 3 * t2, t3 - t2


def calculator_value(xs: Sequence[float], ys: Sequence[float], target: float) -> float:
    """The calculator's read at `target`, clamped to the knots' y-range (no overshoot)."""
    raw = hermite(xs, ys, monotone_slopes(xs, ys), target)
    return max(min(ys), min(max(ys), raw))
