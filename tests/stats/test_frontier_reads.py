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
