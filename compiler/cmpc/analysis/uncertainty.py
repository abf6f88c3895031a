"""How sure the figures are: bootstrap replicates of every read, the intervals they give.

Each run's replicates (its requests resampled, ingest/resample.py) become replicate frontier
points; runs at one load of one system are repetitions, resampled as runs first (then each
drawn run's requests). Each replicate rebuilds each system's frontier and reads it at the
target, so the ratio's interval holds every run's variation, its duration's included.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.comparisons import LOAD_KEYS, inverse_bound
from cmpc.analysis.hardware import gpu_count
from cmpc.analysis.published import (
    computed_spread,
    published_entries,
    ratio_interval,
    read_interval,
)
from cmpc.analysis.readmemo import read_key, remembered
from cmpc.analysis.reads import by_latency
from cmpc.analysis.tokens import accounting
from cmpc.compute.accounting import counted_tokens, split_input
from cmpc.compute.frontier_batch import mirrored_latency_ms, read_batch, read_batch_latency
from cmpc.compute.intervals import Interval, interval, spread, within_noise
from cmpc.compute.percentile import one_sided_bound, quotients
from cmpc.ingest.points import RunPoint
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.ingest import resample
else:  # only read when the runs were resampled: not on a rebuild from the stage
    resample = lazy.module("cmpc.ingest.resample")

RUNS_SEED = 0x5EED  # the stream that draws repetitions (runs), apart from each run's own
BOUND_NOTE = (
    "both sides' reads are lower bounds (every point of each frontier is faster than the "
    "target), so the ratio bounds neither way and no interval around it would mean anything; "
    "each system's read has its one-sided bound"
)
ONE_SIDED_NOTE = (
    "one side's read is a lower bound (every point of its frontier is faster than the target), "
    "so the ratio is itself a bound: it gets a one-sided bound in that direction, from the "
    "replicates' ratios, and never two interval ends"
)
BEYOND_NOTE = (
    "one side's read is a lower bound (every point of its frontier is faster than the target), "
    "so the ratio is itself a bound, and the replicates' quantile lies beyond the ratio in the "
    "bound's direction: it would strengthen the claim, so the ratio carries no one-sided bound"
)
TOO_FEW_NOTE = (
    "one side's read is a lower bound (every point of its frontier is faster than the target), "
    "so the ratio is itself a bound, and too few replicates have a read to bound it one-sided"
)


@dataclass(frozen=True)
class RunReplicates:
    """One run's replicate values: latency statistic, counted tokens/s per GPU, SLO statistics."""

    point: RunPoint
    latency_s: np.ndarray  # the bootstrap's replicates, then the jackknife's (JACKKNIFE)
    per_gpu: np.ndarray
    limits: np.ndarray  # (percentile SLOs, replicates + jackknife)
    estimate: float | None  # counted tokens/s per GPU as measured


@dataclass(frozen=True)
class Reads:
    """A system's read per bootstrap replicate, and its point read."""

    boot: np.ndarray
    point: float | None


@dataclass(frozen=True)
class SystemReplicates:
    """A system's runs as replicates, grouped into repetitions (runs at one load)."""

    runs: tuple[RunReplicates, ...]
    groups: tuple[tuple[int, ...], ...]  # indices into runs; each group one load
    resamples: int

    def drawn(self, seed: int) -> np.ndarray:
        """Per replicate, which run stands in for each run: repetitions drawn with replacement."""
        rng: np.random.Generator | None = None  # made for repetitions only: numpy.random is 6 ms
        out = np.tile(np.arange(len(self.runs)), (self.resamples, 1))
        for group in self.groups:
            if len(group) > 1:
                rng = rng or np.random.Generator(
                    np.random.PCG64(np.random.SeedSequence([seed, RUNS_SEED]))
                )
                members = np.asarray(group)
                out[:, members] = members[rng.integers(0, len(group), (self.resamples, len(group)))]
        return out


