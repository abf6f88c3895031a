"""The C frontier reads (cmpc._fastdraw.frontier_reads): the numpy batch code's bits, row by row."""

from __future__ import annotations

import numpy as np
import pytest

from cmpc import _fastdraw
from cmpc.compute import frontier_batch
from cmpc.compute.frontier import AT_KNOT
from cmpc.compute.frontier_batch import read_batch, read_batch_latency

METHODS = ["steffen", "linear", "nearest"]


def _points(seed: int, rows: int = 3000, cols: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Replicate-like rows with every edge the reads meet: missing values, equal
    interactivities and points, knots at the target, frontiers of 0 to 3 knots, a target
    beyond either end, zero and infinite values."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(10, 100, (rows, cols))
    y = rng.uniform(1, 1000, (rows, cols))
    x[rng.random(x.shape) < 0.08] = np.nan
    y[rng.random(y.shape) < 0.04] = np.nan
    x[:300, 1] = x[:300, 0]  # equal interactivities
    y[:150, 1] = y[:150, 0]  # equal points
    x[300:340, 3] = 50.0  # a knot at the target ...
    x[340:380, 3] = 50.0 * (1 + 0.5 * AT_KNOT)  # ... and one within AT_KNOT of it
    x[380:420, 3] = 1 / 0.020  # a knot at the latency target (20 ms)
    x[420:600, 2:] = np.nan  # two knots
    x[420:500, 0], x[420:500, 1] = 40.0, 60.0
    x[600:700, 1:] = np.nan  # one knot
    x[700:760] = np.nan  # none
    x[760:820] *= 10  # every point beyond the target: unreachable on one side
    x[820:840, 4] = np.inf
    y[840:860, 4] = np.inf
    y[860:880] = np.round(y[860:880], -2)  # ties and zeros in throughput
    y[880:900, :3] = 0.0
    x[900:960] = np.round(x[900:960], -1)  # many equal interactivities
    y[960:1000] = 500.0  # all equal throughput
    x[1000:1100, 2:] = np.nan  # three knots
    return x, y


def _numpy(monkeypatch: pytest.MonkeyPatch, call, *args):  # type: ignore[no-untyped-def]
    with monkeypatch.context() as patch:
        patch.setattr(frontier_batch, "_fastdraw", None)
        return call(*args)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_c_reads_along_interactivity_are_the_numpy_codes_bits(method, seed, monkeypatch):
    x, y = _points(seed)
    fast = read_batch(x, y, 50.0, method)
    slow = _numpy(monkeypatch, read_batch, x, y, 50.0, method)
    assert fast.tobytes() == slow.tobytes()
    assert 200 < np.isfinite(fast).sum() < x.shape[0]  # both reachable and unreachable rows


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [4, 5])
def test_c_reads_along_latency_are_the_numpy_codes_bits(method, seed, monkeypatch):
    x, y = _points(seed)
    fast = read_batch_latency(x, y, 20.0, method)
    slow = _numpy(monkeypatch, read_batch_latency, x, y, 20.0, method)
    assert fast.tobytes() == slow.tobytes()
    assert 200 < np.isfinite(fast).sum() < x.shape[0]


@pytest.mark.parametrize("cols", [1, 2, 3, 12])
def test_narrow_and_wide_rows_and_targets_at_every_knot(cols, monkeypatch):
    rng = np.random.default_rng(cols)
    x = np.sort(rng.uniform(1, 100, (500, cols)), axis=1)
    y = np.sort(rng.uniform(1, 1000, (500, cols)), axis=1)[:, ::-1].copy()
    for target in [*x[0], 0.5, 150.0, float(np.median(x))]:
        for method in METHODS:
            fast = read_batch(x, y, float(target), method)
            slow = _numpy(monkeypatch, read_batch, x, y, float(target), method)
            assert fast.tobytes() == slow.tobytes(), (target, method)


def test_the_c_reads_are_what_the_replicates_use():
    # the C module built: read_batch takes its path for these methods, not numpy's
    x, y = _points(6, rows=10)
    out = np.empty(10)
    _fastdraw.frontier_reads(x, y, 10, x.shape[1], 50.0, AT_KNOT, 0, False, out)
    assert frontier_batch._c_reads(x, y, 50.0, "steffen", mirrored=False).tobytes() == out.tobytes()
    assert frontier_batch._c_reads(x, y, 50.0, "calculator", mirrored=False) is None


