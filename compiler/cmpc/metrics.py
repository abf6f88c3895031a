"""Canonical per-run statistics (pure numpy): latencies, interactivity, throughputs, goodput."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from cmpc.jsontypes import JsonObject
from cmpc.language.vocabulary import PercentileMethod
from cmpc.traces.table import LATENCY_METRICS, FieldValue, Published, Requests, Run, row_sums

try:
    from cmpc import _fastscan  # optional C pass over the brackets (setup.py); numpy's is exact too
except ImportError:
    _fastscan = None  # type: ignore[assignment]  # not built: the blocked numpy pass serves
if not hasattr(_fastscan, "brackets"):
    _fastscan = None  # type: ignore[assignment]  # built from older source (editable install)

DEFAULT_PERCENTILES = ("50", "90", "99")
THROUGHPUT_BASES = ("requests", "input", "output", "total", "cached_input", "uncached_input")
_STATISTIC = re.compile(r"^(mean|median|p\d+(?:\.\d+)?)$")
_BLOCK = 1 << 20  # values per block in the std sum: bounds the temporary
_SELECT_FROM = 1 << 16  # values from which percentiles come from brackets, not a partition
_SAMPLE = 1 << 14  # values in the sample that brackets each rank
_CHUNK = 1 << 16  # values compared with the brackets at a time


@dataclass(frozen=True)
class Stats:
    """Summary of one metric in seconds; `percentiles` keyed by the text given (`"99.9"`)."""

    n: int | None
    mean: float | None
    std: float | None
    min: float | None
    max: float | None
    median: float | None
    percentiles: Mapping[str, float | None]

    def get(self, statistic: str) -> float | None:
        """`mean`, `median`, `std`, `min`, `max` or `pNN`."""
        if statistic.startswith("p") and statistic not in ("p",):
            key = statistic[1:]
            value = self.percentiles.get(key)
            if value is None and key == "50":
                return self.median
            return value
        return getattr(self, statistic, None) if statistic in _FIELDS else None

    def to_json(self, scale: float, keys: Iterable[str]) -> JsonObject:
        out: JsonObject = {"n": self.n}
        for name in ("mean", "std", "min", "max", "median"):
            value = getattr(self, name)
            out[name] = None if value is None else value * scale
        for key in keys:
            value = self.get(f"p{key}")
            out[f"p{key}"] = None if value is None else value * scale
        return out


_FIELDS = ("mean", "median", "std", "min", "max")


def describe(
    x: np.ndarray,
    percentiles: Iterable[str],
    method: PercentileMethod = "linear",
    *,
    overwrite: bool = False,
) -> Stats:
    """n, mean, population std, min, max, median and percentiles, as numpy computes them.

    With `overwrite`, `x` is partitioned in place instead of copied (its order is lost).
    """
    keys = list(percentiles)
    n = int(x.size)
    if n == 0:
        return Stats(0, None, None, None, None, None, dict.fromkeys(keys))
    if n < _SMALL and method == "linear" and x.dtype == np.float64 and x.ndim == 1:
        return _describe_small(x, tuple(keys), overwrite)
    mean = float(np.mean(x))
    total = 0.0
    scratch = np.empty(min(n, _BLOCK))  # one block reused: a fresh one per block faults its pages
    for start in range(0, n, _BLOCK):
        part = x[start : start + _BLOCK]
        block = np.subtract(part, mean, out=scratch[: part.size])
        # numpy's pairwise sum, not np.dot: BLAS splits a long dot over threads, so its last
        # digits would follow the machine's core count
        total += float(np.add.reduce(np.multiply(block, block, out=block)))
    std = float(np.sqrt(total / n))
    low, high = float(np.min(x)), float(np.max(x))
    q = np.true_divide(np.array([float(k) for k in keys], dtype=np.float64), 100)
    middle = [(n - 1) // 2, n // 2]
    if method == "linear":
        # numpy's `linear` percentile and its median, from one shared partition of the data
        virtual = (n - 1) * q
        below = np.clip(np.floor(virtual).astype(np.intp), 0, n - 1)
        above = np.clip(below + 1, 0, n - 1)
        # a handful of ranks: a set, not np.unique (which imports numpy.ma, 40 ms per worker)
        ranks = sorted({*below.tolist(), *above.tolist(), *middle})
        chosen = order_statistics(x, ranks) if n >= _SELECT_FROM else None
        if chosen is None:
            work = x if overwrite else x.copy()
            work.partition(ranks)
            chosen = dict(zip(ranks, work[ranks].tolist(), strict=True))
        a = np.array([chosen[r] for r in below.tolist()], dtype=np.float64)
        b = np.array([chosen[r] for r in above.tolist()], dtype=np.float64)
        values = _lerp(a, b, virtual - below)
        centre = np.array([chosen[r] for r in sorted(set(middle))], dtype=np.float64)
        median = float(np.mean(centre))  # of one value or two, as over the partitioned middle
    else:
        work = x if overwrite else x.copy()
        work.partition(sorted(set(middle)))
        values = np.percentile(work, q * 100, method=method, overwrite_input=True)
        work.partition(sorted(set(middle)))
        median = float(np.mean(work[middle[0] : middle[1] + 1]))
    return Stats(
        n=n,
        mean=mean,
        std=std,
        min=low,
        max=high,
        median=median,
        percentiles={k: float(v) for k, v in zip(keys, values, strict=True)},
    )


_SMALL = _SELECT_FROM  # below this many values, `describe` takes the short path


def _describe_small(x: np.ndarray, keys: tuple[str, ...], overwrite: bool) -> Stats:
    """`describe` of a short float64 column (one block, one partition): the same figures bit
    for bit, in a quarter of the time (a run of a sweep is a few hundred requests, and its
    describes were 25 numpy calls each on a handful of numbers).

    The steps that set the bits stay numpy's (the pairwise sums, min, max, the partition); the
    rest is scalar: the ranks and weights of the percentiles, kept per (n, keys), and
    `_lerp`'s two roundings, which IEEE doubles give the same in Python as in numpy.
    """
    n = int(x.size)
    mean = float(np.add.reduce(x)) / n  # np.mean: the pairwise sum, divided by the count
    deviation = np.subtract(x, mean)
    total = float(np.add.reduce(np.multiply(deviation, deviation, out=deviation)))
    below, above, weights, ranks, middle = _linear_ranks(n, keys)
    low, high = float(x.min()), float(x.max())  # before the partition: a ±0 tie's sign is order's
    work = x if overwrite else x.copy()
    work.partition(ranks)
    chosen = dict(zip(ranks, work[ranks].tolist(), strict=True))
    values = {}
    for key, lo, hi, t in zip(keys, below, above, weights, strict=True):
        a, b = chosen[lo], chosen[hi]
        diff = b - a
        values[key] = b - diff * (1 - t) if t >= 0.5 else a + diff * t
    centre = 0.0  # numpy's pairwise sum starts from 0.0 (so a lone -0.0 sums to 0.0)
    for r in middle:
        centre += chosen[r]
    return Stats(
        n=n,
        mean=mean,
        std=math.sqrt(total / n),  # correctly rounded, as np.sqrt
        min=low,
        max=high,
        median=centre / len(middle),
        percentiles=values,
    )


@functools.lru_cache(maxsize=256)
def _linear_ranks(
    n: int, keys: tuple[str, ...]
) -> tuple[list[int], list[int], list[float], list[int], list[int]]:
    """numpy's `linear` ranks and weights of `keys` over `n` values, as `describe` computes
    them: below, above, weight, the ranks to partition at, and the median's one or two."""
    q = np.true_divide(np.array([float(k) for k in keys], dtype=np.float64), 100)
    virtual = (n - 1) * q
    below = np.clip(np.floor(virtual).astype(np.intp), 0, n - 1)
    above = np.clip(below + 1, 0, n - 1)
    middle = sorted({(n - 1) // 2, n // 2})
    ranks = sorted({*below.tolist(), *above.tolist(), *middle})
    return below.tolist(), above.tolist(), (virtual - below).tolist(), ranks, middle


def percentiles(
    x: np.ndarray, qs: Sequence[float], method: PercentileMethod = "linear"
) -> list[float]:
    """`np.percentile(x, qs, method=method)`, value for value, for the `linear` method from one
    sort: numpy partitions at every rank (slower than a sort for fifty percentiles) and imports
    numpy.ma (about 15 ms) to deduplicate them."""
    n = int(x.size)
    q = np.true_divide(np.array(qs, dtype=np.float64), 100)
    plain = method == "linear" and n > 0 and x.dtype == np.float64 and x.ndim == 1
    if not plain or not bool(np.all((q >= 0) & (q <= 1))):
        return [float(v) for v in np.percentile(x, qs, method=method)]  # as numpy says (or raises)
    ordered = np.sort(x)
    if math.isnan(float(ordered[-1])):  # NaN sorts last: numpy answers NaN
        return [math.nan] * len(qs)
    before, after, gamma = _sorted_ranks(n, q.tobytes())
    values: list[float] = _lerp(ordered[before], ordered[after], gamma).tolist()
    return values


@functools.lru_cache(maxsize=256)
def _sorted_ranks(n: int, fractions: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`percentiles`' indexes into the sorted values and its weights, for `n` values and the
    quantiles (float64 bytes): the same for every run of a size, made once (read-only)."""
    q = np.frombuffer(fractions)
    # numpy's _get_indexes and _get_gamma, step for step: index -1 (the top) where a rank is past it
    virtual = (n - 1) * q
    before = np.floor(virtual)
    after = before + 1
    top = virtual >= n - 1
    before[top] = -1
    after[top] = -1
    gamma = virtual - before
    out = (before.astype(np.intp), after.astype(np.intp), gamma)
    for array in out:
        array.setflags(write=False)
    return out


def order_statistics(x: np.ndarray, ranks: list[int]) -> dict[int, float] | None:
    """The values of rank `ranks` (0-based, ascending) in `x`, found without sorting `x`.

    A strided sample brackets each rank; one pass over `x` counts the values below each bracket
    and keeps the few inside, which are partitioned. Exact: a bracket that misses its rank
    (data ordered against the sample) gives None, and the caller partitions all of `x`.
    """
    n = int(x.size)
    step = max(1, n // _SAMPLE)
    sample = np.sort(x[::step])
    m = sample.size
    margin = 4 * math.isqrt(m) + 8  # ranks a sample's order statistic strays, with room
    brackets: list[tuple[float, float, list[int]]] = []
    for r in ranks:
        centre = r * m // n
        lo = float(sample[max(0, centre - margin)]) if centre - margin > 0 else -math.inf
        hi = float(sample[min(m - 1, centre + margin)]) if centre + margin < m - 1 else math.inf
        if brackets and lo <= brackets[-1][1]:  # overlapping brackets are searched once
            prev_lo, _, inside = brackets[-1]
            brackets[-1] = (prev_lo, hi, [*inside, r])
        else:
            brackets.append((lo, hi, [r]))
    under, kept = _bracket_pass(x, [(lo, hi) for lo, hi, _ in brackets])
    found: dict[int, float] = {}
    for (_, _, inside), below, middle in zip(brackets, under, kept, strict=True):
        local = [r - below for r in inside]
        if local[0] < 0 or local[-1] >= middle.size:
            return None
        middle.partition(local)
        found.update(zip(inside, middle[local].tolist(), strict=True))
    return found


def _bracket_pass(
    x: np.ndarray, bounds: list[tuple[float, float]]
) -> tuple[list[int], list[np.ndarray]]:
    """For each bracket (lo, hi): how many values of `x` are below lo, and those within, in
    their order. In C when built (one pass, no masks), else in cache-sized numpy blocks."""
    if _fastscan is not None and x.dtype == np.float64 and x.flags.c_contiguous:
        flat = [b for pair in bounds for b in pair]
        under, inside = _fastscan.brackets(x, flat)
        return list(under), [np.frombuffer(values) for values in inside]
    counts = [0] * len(bounds)
    kept: list[list[np.ndarray]] = [[] for _ in bounds]
    for start in range(0, x.size, _CHUNK):  # in blocks: the masks stay in cache
        block = x[start : start + _CHUNK]
        for i, (lo, hi) in enumerate(bounds):
            low = block < lo
            counts[i] += int(np.count_nonzero(low))
            kept[i].append(block[(block <= hi) & ~low])
    return counts, [np.concatenate(parts) if parts else x[:0].copy() for parts in kept]


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    """numpy's interpolation step of `linear` percentiles, term for term (same rounding)."""
    diff = np.subtract(b, a)
    out: np.ndarray = np.asanyarray(np.add(a, diff * t))
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5)
    return out


def _published_stats(stats: Mapping[str, float], keys: Iterable[str]) -> Stats:
    n = stats.get("n")
    return Stats(
        n=None if n is None else int(n),
        mean=stats.get("mean"),
        std=stats.get("std"),
        min=stats.get("min"),
        max=stats.get("max"),
        median=stats.get("median", stats.get("p50")),
        percentiles={k: stats.get(f"p{k}") for k in keys},
    )


@dataclass(frozen=True)
class Tokens:
    """Token totals over successful requests; None where the format does not say."""

    input: float | None
    cached_input: float | None
    output: float | None

    @property
    def hit_rate(self) -> float | None:
        """Cached share of the input tokens, when both are known."""
        if self.cached_input is None or not self.input:
            return None
        return self.cached_input / self.input


@dataclass(frozen=True)
class RunMetrics:
    """Everything `cmpc stats` reports for one run, in seconds and tokens."""

    path: str
    format: str
    index: int
    record: str
    fields: Mapping[str, FieldValue]
    aggregate_only: bool
    percentile_keys: tuple[str, ...]
    method: PercentileMethod
    total: int | None
    succeeded: int | None
    failed: int | None
    duration_s: float | None
    tokens: Tokens | None
    stats: Mapping[str, Stats | None]
    throughputs: Mapping[str, float | None]
    cache_hit_rate: float | None = None
    per_gpu: Mapping[str, float | None] = field(default_factory=dict)
    num_gpus: float | None = None
    goodput: float | None = None
    slo_attainment: float | None = None
    slos: Mapping[str, float] | None = None
    e2el_reconstructed: bool = False
    tool_stats: Mapping[str, Stats] = field(default_factory=dict)
    samples: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def latency_statistic(self, metric: str, statistic: str) -> float | None:
        """A latency statistic in seconds (`metric` in ttft|tpot|chunk_gap|e2el|e2e_per_token)."""
        if metric not in LATENCY_METRICS:
            raise ValueError(f"unknown latency metric `{metric}`")
        stats = self.stats.get(metric)
        if stats is None:
            return None
        if statistic.startswith("p") and statistic[1:] not in stats.percentiles:
            return _extra_percentile(self, metric, statistic[1:], stats)
        return stats.get(statistic)

    def interactivity(self, statistic: str) -> float | None:
        """tok/s/user = 1 / statistic(tpot), never statistic(1 / tpot)."""
        value = self.latency_statistic("tpot", statistic)
        return None if not value else 1.0 / value

    def throughput(self, basis: str) -> float | None:
        """Tokens/s over the run's duration for `basis` (requests/s for `requests`)."""
        if basis not in THROUGHPUT_BASES:
            raise ValueError(f"unknown throughput basis `{basis}`")
        return self.throughputs.get(basis)

    @property
    def tput_per_gpu(self) -> float | None:
        return self.per_gpu.get("total")

    @property
    def output_tput_per_gpu(self) -> float | None:
        return self.per_gpu.get("output")

    @property
    def input_tput_per_gpu(self) -> float | None:
        return self.per_gpu.get("input")

    def to_json(self) -> JsonObject:
        """The `cmpc stats --json` object of this run."""
        keys = self.percentile_keys
        metrics = {}
        for metric in ("ttft", "tpot", "chunk_gap", "e2el", "e2e_per_token"):
            stats = self.stats.get(metric)
            metrics[f"{metric}_ms"] = None if stats is None else stats.to_json(1000.0, keys)
        inter = None
        if self.stats.get("tpot") is not None:
            inter = {"mean": self.interactivity("mean"), "median": self.interactivity("median")}
            inter |= {f"p{k}": self.interactivity(f"p{k}") for k in keys}
        tokens = self.tokens
        out = {
            "file": self.path,
            "format": self.format,
            "run": self.index,
            "record": self.record or None,
            "aggregate_only": self.aggregate_only,
            "fields": dict(self.fields),
            "requests": {"total": self.total, "succeeded": self.succeeded, "failed": self.failed},
            "duration_s": self.duration_s,
            "tokens": {
                "input": tokens.input if tokens else None,
                "cached_input": tokens.cached_input if tokens else None,
                "output": tokens.output if tokens else None,
            },
            "cache_hit_rate": self.cache_hit_rate,
            "throughput": {
                "requests_per_s": self.throughputs.get("requests"),
                "input_tokens_per_s": self.throughputs.get("input"),
                "output_tokens_per_s": self.throughputs.get("output"),
                "total_tokens_per_s": self.throughputs.get("total"),
            },
            "metrics": metrics,
            "interactivity_tok_s_user": inter,
            "percentile_method": self.method,
            "std": "population",
        }
        if self.per_gpu:
            out["per_gpu"] = {"num_gpus": self.num_gpus} | {
                f"{k}_tokens_per_s": v for k, v in self.per_gpu.items()
            }
        if self.slos is not None:
            out["slo"] = {
                "thresholds_ms": {k: v * 1000.0 for k, v in self.slos.items()},
                "goodput_requests_per_s": self.goodput,
                "attainment": self.slo_attainment,
            }
        if self.tool_stats:
            out["tool_metrics"] = {
                name: stats.to_json(1.0, keys) for name, stats in self.tool_stats.items()
            }
        if self.e2el_reconstructed:
            out["notes"] = ["e2el reconstructed as ttft + sum of chunk gaps (file lacks latencies)"]
        return out


def _extra_percentile(rm: RunMetrics, metric: str, key: str, stats: Stats) -> float | None:
    x = rm.samples.get(metric)
    if x is None:
        return None
    return float(np.percentile(x, float(key), method=rm.method)) if x.size else None


def per_request(run: Run) -> dict[str, np.ndarray]:
    """Per-request (and pooled chunk-gap) samples of each canonical latency, successful only."""
    req = run.requests
    if req is None:
        return {}
    ok = req.ok

    def taken(metric: str) -> np.ndarray:
        narrower = req.only.get(metric)  # the tool's own, narrower set for this metric
        return ok if narrower is None else ok & narrower

    out: dict[str, np.ndarray] = {}
    if req.ttft is not None:
        out["ttft"] = req.ttft[taken("ttft") & ~np.isnan(req.ttft)]
    if req.e2el is not None:
        out["e2el"] = req.e2el[taken("e2el") & ~np.isnan(req.e2el)]
    if req.ttft is not None and req.e2el is not None and req.output_tokens is not None:
        sel = taken("tpot") & (req.output_tokens > 1) & ~np.isnan(req.ttft) & ~np.isnan(req.e2el)
        out["tpot"] = (req.e2el[sel] - req.ttft[sel]) / (req.output_tokens[sel] - 1)
    if req.e2el is not None and req.output_tokens is not None:
        # at least one token: a count of 1e-320 would make the latency per token infinite
        sel = taken("e2e_per_token") & (req.output_tokens >= 1) & ~np.isnan(req.e2el)
        out["e2e_per_token"] = req.e2el[sel] / req.output_tokens[sel]
    if req.gaps is not None:
        assert req.gap_offsets is not None  # readers set the two together
        counts = np.diff(req.gap_offsets)
        out["chunk_gap"] = (
            req.gaps if np.all(ok | (counts == 0)) else req.gaps[np.repeat(ok, counts)]
        )
    return out


def _sum(col: np.ndarray | None, ok: np.ndarray) -> float | None:
    if col is None:
        return None
    values = col[ok]
    if np.any(np.isnan(values)):
        return None
    total = float(np.sum(values))
    return total if math.isfinite(total) else None  # counts near 1e308 sum past a double


def _rate(value: float | None, duration: float | None) -> float | None:
    if value is None or not duration:
        return None
    rate = value / duration
    return rate if math.isfinite(rate) else None  # a denormal duration: no rate, not inf


def _goodput(
    req: Requests, run: Run, slos: Mapping[str, float]
) -> tuple[float | None, float | None]:
    ok = req.ok
    good = ok.copy()
    for metric, limit in slos.items():
        if metric == "ttft" and req.ttft is not None:
            good &= np.nan_to_num(req.ttft, nan=np.inf) <= limit
        elif metric == "e2el" and req.e2el is not None:
            good &= np.nan_to_num(req.e2el, nan=np.inf) <= limit
        elif (
            metric == "tpot"
            and req.output_tokens is not None
            and req.e2el is not None
            and req.ttft is not None
        ):
            many = req.output_tokens > 1
            tpot = np.zeros(ok.size)  # one-token requests count as tpot 0, like vLLM
            denom = np.where(many, req.output_tokens - 1, 1)
            tpot[many] = ((req.e2el - req.ttft) / denom)[many]
            good &= tpot <= limit
        else:
            return None, None
    count = int(np.sum(good))
    return _rate(float(count), run.duration_s), count / ok.size if ok.size else None


def summarize(
    run: Run,
    *,
    percentiles: Iterable[str] = DEFAULT_PERCENTILES,
    method: PercentileMethod = "linear",
    slos: Mapping[str, float] | None = None,
    overwrite_input: bool = False,
    described: Collection[str] | None = None,
) -> RunMetrics:
    """Canonical metrics of one run (published values for aggregate-only formats).

    `overwrite_input` lets the pooled chunk gaps be partitioned in place, saving a copy of the
    largest column; the run's per-request gap rows are then out of order. `described`: the
    only latency metrics whose statistics are computed (the others' are None, and the tool's
    own columns get none), for a caller that reads no other; their samples are all kept.
    """
    keys = tuple(percentiles)
    if run.requests is None:
        # every reader gives a run its requests or (aggregate-only formats) its published figures
        return _summarize_published(run, run.published or Published(), keys, method, slos)
    req = run.requests
    ok = req.ok
    samples = per_request(run)
    stats: dict[str, Stats | None] = dict.fromkeys(LATENCY_METRICS)
    for metric, x in samples.items():
        if described is not None and metric not in described:
            continue
        shared = req.gaps is not None and x is req.gaps
        stats[metric] = describe(x, keys, method, overwrite=overwrite_input or not shared)
    succeeded = int(np.sum(ok))
    tokens = Tokens(
        input=_sum(req.input_tokens, ok),
        cached_input=_sum(req.cached_input_tokens, ok),
        output=_sum(req.output_tokens, ok),
    )
    duration = run.duration_s
    total_tokens = None
    if tokens.input is not None and tokens.output is not None:
        total_tokens = tokens.input + tokens.output
    uncached = None
    if tokens.input is not None and tokens.cached_input is not None:
        uncached = tokens.input - tokens.cached_input
    throughputs = {
        "requests": _rate(float(succeeded), duration),
        "input": _rate(tokens.input, duration),
        "output": _rate(tokens.output, duration),
        "total": _rate(total_tokens, duration),
        "cached_input": _rate(tokens.cached_input, duration),
        "uncached_input": _rate(uncached, duration),
    }
    goodput = attainment = None
    if slos:
        goodput, attainment = _goodput(req, run, slos)
    metrics = RunMetrics(
        path=run.path,
        format=run.format,
        index=run.index,
        record=run.record,
        fields=run.fields,
        aggregate_only=False,
        percentile_keys=keys,
        method=method,
        total=req.count,
        succeeded=succeeded,
        failed=req.count - succeeded,
        duration_s=duration,
        tokens=tokens,
        stats=stats,
        throughputs=throughputs,
        cache_hit_rate=tokens.hit_rate,
        goodput=goodput,
        slo_attainment=attainment,
        slos=dict(slos) if slos else None,
        e2el_reconstructed=req.e2el_reconstructed,
        tool_stats={
            name: describe(col[ok & ~np.isnan(col)], keys, method)
            for name, col in (req.extra.items() if described is None else ())
        },
        samples=samples,
    )
    return metrics


def _summarize_published(
    run: Run,
    pub: Published,
    keys: tuple[str, ...],
    method: PercentileMethod,
    slos: Mapping[str, float] | None,
) -> RunMetrics:
    stats: dict[str, Stats | None] = dict.fromkeys(LATENCY_METRICS)
    for metric, values in pub.latency.items():
        if metric in stats and values:
            stats[metric] = _published_stats(values, keys)
    tokens = None
    if any(v is not None for v in (pub.input_tokens, pub.cached_input_tokens, pub.output_tokens)):
        tokens = Tokens(pub.input_tokens, pub.cached_input_tokens, pub.output_tokens)
    throughputs = {basis: pub.throughput.get(basis) for basis in THROUGHPUT_BASES}
    hit = pub.cache_hit_rate
    if hit is None and tokens:
        hit = tokens.hit_rate
    return RunMetrics(
        path=run.path,
        format=run.format,
        index=run.index,
        record=run.record,
        fields=run.fields,
        aggregate_only=True,
        percentile_keys=keys,
        method=method,
        total=pub.total,
        succeeded=pub.succeeded,
        failed=pub.failed,
        duration_s=run.duration_s,
        tokens=tokens,
        stats=stats,
        throughputs=throughputs,
        cache_hit_rate=hit,
        per_gpu=dict(pub.per_gpu),
        num_gpus=pub.num_gpus,
        slos=dict(slos) if slos else None,
    )


def parse_statistic(text: str) -> str | None:
    """`mean`, `median` or `pNN` if `text` names a statistic, else None."""
    return text if _STATISTIC.match(text) else None


__all__ = ["RunMetrics", "Stats", "Tokens", "describe", "per_request", "row_sums", "summarize"]