def replicates_of(
    comparison: ir.Comparison, system: ir.System, runs: Sequence[RunPoint] | None
) -> SystemReplicates | None:
    """The system's runs as replicates, or None: reported data, or runs without requests."""
    if not runs or not comparison.uncertainty.enabled:
        return None
    gpus = gpu_count(system)
    counts = accounting(comparison.tokens)
    found: list[RunReplicates] = []
    size = 0
    for rp in runs:
        denominator = gpus or rp.gpus
        if rp.resampled is None or not rp.resamples or not denominator:
            return None  # a run without per-request data: no interval for the system
        rows = resample.unpack(rp.resampled, rp.resamples)
        if rows.shape[0] < 4:
            return None
        size = rp.resamples
        cached = rows[3] if rp.cached_tok_s is not None else None
        rates = split_input(
            rows[1], rows[2], measured_cached=cached, declared_hit_rate=system.cache_hit_rate
        )
        counted = counted_tokens(rates, counts)
        if counted is None:
            return None
        per_gpu = np.asarray(counted, dtype=float) / denominator
        estimate = measured_per_gpu(comparison, system, rp)
        found.append(RunReplicates(rp, rows[0], per_gpu, rows[4:], estimate))
    by_load: dict[tuple[object, ...], list[int]] = {}
    for i, r in enumerate(found):
        key = tuple(r.point.fields.get(k) for k in LOAD_KEYS)
        if all(v is None for v in key):
            key = ("run", i)  # no load stated: every run its own
        by_load.setdefault(key, []).append(i)
    return SystemReplicates(tuple(found), tuple(tuple(g) for g in by_load.values()), size)


def measured_per_gpu(comparison: ir.Comparison, system: ir.System, rp: RunPoint) -> float | None:
    """A run's counted tokens/s per GPU as measured (as the frontier point states it)."""
    denominator = gpu_count(system) or rp.gpus
    if rp.input_tok_s is None or rp.output_tok_s is None or not denominator:
        return None
    rates = split_input(
        rp.input_tok_s,
        rp.output_tok_s,
        measured_cached=rp.cached_tok_s,
        declared_hit_rate=system.cache_hit_rate,
    )
    value = counted_tokens(rates, accounting(comparison.tokens))
    return None if value is None else value / denominator


def read_rows(comparison: ir.Comparison, speed: np.ndarray, through: np.ndarray) -> np.ndarray:
    """Each row's frontier read at the target (its peak without one); NaN where unreachable.

    Read along the axis the point read uses (`analysis.reads`): latency for a duration target,
    interactivity otherwise, so an unresampled row reads the point read, bit for bit.
    """
    # keyed on all the read depends on: sensitivity rows of price or utilization reuse it
    key = read_key(repr(comparison.latency), speed, through)
    return remembered(key, lambda: _rows_at_target(comparison.latency, speed, through))


def _rows_at_target(latency: ir.Latency, speed: np.ndarray, through: np.ndarray) -> np.ndarray:
    """`read_rows`, computed."""
    target = latency.target
    if target is None:  # each row at its own peak
        usable = np.isfinite(speed) & np.isfinite(through)
        peak = np.max(np.where(usable, through, -np.inf), axis=1, initial=-np.inf)
        return np.where(np.isfinite(peak), peak, np.nan)
    latency_axis = by_latency(latency)
    axis = mirrored_latency_ms(speed) if latency_axis else speed
    at = -target.latency_ms if latency_axis else target.interactivity_tok_s_user
    if latency_axis:
        values = read_batch_latency(speed, through, target.latency_ms, latency.read)
    else:
        values = read_batch(speed, through, at, latency.read)
    return _with_lower_bounds(values, axis, through, at)


def _with_lower_bounds(
    values: np.ndarray, speed: np.ndarray, through: np.ndarray, at: float
) -> np.ndarray:
    """Rows whose target lies below the frontier read as lower bounds, as the point read does
    (`speed` and `at` along the read's axis: interactivity, or -latency in ms).

    The frontier's slowest knot is the run of highest throughput (`compute.frontier.read_target`):
    a target below its interactivity is met by every knot, and the read is that throughput.
    """
    usable = np.isfinite(speed) & np.isfinite(through)
    masked = np.where(usable, through, -np.inf)
    best = np.max(masked, axis=1, initial=-np.inf)
    top = np.where(masked == best[:, None], np.where(usable, speed, -np.inf), -np.inf)
    slowest = np.max(top, axis=1, initial=-np.inf)  # of equal throughputs the faster one
    below = np.isnan(values) & np.isfinite(best) & (at < slowest)
    return np.where(below, best, values)


