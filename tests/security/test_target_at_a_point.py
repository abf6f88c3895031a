"""A target equal to a measured frontier point reads that point with every method, even when
the two were turned into tok/s/user along different roundings (1000 / 70 ms against 1 / 0.07 s,
which differ in the last bit): before, the point sat one ulp outside and was unreachable."""

from __future__ import annotations

import pytest

from cmpc.compute.frontier import Method, Point, pareto_frontier, read_at

MEASURED = 1 / 0.070  # a run's p90 TPOT of 0.070 s, as the analysis turns it into tok/s/user
TARGET = 1000.0 / 70  # `target 70 ms`, as the checker turns it into tok/s/user


def test_the_two_roundings_differ():
    assert TARGET != MEASURED  # the case exists: without it this file would prove nothing


@pytest.mark.parametrize("method", list(Method))
def test_a_one_point_frontier_reads_its_point(method):
    only = Point(MEASURED, 1234.5, 8)
    read = read_at((only,), TARGET, method)
    assert (read.reachable, read.value, read.knots) == (True, 1234.5, (only, only))
    assert read.target == TARGET  # the report states the declared target


@pytest.mark.parametrize("method", list(Method))
def test_the_fastest_point_of_a_sweep_reads_as_measured(method):
    frontier = pareto_frontier([Point(10.0, 3000.0, 64), Point(MEASURED, 2000.0, 8)])
    read = read_at(frontier, TARGET, method)
    assert read.reachable
    assert read.value == 2000.0
    assert [k.concurrency for k in read.knots] == [64, 8]


@pytest.mark.parametrize("method", list(Method))
def test_a_target_beyond_the_rounding_stays_unreachable(method):
    frontier = (Point(10.0, 3000.0), Point(MEASURED, 2000.0))
    assert not read_at(frontier, MEASURED * (1 + 1e-6), method).reachable
    assert not read_at((Point(MEASURED, 2000.0),), MEASURED * (1 - 1e-6), method).reachable
