"""Percentiles of large columns from sample brackets equal numpy's, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc import metrics
from cmpc.metrics import describe, order_statistics

KEYS = ("50", "90", "99", "99.9", "0", "100", "1")


def numpy_figures(x: np.ndarray) -> list[float]:
    q = [float(k) for k in KEYS]
    return [float(v) for v in np.percentile(x, q)] + [float(np.median(x))]


def cmpc_figures(x: np.ndarray) -> list[float]:
    stats = describe(x, KEYS)
    return [stats.percentiles[k] for k in KEYS] + [stats.median]


def columns() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    gaps = rng.gamma(4.0, 0.005, 300_001).round(6)  # synthetic chunk gaps, many ties
    return {
        "gamma": gaps,
        "sorted": np.sort(gaps),
        "reversed": np.sort(gaps)[::-1].copy(),
        "sawtooth": np.tile(np.arange(1000.0), 200),  # periodic: the strided sample is biased
        "constant": np.full(100_000, 0.02),
        "two values": np.repeat([0.01, 0.03], [99_000, 1_000]),
        "heavy tail": rng.pareto(1.1, 250_000),
    }


@pytest.fixture(params=["C pass", "numpy pass"])
def bracket_pass(request, monkeypatch):
    """Each test below on both ways of passing over the brackets: the C one (when built) and
    the blocked numpy one it stands in for."""
    if request.param == "numpy pass":
        monkeypatch.setattr(metrics, "_fastscan", None)
    elif metrics._fastscan is None:
        pytest.skip("the C scanner is not built")
    return request.param


@pytest.mark.parametrize("name", list(columns()))
def test_large_columns_give_numpys_percentiles_and_median(name, bracket_pass):
    x = columns()[name]
    before = x.copy()
    assert x.size >= metrics._SELECT_FROM
    assert cmpc_figures(x) == numpy_figures(x)
    assert np.array_equal(x, before), "the column is left as it was"
    if name not in ("sawtooth",):
        ranks = [0, x.size // 2, x.size * 99 // 100, x.size - 1]
        assert order_statistics(x, ranks) == dict(
            zip(ranks, np.sort(x)[ranks].tolist(), strict=True)
        )


def test_a_sample_ordered_against_the_data_falls_back_to_a_partition(bracket_pass):
    x = np.arange(200_000, dtype=np.float64)
    x[:: max(1, x.size // metrics._SAMPLE)] = 1e9  # the sample sees only one value
    assert order_statistics(x, [100_000]) is None
    assert cmpc_figures(x) == numpy_figures(x)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 10, allow_nan=False).map(lambda v: round(v, 2)), min_size=1))
def test_small_brackets_agree_with_numpy(values):
    x = np.array(values, dtype=np.float64)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(metrics, "_SELECT_FROM", 1)
        m.setattr(metrics, "_SAMPLE", 4)
        assert cmpc_figures(x) == numpy_figures(x)


bounds = st.floats(-5, 15, allow_nan=False) | st.sampled_from([-np.inf, np.inf, 0.0, -0.0])


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.floats(-10, 10) | st.sampled_from([0.0, -0.0]), max_size=50),
    edges=st.lists(st.tuples(bounds, bounds).map(sorted), max_size=5),
    block=st.sampled_from([1, 3, 1 << 16]),
)
def test_the_c_bracket_pass_is_the_numpy_pass(values, edges, block):
    if metrics._fastscan is None:
        pytest.skip("the C scanner is not built")
    x = np.array(values, dtype=np.float64)
    pairs = [(float(lo), float(hi)) for lo, hi in edges]
    under, inside = metrics._bracket_pass(x, pairs)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(metrics, "_fastscan", None)
        m.setattr(metrics, "_CHUNK", block)  # blocks of any length pass over the same values
        slow_under, slow_inside = metrics._bracket_pass(x, pairs)
    assert under == slow_under
    assert [a.view(np.int64).tolist() for a in inside] == [
        a.view(np.int64).tolist() for a in slow_inside
    ]


def test_a_strided_column_takes_the_numpy_pass():
    x = np.arange(300_000, dtype=np.float64)[::-2]  # not contiguous: no buffer for the C pass
    assert describe(x, KEYS).percentiles["99"] == float(np.percentile(x, 99))
