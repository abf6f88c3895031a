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


@pytest.mark.parametrize("name", list(columns()))
def test_large_columns_give_numpys_percentiles_and_median(name):
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


def test_a_sample_ordered_against_the_data_falls_back_to_a_partition():
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
