"""cmpc._fastdraw under hostile arguments: errors, never crashes (the reviewer's experiments)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cmpc import _fastdraw
from cmpc.ingest import resample
from cmpc.traces.table import Requests, Run

STATE = (0, 1, 0, 1, False, 0)

# /tmp/rev8a/exp/uaf.py: an item's __bool__ empties the caller's list while C reads it
CLEARED_WHILE_READ = """
import faulthandler
import numpy as np
from cmpc import _fastdraw as f
faulthandler.enable()
S = (0, 1, 0, 1, False, 0)
one = np.ones((1, 5)); sums = np.zeros((3, 1))
metrics = []
class Evil:
    def __bool__(self):
        metrics.clear()
        for _ in range(1000): [object() for _ in range(10)]
        return False
good = lambda: (False, np.arange(5), np.array([.5]), np.ones(5), np.zeros((1, 3)))
first = (Evil(), np.arange(5), np.array([.5]), np.ones(5), np.zeros((1, 3)))
metrics[:] = [first] + [good() for _ in range(50)]
print(f.bootstrap_jackknife_pcg64(S, 5, 3, one, sums, metrics))
print("survived")
"""


def test_a_metric_list_emptied_while_read_is_no_crash():
    done = subprocess.run(
        [sys.executable, "-c", CLEARED_WHILE_READ], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("survived\n")


def test_a_metric_that_is_not_a_tuple_is_a_type_error():
    metric = [False, np.arange(5), np.array([0.5]), np.ones(5), np.zeros((1, 3))]
    with pytest.raises(TypeError, match="tuple"):
        _fastdraw.bootstrap_jackknife_pcg64(
            STATE, 5, 3, np.ones((1, 5)), np.zeros((3, 1)), [metric]
        )


def _metric(order=(0, 1), qs=(0.5,), values=None, out=None):  # type: ignore[no-untyped-def]
    order = np.asarray(order, dtype=np.int64)
    values = np.arange(float(order.size)) if values is None else values
    return (
        False,
        order,
        np.asarray(qs, dtype=float),
        values,
        np.zeros((len(qs), 3)) if out is None else out,
    )


def test_buffers_are_checked_by_their_type_not_only_their_item_size():
    # a float64 passed for int64 counts, ranks given as float64, a byte-swapped float64 table
    table, sums = np.ones((1, 5)), np.zeros((3, 1))
    swapped = np.ones((1, 5), dtype=">f8")
    x = np.zeros((3, 4))
    for call in (
        lambda: _fastdraw.draw_counts_pcg64(STATE, 5, 2, np.zeros(10)),
        lambda: _fastdraw.weighted_sums(np.zeros((2, 5)), 2, 5, table, np.empty((2, 1))),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(STATE, 5, 3, swapped, sums, []),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(
            STATE, 5, 3, table, sums, [(False, np.array([0.0, 1.0]), *_metric()[2:])]
        ),
        lambda: _fastdraw.frontier_reads(
            x.astype(np.int64), x, 3, 4, 1.0, 1e-9, 0, False, np.empty(3)
        ),
        lambda: _fastdraw.frontier_reads(x, x, 3, 4, 1.0, 1e-9, 0, False, np.empty(3, np.int64)),
        lambda: _fastdraw.percentile_ranks(
            np.zeros((2, 3)), 2, 3, np.array([0.5]), *[np.zeros(2, np.int64)] * 3
        ),
    ):
        with pytest.raises(ValueError, match=r"int64|float64"):
            call()


@pytest.mark.parametrize("q", [1.5, -0.01, 1e300, float("nan")])
def test_quantiles_outside_zero_to_one_are_value_errors(q):
    # p150 or p1e300 past the checker (E110 rejects them in a spec): (total - 1) * q cast to int64
    low = [np.zeros(4, np.int64), np.zeros(4, np.int64), np.zeros(2, np.int64)]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _fastdraw.percentile_ranks(np.ones((2, 3), np.int64), 2, 3, np.array([0.5, q]), *low)
    table, sums = np.ones((1, 5)), np.zeros((3, 1))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        _fastdraw.bootstrap_jackknife_pcg64(STATE, 5, 3, table, sums, [_metric(qs=(0.5, q))])


@pytest.mark.parametrize(
    "state", [(2**64, 1, 0, 1, False, 0), (0, -1, 0, 1, False, 0), (0, 1, 0, 1, True, 2**32)]
)
def test_state_words_out_of_range_are_errors(state):
    # the "K" format took any int modulo 2**64: a state that is no PCG64 state ran on
    with pytest.raises((OverflowError, ValueError)):
        _fastdraw.draw_counts_pcg64(state, 5, 2, np.zeros(10, np.int64))
    with pytest.raises((OverflowError, ValueError)):
        _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, np.ones((1, 5)), np.zeros((3, 1)), [])


NOTHING_TO_DO = """
from cmpc import _fastdraw
from cmpc.ingest import resample
from cmpc.traces.table import Requests, Run
import numpy as np
state = (0, 1, 0, 1, False, 0)
big = np.zeros((2**40, 0))
print(_fastdraw.bootstrap_jackknife_pcg64(state, 5, 2**40, np.zeros((0, 5)), big, []))
wide = np.zeros((0, 2**56))
print(_fastdraw.frontier_reads(wide, wide, 0, 2**56, 1.0, 1e-9, 0, False, np.zeros(0)))
"""


def test_nothing_to_sum_rank_or_read_returns_at_once():
    # 2**40 rows with no column and no metric drew 5 * 2**40 words for nothing; zero rows of
    # 2**56 points asked for 2**61 bytes of work
    done = subprocess.run(
        [sys.executable, "-c", NOTHING_TO_DO], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["(0, 1, 0, 1, 0, 0)", "None"]


def test_a_row_too_wide_for_the_work_space_is_an_error():
    huge = 2**62  # 4 doubles a point: 2**67 bytes, past any Py_ssize_t
    with pytest.raises(ValueError):
        _fastdraw.frontier_reads(
            np.zeros(0), np.zeros(0), 0, huge, 1.0, 1e-9, 0, False, np.zeros(0)
        )


@pytest.mark.parametrize("stat", ["p150", "p-5", "pnan", "pinf", "p1e300"])
@pytest.mark.parametrize("built", [True, False])
def test_replicates_refuse_a_percentile_outside_p0_to_p100_either_way(stat, built, monkeypatch):
    # /tmp/rev8a/exp/pq.py: numpy gave garbage for p150 where C now refuses; both refuse
    if not built:
        monkeypatch.setattr(resample, "_fastdraw", None)
    rng = np.random.default_rng(1)
    req = Requests(
        ok=np.ones(50, bool),
        ttft=rng.random(50),
        e2el=rng.random(50) + 1,
        input_tokens=np.full(50, 5.0),
        output_tokens=np.full(50, 9.0),
    )
    run = Run("r", "cmpc", 0, {"conc": 4}, requests=req, duration_s=3.0)
    with pytest.raises(ValueError, match="outside p0 to p100"):
        resample.replicates(run, [("e2el", stat)], resample.Settings(20, 1), "s")
