"""A run's values of the constrained metric, packed so statistics can pool runs.

Exact (the default): the run's values sorted, as base64 float64, so the pooled percentile is
numpy's `linear` percentile of every request of the pooled runs. With `--sketch` the worker
packs the run's DDSketch bins instead; pooling adds the bins (order-independent) and the
pooled quantile keeps the sketch's bound.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cmpc.ingest import sketch

EXACT = "exact:"
SKETCH = "ddsketch:"
PER_TOKEN = ("chunk_gap",)  # one value per token: pooled exactly only from the runs' sketches


@dataclass(frozen=True)
class Pooled:
    """Pooled statistics of several runs' values: how computed, over how many values."""

    method: str  # "linear" (exact) or "ddsketch"
    values: int
    statistics: dict[str, float]
    relative_accuracy: float | None = None


def exact_part(values: np.ndarray | None, metric: str) -> str | None:
    """A run's values sorted, for exact pooling; None for none or for per-token metrics."""
    if values is None or not values.size or metric in PER_TOKEN:
        return None
    data = np.sort(np.asarray(values, dtype="<f8"))
    return EXACT + base64.b64encode(data.tobytes()).decode("ascii")


def sketch_part(bins: sketch.Bins) -> str:
    """A run's DDSketch, for pooling by merging."""
    return SKETCH + sketch.pack(bins)


def pooled(parts: Sequence[str], qs: Mapping[str, float], method: str = "linear") -> Pooled | None:
    """The named quantiles (q in [0, 1]) over every run in `parts` (exact ones with numpy's
    `method`); None when the runs were not packed alike (exact and sketched) or one is
    unreadable."""
    if not parts:
        return None
    if all(p.startswith(EXACT) for p in parts):
        arrays = [_values(p[len(EXACT) :]) for p in parts]
        if any(a is None for a in arrays):
            return None
        # sorted, so the pooled column is the same whatever order the runs came in
        column = np.sort(np.concatenate([a for a in arrays if a is not None]))
        stats = {
            name: float(np.percentile(column, 100.0 * q, method=method))  # type: ignore[call-overload]
            for name, q in qs.items()
        }
        return Pooled(method, int(column.size), stats)
    if all(p.startswith(SKETCH) for p in parts):
        bins = [sketch.unpack(p[len(SKETCH) :]) for p in parts]
        if any(b is None for b in bins) or len({b.alpha for b in bins if b}) != 1:
            return None
        union = sketch.merged(b for b in bins if b is not None)
        found = {name: sketch.quantile_of(union, q) for name, q in qs.items()}
        stats = {name: v for name, v in found.items() if v is not None}
        return Pooled("ddsketch", union.count, stats, union.alpha)
    return None


def _values(text: str) -> np.ndarray | None:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) % 8:
        return None
    return np.frombuffer(raw, dtype="<f8")
