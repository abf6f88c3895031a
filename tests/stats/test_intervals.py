"""Interval arithmetic, batch frontier reads and capacity at SLO, against worked values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cmpc.analysis.slo_capacity import _read, _read_replicates
from cmpc.compute.frontier import (
    Point,
    _segment,
    by_latency,
    pareto_frontier,
    read_at,
    steffen_curve,
    steffen_value,
)
from cmpc.compute.frontier_batch import read_batch, read_batch_latency
from cmpc.compute.intervals import (
    acceleration,
    interval,
    normal_ppf,
    within_noise,
)
from cmpc.compute.percentile import one_sided_bound
from cmpc.compute.slo_capacity import capacity_at


def test_normal_quantiles_match_the_tables():
    assert normal_ppf(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_ppf(0.5) == pytest.approx(0.0, abs=1e-15)
    assert normal_ppf(0.001) == pytest.approx(-3.090232306167813, abs=1e-12)


def test_percentile_interval_is_numpys_quantiles_of_the_replicates():
    values = np.arange(1, 1001, dtype=float)  # 1..1000
    got = interval(values, 500.0, 0.95, "percentile")
    assert got is not None
    assert [got.low, got.high] == pytest.approx(np.quantile(values, [0.025, 0.975]), abs=1e-9)
    assert got.replicates == 1000


def test_bca_without_bias_or_acceleration_is_the_percentile_interval():
    values = np.linspace(-1, 1, 2001)  # symmetric around the estimate 0: z0 = 0
    bca = interval(values, 0.0, 0.9, "bca", 0.0)
    pct = interval(values, 0.0, 0.9, "percentile")
    assert bca is not None and pct is not None
    assert bca.low == pytest.approx(pct.low, abs=1e-9)
    assert bca.high == pytest.approx(pct.high, abs=1e-9)


def test_bca_moves_toward_the_long_tail_with_positive_acceleration():
    values = np.linspace(-1, 1, 2001)
    plain = interval(values, 0.0, 0.9, "bca", 0.0)
    skewed = interval(values, 0.0, 0.9, "bca", 0.1)
    assert plain is not None and skewed is not None
    assert skewed.low > plain.low and skewed.high > plain.high


def test_acceleration_is_efrons_formula():
    jack = np.array([1.0, 2.0, 3.0, 10.0])
    d = jack.mean() - jack
    assert acceleration(jack) == pytest.approx(np.sum(d**3) / (6 * np.sum(d**2) ** 1.5))
    assert acceleration([2.0, 2.0, 2.0]) == 0.0


def test_too_few_replicates_give_no_interval():
    assert interval([1.0] * 9 + [math.nan] * 100, 1.0, 0.95) is None


@pytest.mark.parametrize(
    ("low", "high", "noise"),
    [(0.97, 1.05, True), (1.001, 1.004, True), (1.02, 1.2, False), (0.8, 0.99, False)],
)
def test_within_noise_holds_one_or_sits_in_the_tie_band(low, high, noise):
    got = interval(np.linspace(low, high, 101), (low + high) / 2, 0.999999, "percentile")
    assert within_noise(got, 0.005) is noise


def test_the_scalar_steffen_read_is_the_curve_bit_for_bit():
    rng = np.random.default_rng(3)
    for _ in range(500):
        x = np.sort(rng.uniform(1, 100, 6))
        y = np.sort(rng.uniform(1, 1000, 6))[::-1]
        front = pareto_frontier([Point(float(a), float(b)) for a, b in zip(x, y, strict=True)])
        at = float(rng.uniform(front[0].interactivity, front[-1].interactivity))
        assert steffen_value(front, at, _segment(front, at)) == steffen_curve(front, [at])[0]


@pytest.mark.parametrize("method", ["steffen", "linear", "nearest", "calculator"])
def test_batch_reads_are_read_at_bit_for_bit(method):
    rng = np.random.default_rng(4)
    x = rng.uniform(10, 100, (400, 7))
    y = rng.uniform(1, 1000, (400, 7))
    x[rng.random(x.shape) < 0.05] = np.nan
    x[:100, 1] = x[:100, 0]  # equal interactivities
    y[:50, 1] = y[:50, 0]  # equal points
    x[200, 3] = 50.0  # a knot at the target
    x[300:340, 2:] = np.nan  # two-knot frontiers (the calculator bends their segment)
    x[300:320, 0], x[300:320, 1] = 40.0, 60.0
    y[300:320, 0], y[300:320, 1] = 900.0, 100.0
    got = read_batch(x, y, 50.0, method)
    for b in range(x.shape[0]):
        pts = [Point(float(p), float(q)) for p, q in zip(x[b], y[b], strict=True)]
        want = read_at(pareto_frontier(pts), 50.0, method).value
        assert (math.isnan(got[b]) and want is None) or got[b] == want


@pytest.mark.parametrize("method", ["steffen", "linear", "nearest", "calculator"])
def test_batch_reads_along_latency_are_read_latency_bit_for_bit(method):
    rng = np.random.default_rng(5)
    x = rng.uniform(10, 100, (400, 7))  # interactivities; the target is 20 ms (50 tok/s/user)
    y = rng.uniform(1, 1000, (400, 7))
    x[rng.random(x.shape) < 0.05] = np.nan
    x[:100, 1] = x[:100, 0]
    x[200, 3] = 1 / 0.020  # a knot at the target
    x[300:320, 2:] = np.nan  # two-knot frontiers around the target
    x[300:320, 0], x[300:320, 1] = 40.0, 60.0
    y[300:320, 0], y[300:320, 1] = 900.0, 100.0
    got = read_batch_latency(x, y, 20.0, method)
    along = 0
    for b in range(x.shape[0]):
        pts = [Point(float(p), float(q)) for p, q in zip(x[b], y[b], strict=True)]
        front = pareto_frontier(pts)
        want = read_at(by_latency(front), -20.0, method).value
        assert (math.isnan(got[b]) and want is None) or got[b] == want
        along += want is not None and want != read_at(front, 50.0, method).value
    assert along > (20 if method == "nearest" else 100)  # unlike reads along interactivity


def test_capacity_lies_where_the_first_limit_is_reached_between_the_bracketing_runs():
    # loads 8, 16, 32; limits p99 ttft 1.0 and p99 tpot 0.05; load 32 fails both
    values = [[0.2, 0.02], [0.6, 0.04], [1.4, 0.08]]
    read = capacity_at([8, 16, 32], values, [1.0, 0.05], [100.0, 180.0, 260.0])
    # ttft reaches 1.0 at t = 0.4/0.8 = 0.5; tpot reaches 0.05 at t = 0.01/0.04 = 0.25: first
    assert read.met and read.limiting == 1 and (read.below, read.above) == (1, 2)
    assert read.load == pytest.approx(16 + 0.25 * 16)
    assert read.throughput == pytest.approx(180 + 0.25 * 80)


def test_capacity_is_never_read_beyond_the_sweep_or_where_no_run_meets_the_limits():
    top = capacity_at([1, 2], [[0.1], [0.2]], [1.0], [10.0, 20.0])
    assert top.met and top.bounded_by_sweep and top.load == 2 and top.throughput == 20.0
    none = capacity_at([1, 2], [[2.0], [3.0]], [1.0], [10.0, 20.0])
    assert not none.met and none.load is None


def test_a_lower_bounds_one_sided_bound_is_its_low_quantile_with_no_read_below_all():
    """0..99 at 95%: numpy's linear 5% quantile, 4.95. Three replicates without a read count
    as below every value (the 5% point, index 4.95, falls between 1 and 2); ten of 100 leave
    the 5% point among them: no finite bound."""
    assert one_sided_bound(np.arange(100.0), 0.95) == pytest.approx(4.95)
    three = np.concatenate([np.full(3, np.nan), np.arange(97.0)])
    assert one_sided_bound(three, 0.95) == pytest.approx(1.95)  # index 4.95 of [-inf x3, 0, 1, 2..]
    assert one_sided_bound(np.concatenate([np.full(10, np.nan), np.arange(90.0)]), 0.95) is None
    assert one_sided_bound(np.arange(9.0), 0.95) is None  # too few replicates


def test_capacity_of_every_replicate_at_once_is_the_scalar_read_of_each():
    rng = np.random.default_rng(8)
    runs, replicates = 19, 600
    # loads with 1 to 10 runs each (means over repetitions in numpy's own order)
    sizes = [1, 2, 1, 10, 3, 1, 1]
    members, start = [], 0
    for k in sizes:
        members.append(list(range(start, start + k)))
        start += k
    groups = [(float(2**i), m) for i, m in enumerate(members)]
    assert start == runs
    growth = np.repeat(np.arange(len(sizes)), sizes)[:, None, None]
    stats = rng.uniform(0.5, 1.5, (runs, 2, replicates)) * (0.2 + 0.3 * growth)
    stats[rng.random(stats.shape) < 0.01] = np.nan  # a statistic a replicate lacks
    stats[:, :, :5] = 5.0  # no load meets the limits
    stats[:, :, 5:10] = 0.1  # every load meets them: capacity at the top of the sweep
    stats[:, :, 10] = stats[:, :, 11]  # ties between limits' crossings
    stats[4:, 1, 12] = 2.0  # flat from one load to the next: the crossing is at the lower
    tput = rng.uniform(100, 200, (runs, replicates))
    limits = [1.0, 1.1]
    loads, through = _read_replicates(groups, stats, tput, limits)
    kinds = set()
    for b in range(replicates):
        got = _read(groups, stats[:, :, b], tput[:, b], limits)
        if got.met:
            assert loads[b] == got.load and through[b] == got.throughput, b
            kinds.add("top" if got.above is None else "between")
        else:
            assert np.isnan(loads[b]) and np.isnan(through[b]), b
            kinds.add("unmet")
    assert kinds == {"top", "between", "unmet"}


def test_a_lower_bound_is_numpys_quantile_bit_for_bit_without_numpy_ma():
    rng = np.random.default_rng(23)  # seeded synthetic replicates, some without a read
    for n in (10, 11, 200, 2010):
        for missing in (0, 1, n // 50, n // 10):
            values = rng.lognormal(0.0, 0.3, n)
            values[rng.choice(n, missing, replace=False)] = rng.choice([np.nan, np.inf], missing)
            for confidence in (0.9, 0.95, 0.99, 0.5):
                ranked = np.where(np.isfinite(values), values, -np.inf)
                with np.errstate(invalid="ignore"):
                    want = float(np.quantile(ranked, 1.0 - confidence, method="linear"))
                got = one_sided_bound(values.tolist(), confidence)
                if math.isfinite(want):
                    assert got is not None and got.hex() == want.hex(), (n, missing, confidence)
                else:
                    assert got is None
