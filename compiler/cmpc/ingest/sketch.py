"""Opt-in DDSketch percentiles: mergeable, one pass, each within a stated relative error."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Bins:
    """A DDSketch's content: integer counts per bin key, mergeable by adding counts.

    Keys are the library's LogarithmicMapping keys of |value|; `positive` and `negative` hold
    (key, count) pairs sorted by key, `zero` counts the values too small to map.
    """

    alpha: float
    zero: int = 0
    positive: tuple[tuple[int, int], ...] = ()
    negative: tuple[tuple[int, int], ...] = ()

    @property
    def count(self) -> int:
        return self.zero + sum(c for _, c in self.positive) + sum(c for _, c in self.negative)


def _mapping(alpha: float) -> Any:
    """The library's LogarithmicMapping, the one `DDSketch(relative_accuracy=α)` uses."""
    try:
        from ddsketch.mapping import LogarithmicMapping
    except ImportError:
        raise SketchUnavailable("ddsketch is not installed") from None
    return LogarithmicMapping(alpha)


def sketch_of(values: np.ndarray, alpha: float) -> Bins:
    """The bins `DDSketch(relative_accuracy=α)` holds once every value is added, counted in
    one vectorized pass (the library adds one value per Python call: 50x slower).

    A key is ⌈log₂|x|·m⌉ for the mapping's multiplier m, as the library computes it; the few
    values whose log lands within 1e-6 of a bin edge (where numpy's log may differ from the C
    library's by an ulp) are keyed by the library's own `mapping.key`. Values that are not
    finite are not latencies and are left out.
    """
    mapping = _mapping(alpha)
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    tiny = mapping.min_possible
    positive, negative = x[x > tiny], -x[x < -tiny]
    zero = int(x.size - positive.size - negative.size)
    return Bins(alpha, zero, _counted(positive, mapping), _counted(negative, mapping))


def _counted(x: np.ndarray, mapping: Any) -> tuple[tuple[int, int], ...]:
    if not x.size:
        return ()
    raw = np.log(x) / math.log(2) * mapping._multiplier  # the library's _log_gamma, vectorized
    keys = np.ceil(raw).astype(np.int64)
    edge = np.abs(raw - np.rint(raw)) < 1e-6
    if edge.any():
        keys[edge] = [mapping.key(v) for v in x[edge].tolist()]
    found, counts = np.unique(keys, return_counts=True)
    return tuple(zip(found.tolist(), counts.tolist(), strict=True))


def merged(sketches: Iterable[Bins]) -> Bins:
    """The sketch of the union: counts added per key (integers, so any order gives the same)."""
    found = list(sketches)
    if not found:
        raise ValueError("no sketch to merge")
    alphas = {b.alpha for b in found}
    if len(alphas) != 1:
        raise ValueError(f"sketches of different relative accuracy: {sorted(alphas)}")
    return Bins(
        found[0].alpha,
        sum(b.zero for b in found),
        _added(b.positive for b in found),
        _added(b.negative for b in found),
    )


def _added(groups: Iterable[tuple[tuple[int, int], ...]]) -> tuple[tuple[int, int], ...]:
    total: dict[int, int] = {}
    for pairs in groups:
        for key, count in pairs:
            total[key] = total.get(key, 0) + count
    return tuple(sorted(total.items()))


def quantile_of(bins: Bins, q: float) -> float | None:
    """The library's quantile query (`DDSketch.get_quantile_value`) on `bins`; None if empty."""
    count = bins.count
    if not 0 <= q <= 1 or count == 0:
        return None
    mapping = _mapping(bins.alpha)
    rank = q * (count - 1)
    negatives = sum(c for _, c in bins.negative)
    if rank < negatives:
        reversed_rank = negatives - rank - 1
        return -float(mapping.value(_key_at(bins.negative, reversed_rank, lower=False)))
    if rank < bins.zero + negatives:
        return 0.0
    return float(mapping.value(_key_at(bins.positive, rank - bins.zero - negatives)))


def _key_at(pairs: tuple[tuple[int, int], ...], rank: float, lower: bool = True) -> int:
    """DenseStore.key_at_rank on (key, count) pairs."""
    running = 0
    for key, count in pairs:
        running += count
        if (lower and running > rank) or (not lower and running >= rank + 1):
            return key
    return pairs[-1][0]


def quantiles(values: np.ndarray, qs: Mapping[str, float], alpha: float) -> dict[str, float]:
    """Each named quantile (q in [0, 1]) of `values` from one DDSketch of relative accuracy α.

    DDSketch guarantees |estimate − x| ≤ α·|x| for x the value of rank ⌊q·(n−1)⌋ among the
    values added (not numpy's interpolation between ranks), and two sketches merge into the
    sketch of the union with the same guarantee.
    """
    bins = sketch_of(values, alpha)
    out: dict[str, float] = {}
    for name, q in qs.items():
        found = quantile_of(bins, q)
        if found is not None:
            out[name] = found
    return out


def pack(bins: Bins) -> str:
    """A sketch as compact text for the cache: JSON of alpha, zero and run-length bins."""
    return json.dumps(
        {
            "alpha": bins.alpha,
            "zero": bins.zero,
            "positive": _dense(bins.positive),
            "negative": _dense(bins.negative),
        },
        separators=(",", ":"),
    )


def _dense(pairs: tuple[tuple[int, int], ...]) -> list[object]:
    """[first key, [count per key from there]]: latencies fill a narrow band of keys."""
    if not pairs:
        return []
    first, last = pairs[0][0], pairs[-1][0]
    counts = [0] * (last - first + 1)
    for key, count in pairs:
        counts[key - first] = count
    return [first, counts]


def unpack(text: str) -> Bins | None:
    """The sketch `pack` wrote, or None when the text is not one (a damaged cache entry)."""
    try:
        doc = json.loads(text)
        alpha, zero = float(doc["alpha"]), doc["zero"]
        positive, negative = _sparse(doc["positive"]), _sparse(doc["negative"])
    except (ValueError, KeyError, TypeError):
        return None
    if type(zero) is not int or not 0 < alpha < 1:
        return None
    return Bins(alpha, zero, positive, negative)


def _sparse(dense: object) -> tuple[tuple[int, int], ...]:
    if dense == []:
        return ()
    if not isinstance(dense, list) or len(dense) != 2:
        raise ValueError("bins: not [first key, counts]")
    first, counts = dense
    if type(first) is not int or not isinstance(counts, list):
        raise ValueError("bins: not [first key, counts]")
    if not all(type(c) is int and c >= 0 for c in counts):
        raise ValueError("bins: a count is not a non-negative integer")
    return tuple((first + i, c) for i, c in enumerate(counts) if c)


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
