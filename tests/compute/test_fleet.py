"""Fleet-planner reads: the highest interactivity within a cost cap, users per megawatt."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.compute.fleet import (
    AT_LEAST,
    CANNOT,
    MET,
    interactivity_within,
    required_throughput,
    users_per_megawatt,
)
from cmpc.compute.frontier import Point, pareto_frontier, read_at

THREE = ([20.0, 40.0, 60.0], [1000.0, 800.0, 400.0])  # (tok/s/user, tok/s/gpu), a frontier


def _one(points: tuple[list[float], list[float]], need: float, method: str):
    found, status = interactivity_within(np.array([points[0]]), np.array([points[1]]), need, method)
    return float(found[0]), int(status[0])


def test_required_throughput_is_the_cost_formula_solved_for_throughput():
    """$2.00/GPU-h at a $1.00/Mtok cap: 2 x 1e6 / (1 x 3600) = 555.56 tok/s/gpu; at 70%
    utilization 793.65; with 8 of 10 billed GPUs used, 8/10 of the tokens pay: 694.44."""
    assert required_throughput(2.0, 1.0, 1.0, 1.0) == pytest.approx(5000 / 9, rel=1e-15)
    assert required_throughput(2.0, 1.0, 0.7, 1.0) == pytest.approx(793.6507936507936)
    assert required_throughput(2.0, 1.0, 1.0, 0.8) == pytest.approx(5000 / 9 / 0.8)


def test_linear_read_of_three_points_at_a_cap():
    """Points (20, 1000), (40, 800), (60, 400); $2.00/GPU-h, cap $1.00/Mtok, utilization 100%:
    the cap needs 5000/9 = 555.56 tok/s/gpu, which lies between (40, 800) and (60, 400):
    x = 40 + (800 - 5000/9) / (800 - 400) x 20 = 40 + 110/9 = 470/9 = 52.222 tok/s/user."""
    need = required_throughput(2.0, 1.0, 1.0, 1.0)
    x, status = _one(THREE, need, "linear")
    assert status == MET
    assert x == pytest.approx(470 / 9, rel=1e-12)


def test_the_nearest_read_stops_at_the_fastest_measured_point_within_the_cap():
    """The nearest read reads measured points only: (40, 800) is the fastest within $1.00."""
    x, status = _one(THREE, required_throughput(2.0, 1.0, 1.0, 1.0), "nearest")
    assert (x, status) == (40.0, MET)


def test_a_cap_below_the_cheapest_point_cannot_be_met():
    """Cap $0.50: the cap needs 1111.1 tok/s/gpu, above the slowest point's 1000 (whose
    cost is 2 / (1000 x 3600) x 1e6 = $0.556): never extrapolated, so no read."""
    x, status = _one(THREE, required_throughput(2.0, 0.5, 1.0, 1.0), "steffen")
    assert status == CANNOT and np.isnan(x)


def test_a_cap_above_the_fastest_point_is_a_lower_bound_at_it():
    """Cap $2.00: 277.8 tok/s/gpu is needed and even (60, 400) serves more: at least 60."""
    x, status = _one(THREE, required_throughput(2.0, 2.0, 1.0, 1.0), "steffen")
    assert (x, status) == (60.0, AT_LEAST)


def test_steffen_read_inverts_inferencex_worked_example(tpu_sweep):
    """InferenceX's TPU TP8 frontier reads 2,600.2 tok/s/gpu at 50 tok/s/user (Steffen). At
    $2.26/GPU-h the cost there is 2.26 / (2600.2 x 3600) x 1e6 = $0.2414/Mtok: that cap's
    highest interactivity is 50 tok/s/user (to the bisection's precision)."""
    points = [
        Point(r["median_intvty"], r["tput_per_gpu"], r["conc"])
        for r in tpu_sweep["benchmarks"]
        if r["tp"] == 8
    ]
    frontier = pareto_frontier(points)
    at_50 = read_at(frontier, 50.0, "steffen").value
    assert at_50 == pytest.approx(2600.2, abs=0.05)
    cap = 2.26 * 1e6 / (at_50 * 3600)
    assert cap == pytest.approx(0.2414, abs=5e-5)
    xy = ([p.interactivity for p in frontier], [p.throughput for p in frontier])
    x, status = _one(xy, required_throughput(2.26, cap, 1.0, 1.0), "steffen")
    assert status == MET and x == pytest.approx(50.0, rel=1e-9)
    calc, status = _one(xy, at_50, "calculator")  # the calculator's own cubic, by read_at
    assert status == MET and read_at(frontier, calc, "calculator").value == pytest.approx(at_50)


def test_replicates_are_read_as_the_point_read_is():
    """Each row is one replicate's points; row 0 as measured, row 1 with a dominated extra
    point (it changes nothing), row 2 without the slowest point (the cap cannot be met)."""
    x = np.array([[20, 40, 60, np.nan], [20, 40, 60, 30], [40, 60, np.nan, np.nan]], float)
    y = np.array([[1000, 800, 400, np.nan], [1000, 800, 400, 700], [800, 400, np.nan, np.nan]])
    need = 900.0
    found, status = interactivity_within(x, y, need, "linear")
    assert found[0] == found[1] == pytest.approx(30.0)  # halfway from 1000 to 800
    assert list(status) == [MET, MET, CANNOT] and np.isnan(found[2])


def test_users_per_megawatt_worked_example():
    """1,200 output tok/s per GPU at 50 tok/s/user = 24 streams per GPU; 1.9 kW per GPU is
    1e6 / 1900 = 526.3 GPUs per MW: 24 x 526.3 = 12,631.6 users/MW; with PUE 1.25,
    1e6 / 2375 = 421.05 GPUs per MW: 10,105.3 users/MW."""
    assert users_per_megawatt(1200, 50, 1900) == pytest.approx(12631.578947368, rel=1e-12)
    assert users_per_megawatt(1200, 50, 1900, 1.25) == pytest.approx(10105.263157894, rel=1e-12)


frontier_sets = st.lists(
    st.tuples(st.floats(1, 500), st.floats(1, 1e5)),
    min_size=1,
    max_size=8,
    unique_by=lambda p: p[0],
)


@settings(max_examples=200, deadline=None)
@given(points=frontier_sets, caps=st.lists(st.floats(1e-3, 50), min_size=2, max_size=6),
       method=st.sampled_from(["steffen", "linear", "nearest", "calculator"]))  # fmt: skip
def test_raising_the_cap_never_lowers_the_interactivity(points, caps, method):
    x = np.array([[p[0] for p in points]])
    y = np.array([[p[1] for p in points]])
    reads = []
    for cap in sorted(caps):
        found, status = interactivity_within(x, y, required_throughput(2.0, cap, 0.7, 1.0), method)
        reads.append(-np.inf if status[0] == CANNOT else float(found[0]))
    assert reads == sorted(reads)


@settings(max_examples=200, deadline=None)
@given(points=frontier_sets, cap=st.floats(1e-3, 50))
def test_the_read_meets_the_cap_and_goes_no_further(points, cap):
    """At the Steffen read the frontier's own read meets the cap; a little faster it does not."""
    frontier = pareto_frontier(Point(a, b) for a, b in points)
    need = required_throughput(2.0, cap, 0.7, 1.0)
    x = np.array([[p.interactivity for p in frontier]])
    y = np.array([[p.throughput for p in frontier]])
    found, status = interactivity_within(x, y, need, "steffen")
    if status[0] != MET:
        return
    at = float(found[0])
    assert read_at(frontier, at, "steffen").value >= need * (1 - 1e-9)
    beyond = at + 1e-6 * (frontier[-1].interactivity - frontier[0].interactivity)
    later = read_at(frontier, beyond, "steffen").value
    assert later is None or later <= need * (1 + 1e-9)


@given(
    output=st.floats(1e-3, 1e5),
    speed=st.floats(1e-2, 1e3),
    watts=st.floats(10, 1e5),
    pue=st.floats(1, 3),
)
def test_doubling_power_halves_users_per_megawatt(output, speed, watts, pue):
    once = users_per_megawatt(output, speed, watts, pue)
    assert users_per_megawatt(output, speed, 2 * watts, pue) == pytest.approx(once / 2, rel=1e-12)