def speed_of(latency: np.ndarray) -> np.ndarray:
    """Interactivity (1 / latency per token); NaN where the latency is not positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(latency > 0, 1.0 / latency, np.nan)
    return out


def read_replicates(
    comparison: ir.Comparison, reps: SystemReplicates, point: float | None = None
) -> Reads:
    """The per-GPU read in each bootstrap replicate."""
    size = reps.resamples
    lat = np.stack([r.latency_s for r in reps.runs])  # (runs, replicates + jackknife)
    tput = np.stack([r.per_gpu for r in reps.runs])
    if all(len(group) < 2 for group in reps.groups):  # no repetitions: every run stands in
        # for itself (`drawn` would be each row's 0..runs-1): the same values, no gather
        speed = np.ascontiguousarray(speed_of(lat[:, :size]).T)  # (replicates, runs)
        return Reads(read_rows(comparison, speed, np.ascontiguousarray(tput[:, :size].T)), point)
    drawn = reps.drawn(comparison.uncertainty.seed)
    columns = np.arange(size)[:, None]
    speed = speed_of(lat[:, :size]).T[columns, drawn]  # (replicates, runs)
    return Reads(read_rows(comparison, speed, tput[:, :size].T[columns, drawn]), point)


def read_jackknife(comparison: ir.Comparison, reps: SystemReplicates) -> np.ndarray:
    """The per-GPU read in each grouped-jackknife unit (one run's request group left out, every
    other run as measured): the acceleration of the withdrawn BCa, for benchmarks/coverage.py."""
    size = reps.resamples
    lat = np.stack([r.latency_s for r in reps.runs])[:, size:]
    tput = np.stack([r.per_gpu for r in reps.runs])[:, size:]
    runs, groups = lat.shape
    jack_speed = np.tile(
        speed_of(np.array([_nan(r.point.latency_s) for r in reps.runs])), (runs * groups, 1)
    )
    jack_tput = np.tile(np.array([_nan(r.estimate) for r in reps.runs]), (runs * groups, 1))
    unit = np.arange(runs * groups)
    jack_speed[unit, unit // groups] = speed_of(lat).ravel()
    jack_tput[unit, unit // groups] = tput.ravel()
    return read_rows(comparison, jack_speed, jack_tput)


def _nan(value: float | None) -> float:
    return math.nan if value is None else value


def ci(
    comparison: ir.Comparison, values: np.ndarray | None, estimate: float | None
) -> Interval | None:
    """The interval the spec asks for, of `estimate` from its replicates."""
    u = comparison.uncertainty
    if values is None or estimate is None or not u.enabled:
        return None
    return interval(values, estimate, u.confidence, u.method)


def as_list(found: Interval | None) -> list[float] | None:
    return None if found is None else found.as_list()


def system_uncertainty(
    comparison: ir.Comparison,
    result: T.SystemResult,
    reps: SystemReplicates | None,
    found: Reads | None,
) -> T.SystemUncertainty | None:
    """A system's read interval, each run's statistic intervals, its repetitions' spread."""
    if not comparison.uncertainty.enabled:
        return None
    if reps is None or found is None:
        system = comparison.system(result["name"])
        published = published_entries(comparison, system)
        declared = read_interval(system, result["at_target"]["throughput_per_gpu"])
        why = (
            None
            if declared is not None
            else "reported figures carry no interval (no per-request data)"
            if result["data"] == "reported" and not published
            else "reported figures carry no interval beyond those their source published"
            if result["data"] == "reported"
            else "a run file holds no per-request data (aggregate figures only)"
        )
        return {"throughput_per_gpu_ci": declared, "throughput_per_gpu_one_sided_ci": None,
                "interval_basis": "declared" if declared is not None else None,
                "published_intervals": published, "reachable_share": None, "runs": [],
                "repetitions": [], "run_to_run": "unknown", "note": why}  # fmt: skip
    at = result["at_target"]
    reads = found.boot
    bound = at["bound"] == "lower"  # a bound's interval is one-sided: no two ends around it
    read_ci = None if bound else ci(comparison, reads, at["throughput_per_gpu"])
    level = comparison.uncertainty.confidence
    one_sided = one_sided_bound(reads.tolist(), level) if bound else None
    size = reps.resamples
    runs: list[T.RunInterval] = []
    for r in reps.runs:
        p = r.point
        lat_ci = ci(comparison, r.latency_s[:size], p.latency_s)
        counted = r.estimate
        runs.append(
            {
                "label": p.label,
                "concurrency": p.concurrency,
                "latency_s": p.latency_s,
                "latency_s_ci": as_list(lat_ci),
                "interactivity_ci": None
                if lat_ci is None or lat_ci.low <= 0
                else [1 / lat_ci.high, 1 / lat_ci.low],
                "throughput_per_gpu_ci": as_list(ci(comparison, r.per_gpu[:size], counted)),
            }
        )
    repetitions: list[T.Repetition] = []
    for group in reps.groups:
        if len(group) < 2:
            continue
        members = [reps.runs[i] for i in group]
        tputs = [v for m in members if (v := m.estimate) is not None]
        lats = [m.point.latency_s for m in members if m.point.latency_s is not None]
        t_mean, t_std, t_cv = spread(tputs) if len(tputs) > 1 else (None, None, None)
        l_mean, l_std, l_cv = spread(lats) if len(lats) > 1 else (None, None, None)
        repetitions.append(
            {
                "concurrency": members[0].point.concurrency,
                "runs": len(members),
                "labels": [m.point.label for m in members],
                "throughput_per_gpu": {"mean": t_mean, "std": t_std, "cv": t_cv},
                "latency_s": {"mean": l_mean, "std": l_std, "cv": l_cv},
            }
        )
    measured = bool(repetitions)
    finite = np.isfinite(reads)
    return {
        "throughput_per_gpu_ci": as_list(read_ci),
        "throughput_per_gpu_one_sided_ci": one_sided,
        "interval_basis": "computed" if read_ci is not None or one_sided is not None else None,
        "published_intervals": [],
        "reachable_share": float(np.mean(finite)) if reads.size else None,
        "runs": runs,
        "repetitions": repetitions,
        "run_to_run": "measured" if measured else "unknown",
        "note": None
        if measured
        else "one run per configuration: intervals hold within-run variation only; "
        "run-to-run variation is unknown",
    }


