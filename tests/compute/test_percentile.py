"""The plain-Python percentile interval equals numpy's (compute.intervals.interval), bit for bit."""

from __future__ import annotations

import base64
import math
import random
from array import array

import numpy as np
import pytest

from cmpc.compute.intervals import interval
from cmpc.compute.percentile import (
    one_sided_bound,
    pack,
    percentile_interval,
    quotient_interval,
    quotients,
    unpack,
)

CONFIDENCES = (0.5, 0.8, 0.9, 0.95, 0.99)


def _samples(rng: np.random.Generator) -> list[np.ndarray]:
    """Replicate sets of the shapes intervals meet: sizes around 10 and 2000, ties, non-finite."""
    out = []
    for n in (9, 10, 11, 37, 1999, 2000, 2001):
        out.append(rng.lognormal(0.0, 0.3, n))
        out.append(rng.normal(1.0, 0.05, n))
    tied = np.round(rng.normal(1.0, 0.01, 2000), 3)
    holed = rng.lognormal(0.0, 0.2, 2000)
    holed[rng.integers(0, 2000, 50)] = np.nan
    holed[rng.integers(0, 2000, 5)] = np.inf
    holed[rng.integers(0, 2000, 5)] = -np.inf
    return [*out, tied, holed, np.zeros(30), -rng.lognormal(0.0, 0.3, 200)]


def _same(a, b) -> None:
    assert (a is None) == (b is None)
    if a is not None:
        assert (a.low, a.high, a.replicates, a.method) == (b.low, b.high, b.replicates, b.method)


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_the_interval_equals_numpys_bit_for_bit(confidence):
    rng = np.random.default_rng(20261201)
    for values in _samples(rng):
        for estimate in (1.0, float(np.nanmedian(values)), math.nan):
            expected = interval(values, estimate, confidence, "percentile")
            _same(percentile_interval(values.tolist(), estimate, confidence), expected)


@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_a_quotients_interval_equals_numpys_division_then_interval(confidence):
    """What headline_uncertainty computes for the cost ratio: ci(cost * per_gpu / ratios)."""
    rng = np.random.default_rng(7)
    for ratios in _samples(rng):
        for numerator in (1.37, 0.0, -2.5, 1e308, math.nan):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                expected = interval(numerator / ratios, 1.2, confidence, "percentile")
            kept = sorted(r for r in ratios.tolist() if not math.isnan(r))
            _same(quotient_interval(numerator, kept, 1.2, confidence), expected)
            _same(
                percentile_interval(quotients(numerator, ratios.tolist()), 1.2, confidence),
                expected,
            )


def test_the_fast_path_takes_four_divisions_and_agrees_with_the_full_one():
    rng = np.random.default_rng(11)
    ratios = sorted(rng.lognormal(-0.4, 0.05, 2000).tolist())
    fast = quotient_interval(1.6, ratios, 1.6, 0.95)
    full = percentile_interval(quotients(1.6, ratios), 1.6, 0.95)
    assert fast is not None and full is not None
    assert (fast.low, fast.high, fast.replicates) == (full.low, full.high, full.replicates)


def test_packed_floats_read_back_exactly():
    values = [0.1, -0.0, math.inf, -math.inf, 5e-324, 1.7976931348623157e308]
    back = unpack(pack(values))
    assert [math.copysign(1, v) for v in back] == [math.copysign(1, v) for v in values]
    assert back == values
    assert math.isnan(unpack(pack([math.nan]))[0])
    with pytest.raises(ValueError):
        unpack(pack([1.0])[:-4] + "AA==")  # not whole float64s


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7, 100])
def test_packed_floats_are_base64_as_the_base64_module_writes_it(size):
    values = [random.Random(size).uniform(-1e6, 1e6) for _ in range(size)]
    packed = pack(values)
    assert packed == base64.b64encode(array("d", values).tobytes()).decode("ascii")
    assert unpack(packed) == values


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("AAAAAAAA8D8=x", ValueError),  # base64.b64decode(validate=True) refuses these too
        ("AAAA AAAA8D8=", ValueError),
        ("AAAAAAAA8D8", ValueError),  # bad padding
        ("µAAAAAAA8D8=", ValueError),  # not ASCII
        (7, TypeError),  # a hostile stage's step may hold any JSON value
        (None, TypeError),
    ],
)
def test_unpack_refuses_what_b64decode_with_validate_refuses(text, error):
    if isinstance(text, str):
        with pytest.raises(ValueError):
            base64.b64decode(text, validate=True)
    with pytest.raises(error):
        unpack(text)


@pytest.mark.parametrize("numerator", [1.6, -2.0, 0.0, -0.0, math.nan, math.inf, -math.inf])
@pytest.mark.parametrize(
    "denominators",
    [[0.5, 2.0, 3.0], [0.0, 1.0], [-0.0, 2.0], [math.nan, 1.0], [math.inf, -math.inf, 4.0], []],
)
def test_quotients_divide_as_numpy_does_with_or_without_a_zero(numerator, denominators):
    found = quotients(numerator, denominators)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (np.float64(numerator) / np.array(denominators, dtype=float)).tolist()
    assert [repr(v) for v in found] == [repr(v) for v in expected]
    assert [repr(v) for v in quotients(numerator, iter(denominators))] == [repr(v) for v in found]


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize("holes", [0, 1, 30, 300])
def test_a_one_sided_bound_ranks_replicates_without_a_value_at_the_far_end(side, holes):
    """Non-finite replicates count below (lower) or above (upper) every value: the bound is
    numpy's quantile of the replicates with them replaced so."""
    rng = random.Random(holes)
    values = [rng.uniform(0.5, 2.0) for _ in range(2000)]
    for i in rng.sample(range(2000), holes):
        values[i] = rng.choice([math.nan, math.inf, -math.inf])
    far = -math.inf if side == "lower" else math.inf
    ranked = np.sort([v if math.isfinite(v) else far for v in values])
    q = 0.05 if side == "lower" else 0.95
    with np.errstate(invalid="ignore"):  # inf - inf between two replicates without a value
        expected = float(np.quantile(ranked, q))
    found = one_sided_bound(iter(values), 0.95, side)  # unclamped: the caller rules on it
    if not math.isfinite(expected):
        assert found is None
    else:
        assert found == expected
