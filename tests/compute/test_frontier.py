"""Pareto frontier and reads, against the InferenceX worked example (inferencex.md §4.4)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cmpc.compute.frontier import (
    AT_KNOT,
    Method,
    Point,
    pareto_frontier,
    read_all,
    read_at,
    steffen_curve,
    steffen_slopes,
)

# Published to one decimal: a read is right when it rounds to the published digit.
PUBLISHED = 0.05


def tp8_points(sweep: dict) -> list[Point]:
    return [
        Point(row["median_intvty"], row["tput_per_gpu"], row["conc"], f"tp{row['tp']}")
        for row in sweep["benchmarks"]
        if row["tp"] == 8
    ]


@pytest.fixture
def tp8_frontier(tpu_sweep) -> tuple[Point, ...]:
    return pareto_frontier(tp8_points(tpu_sweep))


def test_frontier_knots_match_the_published_ones(tp8_frontier):
    knots = [(26.31, 3705.8), (41.97, 2900.9), (63.50, 2180.1), (84.94, 1444.0), (103.55, 881.6)]
    got = [(p.interactivity, p.throughput) for p in tp8_frontier]
    np.testing.assert_allclose(got, knots, atol=0.01 + PUBLISHED)
    assert [p.concurrency for p in tp8_frontier] == [64, 32, 16, 8, 4]


@pytest.mark.parametrize(
    ("target", "method", "published"),
    [
        (50, Method.STEFFEN, 2600.2),
        (50, Method.LINEAR, 2632.1),
        (30, Method.STEFFEN, 3503.1),
        (80, Method.STEFFEN, 1607.6),
    ],
)
def test_reads_reproduce_the_worked_example(tp8_frontier, target, method, published):
    read = read_at(tp8_frontier, target, method)
    assert read.reachable
    assert read.method is method
    assert read.value == pytest.approx(published, abs=PUBLISHED)


def test_read_reports_the_two_knots_and_their_concurrencies(tp8_frontier):
    lo, hi = read_at(tp8_frontier, 50).knots
    assert (lo.concurrency, hi.concurrency) == (32, 16)
    assert lo.interactivity < 50 < hi.interactivity


def test_nearest_takes_the_closer_knot(tp8_frontier):
    read = read_at(tp8_frontier, 50, "nearest")
    assert read.value == pytest.approx(2900.8638876110117, rel=1e-15)


def test_nearest_tie_takes_the_faster_knot():
    frontier = pareto_frontier([Point(10, 100), Point(20, 50)])
    assert read_at(frontier, 15, Method.NEAREST).value == 50


@pytest.mark.parametrize("target", [200, 26.0, 0, -1, math.inf])
def test_targets_outside_the_frontier_are_unreachable(tp8_frontier, target):
    for method in Method:
        read = read_at(tp8_frontier, target, method)
        assert not read.reachable
        assert read.value is None
        assert read.knots == ()
        assert read.derive(1.0) is None


@pytest.mark.parametrize("method", list(Method))
def test_reads_at_knots_return_the_measured_throughput(tp8_frontier, method):
    for knot in tp8_frontier:
        read = read_at(tp8_frontier, knot.interactivity, method)
        assert read.value == pytest.approx(knot.throughput, rel=1e-12)


def test_one_point_frontier_reads_only_at_its_point():
    only = Point(40, 1000, 16)
    assert read_at((only,), 40).value == 1000
    assert read_at((only,), 40).knots == (only, only)
    assert not read_at((only,), 41).reachable
    assert not read_at((), 41).reachable


def test_two_point_steffen_is_linear():
    frontier = pareto_frontier([Point(10, 300), Point(30, 100)])
    assert read_at(frontier, 15).value == pytest.approx(250, rel=1e-12)


def test_recipes_are_pooled_into_one_frontier(tpu_sweep):
    pooled = pareto_frontier(
        Point(r["median_intvty"], r["tput_per_gpu"], r["conc"], f"tp{r['tp']}")
        for r in tpu_sweep["benchmarks"]
    )
    # The TP1 point (32.8 tok/s/user, 29,399 tok/s/GPU) dominates the TP8 conc-64 point.
    assert [p.label for p in pooled] == ["tp1", "tp8", "tp8", "tp8", "tp8"]
    assert [p.concurrency for p in pooled] == [64, 32, 16, 8, 4]


def test_equal_interactivity_keeps_the_higher_throughput():
    frontier = pareto_frontier([Point(10, 5), Point(10, 7), Point(20, 1)])
    assert frontier == (Point(10, 7), Point(20, 1))


def test_dominated_and_non_finite_points_are_dropped():
    points = [Point(10, 100), Point(12, 120), Point(15, 90), Point(math.nan, 1e9), Point(5, 50)]
    assert pareto_frontier(points) == (Point(12, 120), Point(15, 90))


def test_derived_reciprocal_comes_from_the_read_throughput(tp8_frontier):
    read = read_at(tp8_frontier, 50)
    usd_per_gpu_hour = 1.21
    per_million = usd_per_gpu_hour / 3600 * 1e6
    assert read.derive(per_million) == pytest.approx(1.21 / (read.value * 3600) * 1e6)


def test_read_all_keeps_target_order(tp8_frontier):
    reads = read_all(tp8_frontier, [80, 200, 30])
    assert [r.target for r in reads] == [80, 200, 30]
    assert [r.reachable for r in reads] == [True, False, True]


# ---------------------------------------------------------------------------------------------
# Properties


point_lists = st.lists(
    st.builds(
        Point,
        st.floats(1, 1000, allow_nan=False),
        st.floats(1, 1e5, allow_nan=False),
    ),
    min_size=1,
    max_size=30,
)


@given(point_lists)
def test_frontier_is_strictly_monotone_and_non_dominated(points):
    front = pareto_frontier(points)
    xs = [p.interactivity for p in front]
    ys = [p.throughput for p in front]
    assert all(a < b for a, b in itertools.pairwise(xs))
    assert all(a > b for a, b in itertools.pairwise(ys))
    for p in points:
        # every input point is weakly dominated by some frontier point
        assert any(
            f.interactivity >= p.interactivity and f.throughput >= p.throughput for f in front
        )
    for f in front:
        # no input point strictly dominates a frontier point
        assert not any(
            p.interactivity >= f.interactivity
            and p.throughput >= f.throughput
            and (p.interactivity, p.throughput) != (f.interactivity, f.throughput)
            for p in points
        )


def _reference_steffen(xs: list[float], ys: list[float], t: float) -> float:
    """Independent twin: scalar Steffen slopes, evaluated as d3 draws them (a cubic Bézier)."""
    n = len(xs)
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    s = [(ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]

    def sign(v: float) -> float:
        return -1.0 if v < 0 else 1.0 if v > 0 else 0.0

    if n == 2:
        m = [s[0], s[0]]
    else:
        m = [0.0] * n
        for i in range(1, n - 1):
            p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i])
            m[i] = (sign(s[i - 1]) + sign(s[i])) * min(abs(s[i - 1]), abs(s[i]), abs(p) / 2)
        m[0] = (3 * s[0] - m[1]) / 2
        m[-1] = (3 * s[-1] - m[-2]) / 2
    k = max(i for i in range(n - 1) if xs[i] <= t) if t < xs[-1] else n - 2
    u = (t - xs[k]) / h[k]
    # Bézier control values: the x-controls are evenly spaced, so u is the curve parameter.
    c = [ys[k], ys[k] + h[k] * m[k] / 3, ys[k + 1] - h[k] * m[k + 1] / 3, ys[k + 1]]
    while len(c) > 1:
        c = [(1 - u) * a + u * b for a, b in itertools.pairwise(c)]
    return min(max(c[0], min(ys)), max(ys))


@st.composite
def monotone_frontiers(draw):
    n = draw(st.integers(2, 12))
    gaps = draw(st.lists(st.floats(0.5, 50), min_size=n, max_size=n))
    drops = draw(st.lists(st.floats(0.5, 5000), min_size=n, max_size=n))
    xs = list(np.cumsum(gaps))
    ys = list(1e5 - np.cumsum(drops))
    fracs = draw(st.lists(st.floats(0, 1), min_size=1, max_size=8))
    # min() keeps f = 1 from rounding past the last knot.
    targets = [min(xs[0] + f * (xs[-1] - xs[0]), xs[-1]) for f in fracs]
    return tuple(Point(x, y) for x, y in zip(xs, ys, strict=True)), targets


@given(monotone_frontiers())
def test_steffen_matches_an_independent_twin_and_stays_monotone(case):
    frontier, targets = case
    xs = [p.interactivity for p in frontier]
    ys = [p.throughput for p in frontier]
    got = steffen_curve(frontier, targets)
    want = [_reference_steffen(xs, ys, t) for t in targets]
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6)
    dense = steffen_curve(frontier, np.linspace(xs[0], xs[-1], 400))
    assert np.all(np.diff(dense) <= 1e-7 * max(abs(y) for y in ys))
    assert np.all((dense >= min(ys)) & (dense <= max(ys)))


def test_steffen_slopes_of_the_worked_example(tp8_frontier):
    xs = [p.interactivity for p in tp8_frontier]
    ys = [p.throughput for p in tp8_frontier]
    m = steffen_slopes(xs, ys)
    assert np.all(m < 0)
    h0, s0 = xs[1] - xs[0], (ys[1] - ys[0]) / (xs[1] - xs[0])
    assert m[0] == pytest.approx((3 * s0 - m[1]) / 2)
    assert h0 > 0


@given(monotone_frontiers())
def test_linear_matches_numpy_interp_and_nearest_is_a_knot(case):
    frontier, targets = case
    xs = [p.interactivity for p in frontier]
    ys = [p.throughput for p in frontier]
    linear = [read_at(frontier, t, Method.LINEAR).value for t in targets]
    # A target within AT_KNOT of a knot reads that knot as measured, not the interpolation.
    expected = [
        next((y for x, y in zip(xs, ys, strict=True) if math.isclose(x, t, rel_tol=AT_KNOT)), None)
        or float(np.interp(t, xs, ys))
        for t in targets
    ]
    np.testing.assert_allclose(linear, expected, rtol=1e-12)
    for t in targets:
        read = read_at(frontier, t, Method.NEAREST)
        lo, hi = read.knots
        assert read.value in (lo.throughput, hi.throughput)
        nearest = min((lo, hi), key=lambda k: (abs(k.interactivity - t), -k.interactivity))
        assert read.value == nearest.throughput
