"""`read calculator` and `read steffen` against the worked values of InferenceX-app's own tests.

Values copied from SemiAnalysisAI/InferenceX-app,
packages/app/src/components/calculator/useThroughputData.test.ts at commit
0726a392481c14b96113b282f9adecea7054d77c (the tests of `monotoneSlopes`, `hermiteInterpolate`
and `interpolateForGPU`; their implementation is `interpolation.ts` at
4399639e8aafc11ea40882be9c80ab8355d650f9). Each test names the `it(...)` it comes from. Where
their test states only a range, the exact value is worked by hand from their formulas and the
range is checked too.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cmpc.compute.calculator import calculator_value, hermite, monotone_slopes
from cmpc.compute.frontier import Method, Point, pareto_frontier, read_at, steffen_slopes

CALC, STEFFEN = Method.CALCULATOR, Method.STEFFEN


def _frontier(*xy: tuple[float, float]) -> tuple[Point, ...]:
    return pareto_frontier(Point(x, y) for x, y in xy)


# -- monotoneSlopes ------------------------------------------------------------------------------


def test_two_knots_apply_the_endpoint_rule():
    # it('returns correct slopes for two points using Steffen endpoint formula'):
    # m[0] = (3*10 - 0)/2 = 15, m[1] = (3*10 - 15)/2 = 7.5
    assert monotone_slopes([0, 10], [0, 100]) == pytest.approx([15, 7.5], abs=1e-5)
    # d3's drawn curve, which `read steffen` follows, is the straight line instead.
    np.testing.assert_array_equal(steffen_slopes([0, 10], [0, 100]), [10, 10])


@pytest.mark.parametrize("slopes", [monotone_slopes, steffen_slopes], ids=["calculator", "steffen"])
def test_interior_slopes_of_their_tests(slopes):
    # it('returns array of zeros for empty input') / it('returns [0] for single point')
    assert list(slopes([], [])) == []
    assert list(slopes([1], [5])) == [0]
    # it('returns correct slopes for three evenly-spaced points')
    assert slopes([0, 1, 2], [0, 1, 4])[1] == pytest.approx(2, abs=1e-5)
    # it('produces zero interior slope when adjacent segments have opposite signs')
    assert slopes([0, 1, 2], [0, 1, 0])[1] == 0
    # it('produces zero slope at a local extremum (peak)') / '(valley)'
    assert slopes([0, 1, 2, 3, 4], [10, 50, 100, 50, 10])[2] == 0
    assert slopes([0, 1, 2, 3, 4], [100, 50, 10, 50, 100])[2] == 0
    # it('handles constant y values (flat line)')
    assert np.allclose(slopes([0, 10, 20, 30], [50, 50, 50, 50]), 0, atol=1e-10)
    # it('produces slopes that maintain monotone interpolation for decreasing data')
    assert all(m <= 0 for m in slopes([0, 10, 20, 30, 40], [1000, 700, 400, 200, 50]))


# -- hermiteInterpolate --------------------------------------------------------------------------


def test_hermite_edges_of_their_tests():
    # it('returns 0 for empty arrays') / it('returns the single y value for single-point arrays')
    assert hermite([], [], [], 5) == 0
    assert hermite([5], [42], [0], 5) == 42
    assert hermite([5], [42], [0], 100) == 42
    # it('clamps to first/last value when targetParetoX is below/above range')
    xs, ys = [10, 20, 30], [100, 200, 300]
    m = monotone_slopes(xs, ys)
    assert hermite(xs, ys, m, 5) == 100
    assert hermite(xs, ys, m, 35) == 300
    # it('returns first/last y value when targetParetoX equals first/last x exactly')
    assert hermite(xs, ys, m, 10) == 100
    assert hermite(xs, ys, m, 30) == 300
    # it('handles zero-width segment gracefully')
    xs, ys = [10, 10, 20], [100, 100, 200]
    assert hermite(xs, ys, monotone_slopes(xs, ys), 10) == 100


def test_two_knot_midpoint_bends():
    # it('handles two-point interpolation at midpoint'): "near midpoint but may not be exactly 500
    # due to endpoint slope formula", asserted in (300, 700). By hand: 500 + 0.125·100·15
    # − 0.125·100·7.5 = 593.75.
    value = calculator_value([0, 100], [0, 1000], 50)
    assert 300 < value < 700
    assert value == 593.75


@pytest.mark.parametrize("method", [CALC, STEFFEN])
def test_linear_data_passes_its_knots(method):
    # it('returns exact knot values at knot positions') and
    # it('interpolates between knots for linear data'): toBeCloseTo(150, 0)
    frontier = _frontier((0, 300), (10, 200), (20, 100), (30, 0))
    for x, y in [(0, 300), (10, 200), (20, 100), (30, 0)]:
        assert read_at(frontier, x, method).value == pytest.approx(y, abs=1e-5)
    assert abs(read_at(frontier, 15, method).value - 150) < 0.5


# -- interpolateForGPU ---------------------------------------------------------------------------

RATE_FRONTIER = ((10, 6000), (30, 2000), (55, 900), (80, 300))


@pytest.mark.parametrize("method", [CALC, STEFFEN])
def test_exact_at_a_measured_point(method):
    # it('is exact at a measured point, where both methods agree anyway'): toBeCloseTo(2000, 6)
    read = read_at(_frontier(*RATE_FRONTIER), 30, method)
    assert abs(read.value - 2000) < 5e-7


def test_two_knot_read_of_their_tokens_per_dollar_test():
    # it('keeps the Python helper in sync for infrastructure total tokens per dollar'): knots
    # (20, 800) and (40, 600) read at 30 with hermiteInterpolate∘monotoneSlopes. By hand:
    # s = −10, m = (−15, −7.5): 400 + 0.125·20·(−15) + 300 − 0.125·20·(−7.5) = 681.25.
    frontier = _frontier((20, 800), (40, 600))
    assert read_at(frontier, 30, CALC).value == 681.25
    assert read_at(frontier, 30, STEFFEN).value == pytest.approx(700, rel=1e-15)  # d3's line


def test_endpoints_and_targets_outside():
    # it('uses the exact endpoint as the sole metadata source'): target 40 on (20,500),(40,300)
    frontier = _frontier((20, 500), (40, 300))
    assert read_at(frontier, 40, CALC).value == 300
    assert read_at(frontier, 20, CALC).value == 500
    # it('clamps target to the pareto-front input range instead of returning null'): the
    # calculator shows 500 at 10 and 300 at 50, flagged `clamped`; its blog twin
    # (iso_interactivity.py) returns None, "_unreachable_", and so does cmpc: never extrapolated.
    for target in (10, 50):
        read = read_at(frontier, target, CALC)
        assert (read.reachable, read.value, read.knots) == (False, None, ())


def test_one_knot():
    # it('returns the single point value when target matches exactly'): 500 at 30
    only = _frontier((30, 500))
    assert read_at(only, 30, CALC).value == 500
    # it('single GPU clamps any target to the lone pareto-front point'): the calculator's
    # clamp; cmpc (and the blog twin) call 25 unreachable.
    assert not read_at(only, 25, CALC).reachable


def test_dominated_points_leave_the_frontier():
    # it('filters dominated points via Pareto front'): (15, 300) is dominated; the read at 20
    # lies strictly between the remaining knots' 400 and 800.
    frontier = _frontier((10, 800), (15, 300), (30, 400))
    assert [p.interactivity for p in frontier] == [10, 30]
    assert 400 < read_at(frontier, 20, CALC).value < 800


def test_worked_example_of_inferencex_md(tpu_sweep):
    # Five knots: the calculator reads the dashboard's 2,600.2 at 50 tok/s/user (inferencex.md §4.4)
    rows = [r for r in tpu_sweep["benchmarks"] if r["tp"] == 8]
    frontier = pareto_frontier(Point(r["median_intvty"], r["tput_per_gpu"]) for r in rows)
    assert read_at(frontier, 50, CALC).value == pytest.approx(2600.2, abs=0.05)


# -- the two rules side by side ------------------------------------------------------------------


@st.composite
def frontiers(draw, min_size: int, max_size: int = 10):
    n = draw(st.integers(min_size, max_size))
    xs = np.cumsum(draw(st.lists(st.floats(0.5, 50), min_size=n, max_size=n)))
    ys = 1e5 - np.cumsum(draw(st.lists(st.floats(0.5, 5000), min_size=n, max_size=n)))
    fracs = draw(st.lists(st.floats(0, 1), min_size=1, max_size=6))
    targets = [min(xs[0] + f * (xs[-1] - xs[0]), xs[-1]) for f in fracs]
    return tuple(Point(float(x), float(y)) for x, y in zip(xs, ys, strict=True)), targets


@given(frontiers(min_size=3))
def test_on_three_or_more_knots_the_rules_agree(case):
    frontier, targets = case
    for t in targets:
        calc, steffen = read_at(frontier, t, CALC).value, read_at(frontier, t, STEFFEN).value
        assert calc == pytest.approx(steffen, rel=1e-9, abs=1e-6)


@given(frontiers(min_size=2, max_size=2))
def test_on_two_knots_the_calculator_bends_below_the_line(case):
    # calculator − line = h·s·u(1−u)(½(1−u) + ¼u) at u = (t − x0)/h: below the chord, as s < 0
    (lo, hi), targets = case
    h = hi.interactivity - lo.interactivity
    s = (hi.throughput - lo.throughput) / h
    for t in targets:
        value = read_at((lo, hi), t, CALC).value
        line = read_at((lo, hi), t, STEFFEN).value
        u = (t - lo.interactivity) / h
        assert value == pytest.approx(line + h * s * u * (1 - u) * (0.5 * (1 - u) + 0.25 * u))
        assert hi.throughput <= value <= line
