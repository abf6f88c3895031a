"""`describe`'s short path for a sweep's few hundred requests gives the general path's figures,
bit for bit (the sign of a zero and NaN included), and numpy's own."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc import metrics
from cmpc.metrics import Stats, describe

# the general path warns of infinities and overflow (numpy); the short one computes alike
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

KEYS = ("50", "90", "99", "99.9", "0", "100", "1", "25", "75")


def bits(stats: Stats) -> tuple:
    """Every figure as the bytes of its double (so -0.0 differs from 0.0 and NaN equals NaN)."""

    def b(v: float | None) -> bytes | None:
        return None if v is None else (b"nan" if v != v else struct.pack("<d", v))

    fields = (stats.mean, stats.std, stats.min, stats.max, stats.median)
    return (stats.n, *map(b, fields), tuple((k, b(v)) for k, v in stats.percentiles.items()))


def general(x: np.ndarray, keys=KEYS, overwrite=False) -> Stats:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(metrics, "_SMALL", 0)  # every column takes the general path
        return describe(x, keys, overwrite=overwrite)


def columns() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(19)
    out = {f"gamma {n}": rng.gamma(4.0, 0.005, n).round(6) for n in (1, 2, 3, 7, 8, 9, 100, 512)}
    out |= {
        "lone -0.0": np.array([-0.0]),
        "two -0.0": np.array([-0.0, -0.0]),
        "zeros of both signs": np.array([0.0, -0.0, -0.0, 0.0, -0.0]),
        "negatives": -rng.random(33),
        "ties": np.repeat([0.01, 0.03, 0.02], [50, 3, 20]),
        "infinities": np.array([1.0, np.inf, 2.0, -np.inf, 3.0]),
        "a NaN": np.array([0.5, np.nan, 0.25, 0.75]),
        "huge": np.array([1e308, 1.7e308, 1e308]),
        "subnormal": np.array([5e-324, 1e-320, 0.0]),
        "sorted": np.sort(rng.random(200)),
        "reversed": np.sort(rng.random(200))[::-1].copy(),
        "just under the threshold": rng.random(metrics._SMALL - 1),
    }
    return out


@pytest.mark.parametrize("name", list(columns()))
def test_short_path_gives_the_general_paths_bits(name):
    x = columns()[name]
    before = x.copy()
    assert bits(describe(x, KEYS)) == bits(general(x))
    assert np.array_equal(x, before, equal_nan=True), "the column is left as it was"


@pytest.mark.parametrize("name", ["gamma 100", "zeros of both signs", "a NaN"])
def test_overwrite_gives_the_same_figures(name):
    x = columns()[name]
    assert bits(describe(x.copy(), KEYS, overwrite=True)) == bits(general(x.copy(), KEYS, True))


def test_short_path_agrees_with_numpy():
    x = columns()["gamma 512"]
    stats = describe(x, KEYS)
    assert stats.mean == float(np.mean(x))
    assert stats.std == float(np.std(x))
    assert stats.median == float(np.median(x))
    assert [stats.percentiles[k] for k in KEYS] == [
        float(v) for v in np.percentile(x, [float(k) for k in KEYS])
    ]


def test_other_dtypes_and_methods_take_the_general_path():
    ints = np.arange(10)
    assert describe(ints, ("90",)).percentiles["90"] == float(np.percentile(ints, 90))
    x = columns()["gamma 100"]
    lower = describe(x, ("90",), "lower").percentiles["90"]
    assert lower == float(np.percentile(x, 90, method="lower"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(-10, 10, allow_nan=False), st.sampled_from([0.0, -0.0, 1.0])),
        min_size=1,
        max_size=40,
    ),
    st.lists(st.floats(0, 100).map(lambda q: f"{q:g}"), min_size=0, max_size=5),
)
def test_short_path_matches_the_general_path_on_any_column(values, keys):
    x = np.array(values, dtype=np.float64)
    assert bits(describe(x, keys)) == bits(general(x, keys))