def bound_ratio_interval(
    comparison: ir.Comparison,
    head: T.Ratios,
    empty: T.HeadlineUncertainty,
    per_gpu_ratios: Sequence[float] | np.ndarray,
) -> T.HeadlineUncertainty:
    """A bound headline ratio's one-sided bounds: the throughput ratio's in the direction of its
    bound, the cost ratio's in the inverse one, from the replicates' per-GPU ratios (a NaN one:
    a replicate without a read). A ratio of two bounds gets none."""
    bound, ratio, per_gpu = (
        head["bound"],
        head["throughput_ratio"],
        head["per_gpu_throughput_ratio"],
    )
    if bound not in ("lower", "upper") or ratio is None or not per_gpu:
        return {**empty, "interval_note": BOUND_NOTE}
    level = comparison.uncertainty.confidence
    inverse = str(inverse_bound(bound))
    # as the two-sided interval scales them: per-GPU ratios to the normalization's
    if isinstance(per_gpu_ratios, np.ndarray):  # computed now (numpy loaded): ranked by numpy
        scaled = _ranked(ratio * per_gpu_ratios / per_gpu, bound)
    else:
        scaled = [ratio * r / per_gpu for r in per_gpu_ratios]
    found = one_sided_bound(scaled, level, bound)
    note = ONE_SIDED_NOTE if found is not None else TOO_FEW_NOTE
    if found is not None and beyond(found, ratio, bound):
        found, note = None, BEYOND_NOTE
    cost = head["cost_ratio"]
    cost_found = (
        None
        if cost is None or found is None
        else _inverse_bound(
            _quotients(cost * per_gpu, per_gpu_ratios, inverse), cost, level, inverse
        )
    )
    equal_found = None if found is None else _inverse_bound(
        _quotients(1.0, per_gpu_ratios, inverse), 1.0 / per_gpu, level, inverse
    )  # fmt: skip
    return {
        **empty,
        "throughput_ratio_one_sided_ci": found,
        "cost_ratio_one_sided_ci": cost_found,
        "cost_ratio_at_equal_price_one_sided_ci": equal_found,
        "within_noise": holds_one(found, bound),
        "cost_within_noise": holds_one(cost_found, inverse_bound(bound)),
        "interval_note": note,
        "interval_basis": "computed" if found is not None else None,
    }


def _ranked(values: np.ndarray, side: str) -> list[float]:
    """`values` in the order `one_sided_bound` ranks them (a replicate without a value below
    every value for a lower bound, above for an upper; a stable sort, as list.sort), so its
    own sort finds them in order: the same list, ranked by numpy instead of 2,000 compares in
    Python."""
    missing = -math.inf if side == "lower" else math.inf
    ranked: list[float] = np.sort(
        np.where(np.isfinite(values), values, missing), kind="stable"
    ).tolist()
    return ranked


def _quotients(
    numerator: float, denominators: Sequence[float] | np.ndarray, side: str
) -> Sequence[float]:
    """`quotients(numerator, denominators)`, ranked for `side` by `_ranked` when the
    denominators are an array (numpy divides as `quotients` does: x / 0 infinite or NaN)."""
    if not isinstance(denominators, np.ndarray):
        return quotients(numerator, denominators)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _ranked(numerator / denominators, side)


def _inverse_bound(
    replicates: Sequence[float], estimate: float, level: float, side: str
) -> float | None:
    """A cost ratio's one-sided bound (`side`: the inverse of the throughput ratio's), or None
    past the ratio, as the throughput ratio's is."""
    found = one_sided_bound(replicates, level, side)
    return None if found is None or beyond(found, estimate, side) else found