def test_bad_buffers_are_errors_not_crashes():
    x = np.zeros((3, 4))
    for args in (
        (x, x, 3, 5, 1.0, 1e-9, 0, False, np.empty(3)),  # cols past the buffer
        (x, x[:2], 3, 4, 1.0, 1e-9, 0, False, np.empty(3)),  # y too short
        (x, x, 3, 4, 1.0, 1e-9, 3, False, np.empty(3)),  # no such method
        (x, x, 3, 4, 1.0, 1e-9, 0, False, np.empty(2)),  # out too short
        (x, x, 3, 0, 1.0, 1e-9, 0, False, np.empty(3)),  # no columns
        (x.astype(np.float32), x, 3, 4, 1.0, 1e-9, 0, False, np.empty(3)),
    ):
        with pytest.raises(ValueError):
            _fastdraw.frontier_reads(*args)


def _sweep(seed: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """A large sweep with the sort's hard cases: many equal interactivities and throughputs,
    -0.0 beside 0.0 on either axis, NaN and infinities (as /tmp/rev8a/exp/fr2.py draws them)."""
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1.0, 2.0])
    x = rng.integers(-3, 40, (rows, cols)).astype(float)
    y = rng.integers(-3, 40, (rows, cols)).astype(float)
    x[rng.random(x.shape) < 0.05] = -0.0
    y[rng.random(y.shape) < 0.05] = -0.0
    pick = rng.random(x.shape) < 0.05
    x[pick] = rng.choice(specials, pick.sum())
    pick = rng.random(y.shape) < 0.05
    y[pick] = rng.choice(specials, pick.sum())
    half = rows // 2
    x[:half] = np.where(x[:half] > 5, rng.lognormal(2, 1, (half, cols)), x[:half])
    y[-5:] = rng.choice([0.0, -0.0], (5, cols))  # one knot: the first of the equal points
    return x, y


@pytest.mark.parametrize("cols", [17, 1000, 2049])
def test_a_large_sweep_sorts_as_numpys_lexsort(cols, monkeypatch):
    # the C sort's runs and merges (a width not a power of two too) against lexsort's order:
    # which of equal interactivities comes first decides the knot, -0.0 or 0.0 its bits
    x, y = _sweep(cols, 40, cols)
    for method in METHODS:
        for target in (0.0, -0.0, 1.0, 7.0, 20.5):
            fast = read_batch(x, y, target, method)
            slow = _numpy(monkeypatch, read_batch, x, y, target, method)
            assert fast.tobytes() == slow.tobytes(), (method, target)
            fast = read_batch_latency(x, y, target + 30.0, method)
            slow = _numpy(monkeypatch, read_batch_latency, x, y, target + 30.0, method)
            assert fast.tobytes() == slow.tobytes(), (method, target)
    _, fy, n = frontier_batch.frontiers(x, y)
    assert n.max() > 3 and np.signbit(fy[-5:, 0]).any() and not np.signbit(fy[-5:, 0]).all()


def test_the_sorts_worst_case_reads_as_numpy(monkeypatch):
    # points by falling interactivity: an insertion sort's worst case (its cost is timed by
    # benchmarks/frontier_reads.py, not here)
    rows, cols = 120, 4000
    x = np.tile(np.linspace(100.0, 1.0, cols), (rows, 1))
    y = np.tile(np.linspace(1.0, 1000.0, cols), (rows, 1))
    fast = read_batch(x, y, 50.0, "linear")
    assert fast.tobytes() == _numpy(monkeypatch, read_batch, x, y, 50.0, "linear").tobytes()


@pytest.mark.parametrize("method", [*METHODS, "calculator"])
def test_batch_reads_call_the_c_reads_once_for_its_methods(method, monkeypatch):
    # the C reads serve steffen, linear and nearest on either axis; calculator stays in numpy
    calls = []
    real = frontier_batch._fastdraw.frontier_reads

    def spy(*args):
        calls.append(args[7])  # mirrored: along latency
        return real(*args)

    monkeypatch.setattr(frontier_batch._fastdraw, "frontier_reads", spy)
    x, y = _points(7, rows=50)
    read_batch(x, y, 50.0, method)
    read_batch_latency(x, y, 20.0, method)
    assert calls == ([] if method == "calculator" else [False, True])
