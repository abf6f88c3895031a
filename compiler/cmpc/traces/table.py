"""The canonical run table every reader produces: numpy columns per request, or published stats."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from cmpc.traces.proved import Reading

FieldValue = str | int | float | None

LATENCY_METRICS = ("ttft", "tpot", "chunk_gap", "e2el", "e2e_per_token")


@dataclass(frozen=True, eq=False)
class Requests:
    """Per-request columns (seconds, tokens); `ok` marks successful requests.

    `gaps` holds every chunk gap of every request, flattened; request i owns
    `gaps[gap_offsets[i]:gap_offsets[i + 1]]`. A column the format lacks is None; NaN marks
    a value missing for one request. `extra` keeps per-request figures under the tool's own
    name and definition (e.g. LLMPerf's `inter_token_latency_s`, which includes TTFT).
    `only[metric]` marks the successful requests a metric is taken over when the tool measures
    it over a narrower set (GuideLLM: the TTFT of a request counts only if its first token came
    inside the measured window).
    """

    ok: np.ndarray
    start: np.ndarray | None = None
    ttft: np.ndarray | None = None
    e2el: np.ndarray | None = None
    input_tokens: np.ndarray | None = None
    cached_input_tokens: np.ndarray | None = None
    output_tokens: np.ndarray | None = None
    gaps: np.ndarray | None = None
    gap_offsets: np.ndarray | None = None
    chunk_tokens: np.ndarray | None = None
    e2el_reconstructed: bool = False
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)
    only: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return int(self.ok.size)


@dataclass(frozen=True)
class Published:
    """Statistics a tool wrote for an aggregate-only run, in cmpc units (seconds, tokens/s).

    `latency[metric][statistic]` uses cmpc metric names and statistic keys `mean`, `median`,
    `std`, `min`, `max`, `pNN`.
    """

    total: int | None = None
    succeeded: int | None = None
    failed: int | None = None
    input_tokens: float | None = None
    cached_input_tokens: float | None = None
    output_tokens: float | None = None
    throughput: Mapping[str, float | None] = field(default_factory=dict)
    latency: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    per_gpu: Mapping[str, float | None] = field(default_factory=dict)
    num_gpus: float | None = None
    cache_hit_rate: float | None = None


@dataclass(frozen=True, eq=False)
class Run:
    """One benchmark run read from a file: identity fields plus requests or published stats."""

    path: str
    format: str
    index: int
    fields: Mapping[str, FieldValue]
    requests: Requests | None = None
    published: Published | None = None
    duration_s: float | None = None
    record: str = ""
    reading: Reading | None = None

    @property
    def aggregate_only(self) -> bool:
        return self.requests is None


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    """Offsets (length n + 1) of a flattened ragged array from its row lengths."""
    out = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def row_sums(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per-row sums of a flattened ragged array (0 for empty rows)."""
    sums = np.zeros(counts.size)
    nonempty = counts > 0
    if np.any(nonempty):
        starts = offsets_from_counts(counts)[:-1][nonempty]
        sums[nonempty] = np.add.reduceat(values, starts)
    return sums
