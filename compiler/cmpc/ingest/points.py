"""Runs reduced to what a comparison needs: the type ingest produces and analysis reads."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cmpc import lazy

if TYPE_CHECKING:
    from cmpc import metrics as run_metrics
    from cmpc.metrics import RunMetrics
    from cmpc.traces import where as filters
else:  # only a reduction reads them: a rebuild from the cache imports neither (nor numpy)
    run_metrics = lazy.module("cmpc.metrics")
    filters = lazy.module("cmpc.traces.where")

# The percentiles kept of each run's per-request TTFT and TPOT, for the latency CDF figures.
CDF_PERCENTILES = tuple(float(q) for q in range(0, 101, 2))
CDF_METRICS = ("ttft", "tpot")


@dataclass(frozen=True)
class RunPoint:
    """One run reduced to what the comparison needs (per GPU, before normalization)."""

    path: str
    index: int
    latency_s: float | None  # the constrained statistic of the constrained metric
    input_tok_s: float | None
    output_tok_s: float | None
    cached_tok_s: float | None  # measured; None when the trace does not say
    gpus: float | None  # the denominator the file itself states (InferenceX rows), if any
    concurrency: float | None
    label: str
    fields: Mapping[str, object] = field(default_factory=dict)
    goodput_req_s: float | None = None  # requests/s meeting every SLO (`latency { slo ... }`)
    slo_attainment: float | None = None  # share of all requests meeting every SLO
    # the run's statistics the percentile SLOs limit (`p99 ttft` -> seconds), if any
    limits: Mapping[str, float | None] = field(default_factory=dict)
    # bootstrap replicates (ingest/resample.py): rows `latency_s`, the REPLICATE_ROWS rates,
    # then one per percentile SLO, `resamples` columns each, packed; None: no per-request data
    resampled: str | None = None
    resamples: int = 0
    # per-request TTFT and TPOT (s) at CDF_PERCENTILES; empty for aggregate-only formats
    quantiles: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    # the run's values of the constrained metric packed for pooling (ingest/pooling.py):
    # sorted (exact) or a DDSketch's bins (`--sketch`); None: nothing to pool. The same for
    # every statistic, so only the first statistic's point holds it (SystemData.pools)
    pool: str | None = None


@dataclass(frozen=True)
class SystemData:
    """A system's loaded runs (reduced), keyed by statistic so alternatives need no re-read."""

    name: str
    runs: Mapping[str, tuple[RunPoint, ...]] = field(default_factory=dict)

    def pools(self) -> dict[tuple[str, int], str]:
        """Each run's values packed for pooling, by (path, index), whichever statistic's
        point holds them."""
        return {
            (p.path, p.index): p.pool
            for points in self.runs.values()
            for p in points
            if p.pool is not None
        }


def matches(fields: Mapping[str, object], where: Iterable[tuple[str, str]]) -> bool:
    """A spec's `where` pairs, compared as `cmpc sweep --where` compares them."""
    return all(filters.Filter(key, value).matches(fields) for key, value in where)


REPLICATE_ROWS = ("latency_s", "input_tok_s", "output_tok_s", "cached_tok_s")


def run_point(
    metrics: RunMetrics,
    metric: str,
    statistic: str,
    rel: str,
    quantiles: Mapping[str, tuple[float, ...]] | None = None,
) -> RunPoint:
    """The run's point at `statistic` of `metric`; `quantiles`: its `cdf_quantiles`, when the
    caller makes points of several statistics from one run (they are the same for each)."""
    per_gpu = metrics.per_gpu or {}
    gpus = metrics.num_gpus
    inp, out = metrics.throughput("input"), metrics.throughput("output")
    cached = metrics.throughput("cached_input")
    per_gpu_output = per_gpu.get("output")
    if inp is None and out is None and gpus and per_gpu_output is not None:
        inp = (per_gpu.get("input") or 0.0) * gpus
        out = per_gpu_output * gpus
    fields = dict(metrics.fields)
    conc = fields.get("conc") or fields.get("max_concurrency") or fields.get("concurrency")
    try:
        conc = float(conc) if conc is not None else None
    except (TypeError, ValueError):
        conc = None
    label = rel if metrics.index == 0 and not metrics.record else f"{rel} {metrics.record}".strip()
    return RunPoint(
        path=rel,
        index=metrics.index,
        latency_s=metrics.latency_statistic(metric, statistic),
        input_tok_s=inp,
        output_tok_s=out,
        cached_tok_s=cached,
        gpus=gpus,
        concurrency=conc,
        label=label,
        fields=fields,
        goodput_req_s=metrics.goodput,
        slo_attainment=metrics.slo_attainment,
        quantiles=cdf_quantiles(metrics) if quantiles is None else dict(quantiles),
    )


def cdf_quantiles(metrics: RunMetrics) -> dict[str, tuple[float, ...]]:
    """Each CDF metric's per-request percentiles, with the run's own percentile method."""
    out = {}
    for metric in CDF_METRICS:
        x = metrics.samples.get(metric)
        if x is not None and x.size:
            found = run_metrics.percentiles(x, CDF_PERCENTILES, metrics.method)
            # + 0.0 makes -0.0 zero: which zero a tie of the two puts at a rank depends on the
            # samples' order (which the reduction may or may not have partitioned before)
            out[metric] = tuple(v + 0.0 for v in found)
    return out
