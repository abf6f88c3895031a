"""Opt-in DDSketch percentiles: mergeable, one pass, each within a stated relative error."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cmpc.jsontypes import JsonObject

LIBRARY = "ddsketch"  # DataDog's maintained Python implementation (the `sketch` extra)


class SketchUnavailable(Exception):
    """ddsketch (the `sketch` extra) is not installed."""


def available() -> bool:
    """Whether the sketch library can be imported."""
    try:
        import ddsketch  # noqa: F401
    except ImportError:
        return False
    return True


def method_name(alpha: float) -> str:
    """The percentile method a cache key records for sketched percentiles."""
    return f"ddsketch alpha={alpha!r}"


def quantiles(values: np.ndarray, qs: Mapping[str, float], alpha: float) -> dict[str, float]:
    """Each named quantile (q in [0, 1]) of `values` from one DDSketch of relative accuracy α.

    DDSketch guarantees |estimate − x| ≤ α·|x| for x the value of rank ⌊q·(n−1)⌋ among the
    values added (not numpy's interpolation between ranks), and two sketches merge into the
    sketch of the union with the same guarantee.
    """
    try:
        from ddsketch import DDSketch
    except ImportError:
        raise SketchUnavailable("ddsketch is not installed") from None
    sketch = DDSketch(relative_accuracy=alpha)
    for value in values.tolist():
        sketch.add(value)
    out: dict[str, float] = {}
    for name, q in qs.items():
        found = sketch.get_quantile_value(q)
        if found is not None:
            out[name] = float(found)
    return out


def sketch_condition(alpha: float) -> JsonObject:
    """What results.json records of sketched percentiles (the report's footnote reads it)."""
    return {
        "library": LIBRARY,
        "kind": "DDSketch",
        "relative_accuracy": alpha,
        "bound": (
            f"each percentile within ±{alpha:.2%} (relative) of the sample value of rank "
            "⌊q·(n−1)⌋, the lower of the two values numpy's linear percentile interpolates between"
        ),
        "exact": ["mean", "throughput", "token counts"],
    }