def beyond(found: float, estimate: float, side: str) -> bool:
    """A one-sided bound past the figure it bounds (a lower one above it, an upper one below):
    it would strengthen the claim, reading as no uncertainty at all."""
    return found > estimate if side == "lower" else found < estimate


def holds_one(bound: float | None, side: str | None) -> bool | None:
    """Whether a one-sided interval holds 1: a lower bound at or below it, an upper one at or
    above it (a one-sided interval is unbounded on its other side, so never inside the tie
    band); None without a bound."""
    if bound is None:
        return None
    return bound <= 1.0 if side == "lower" else bound >= 1.0


def bound_cost_interval(
    comparison: ir.Comparison,
    head: T.Ratios,
    price_free: T.HeadlineUncertainty,
    per_gpu_ratios: Sequence[float],
) -> T.HeadlineUncertainty:
    """`bound_ratio_interval(comparison, head, price_free, per_gpu_ratios)` when `price_free`
    is that of the same head without its cost and the same ratios (the stage's headline step):
    the throughput's bound is taken from it, only the cost's is ranked (a warm rebuild ranks
    2,000 ratios for each of the headline and the sensitivity rows)."""
    found, cost = price_free["throughput_ratio_one_sided_ci"], head["cost_ratio"]
    bound, per_gpu = head["bound"], head["per_gpu_throughput_ratio"]
    usable = bound in ("lower", "upper") and head["throughput_ratio"] is not None
    if found is None or cost is None or not per_gpu or not usable:
        return bound_ratio_interval(comparison, head, price_free, per_gpu_ratios)
    inverse = str(inverse_bound(bound))
    level = comparison.uncertainty.confidence
    cost_found = _inverse_bound(quotients(cost * per_gpu, per_gpu_ratios), cost, level, inverse)
    return {
        **price_free,
        "throughput_ratio_one_sided_ci": found,
        "cost_ratio_one_sided_ci": cost_found,
        "cost_within_noise": holds_one(cost_found, inverse),
        "interval_note": ONE_SIDED_NOTE,
        "interval_basis": "computed",
    }


def headline_uncertainty(
    comparison: ir.Comparison,
    head: T.Ratios | None,
    reads: Mapping[str, Reads],
) -> T.HeadlineUncertainty:
    """The headline ratios' intervals and whether the lead is within measurement noise."""
    u = comparison.uncertainty
    empty: T.HeadlineUncertainty = {
        "throughput_ratio_ci": None,
        "cost_ratio_ci": None,
        "throughput_ratio_one_sided_ci": None,
        "cost_ratio_one_sided_ci": None,
        "cost_ratio_at_equal_price_one_sided_ci": None,
        "confidence": u.confidence if u.enabled else None,
        "within_noise": None,
        "cost_within_noise": None,
        "interval_note": None,
        "interval_basis": None,
        "interval_assumption": None,
    }
    if head is None or not u.enabled:
        return empty
    a, b = reads.get(head["system"]), reads.get(head["baseline"])
    ratio, per_gpu = head["throughput_ratio"], head["per_gpu_throughput_ratio"]
    if a is None or b is None:
        empty["interval_note"] = "a side's figures are reported, not measured (no per-request data)"
        level = u.confidence
        computed = {  # a measured side's read interval, for a mixed comparison
            name: computed_spread(r.point, as_list(ci(comparison, r.boot, r.point)), level)
            for name, r in reads.items()
        }
        return ratio_interval(comparison, head, empty, computed)
    if ratio is None or not per_gpu or not a.point or not b.point:
        return empty
    with np.errstate(divide="ignore", invalid="ignore"):
        per_gpu_b = a.boot / b.boot
    if head["bound"] is not None:
        return bound_ratio_interval(comparison, head, empty, per_gpu_b)
    ratio_ci = ci(comparison, ratio * per_gpu_b / per_gpu, ratio)
    cost = head["cost_ratio"]
    cost_ci = None
    if cost is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            cost_ci = ci(comparison, cost * per_gpu / per_gpu_b, cost)
    band = comparison.tie_band
    return {
        "throughput_ratio_ci": as_list(ratio_ci),
        "cost_ratio_ci": as_list(cost_ci),
        "throughput_ratio_one_sided_ci": None,
        "cost_ratio_one_sided_ci": None,
        "cost_ratio_at_equal_price_one_sided_ci": None,
        "confidence": u.confidence,
        "within_noise": within_noise(ratio_ci, band) if ratio_ci else None,
        "cost_within_noise": within_noise(cost_ci, band) if cost_ci else None,
        "interval_note": None,
        "interval_basis": "computed" if ratio_ci is not None else None,
        "interval_assumption": None,
    }
