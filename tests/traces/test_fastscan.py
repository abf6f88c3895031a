"""The C number scanner: the same doubles as float() and the numpy reader, or None to fall back."""

from __future__ import annotations

import json
import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cmpc.traces import jsonscan

fastscan = pytest.importorskip("cmpc._fastscan", reason="the C scanner is not built")

finite = st.floats(allow_nan=False, allow_infinity=False)
formats = st.sampled_from([repr, "{:.6f}".format, "{:.17e}".format, "{:.3E}".format, str])
numbers = st.one_of(
    st.builds(lambda f, x: f(x), formats, finite).filter(
        lambda x: len(x) < 64 and math.isfinite(float(x))  # `{:.3E}` can round up to inf
    ),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(0, 1).map("{:.6f}".format),
)
space = st.sampled_from(["", " ", "\n", " \t\r\n "])
rows = st.lists(st.lists(numbers, max_size=8), max_size=6)


def _bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.int64)


def _render(data: list[list[str]], sep: str) -> bytes:
    inner = [f"[{sep}" + f"{sep},{sep}".join(row) + f"{sep}]" for row in data]
    return f"{sep},{sep}".join(inner).encode()


def _fallback(function, *args):
    """`function(*args)` on the pure-numpy path."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(jsonscan, "_fastscan", None)
        return function(*args)


@settings(max_examples=300, deadline=None)
@given(data=rows, sep=space)
@example(
    data=[["0.1", "-0.0", "5e-324", "1.7976931348623157e308", "2.2250738585072014E-308"]], sep=""
)
@example(
    data=[["9007199254740993", "0.30000000000000004", "123456789012345678901234567890"]], sep=""
)
@example(data=[[], ["1e-400"], [], ["0e99999"]], sep=" ")
def test_rows_match_float_and_the_numpy_reader(data, sep):
    piece = _render(data, sep)
    values, counts = (np.frombuffer(b) for b in fastscan.scan_rows(piece))
    expected = [float(x) for row in data for x in row]
    assert np.array_equal(values.view(np.int64), _bits(expected))
    assert counts.view(np.int64).tolist() == [len(row) for row in data]
    if data:
        slow_values, slow_counts = _fallback(jsonscan._rows_piece, piece, "itls", 0)
        assert slow_counts.tolist() == [len(row) for row in data]
        gap = np.abs(slow_values.view(np.int64) - values.view(np.int64))
        # the numpy reader is exact up to 15 digits, within one unit in the last place beyond
        assert np.all(gap[[_digits(x) <= 15 for row in data for x in row]] == 0)
        assert np.all(gap <= 1)


def _digits(number: str) -> int:
    mantissa = number.lower().partition("e")[0]
    return len(mantissa.lstrip("-").replace(".", "").lstrip("0"))


@settings(max_examples=300, deadline=None)
@given(data=st.lists(numbers, max_size=20), sep=space)
def test_flat_numbers_match_float_and_the_numpy_reader(data, sep):
    text = f"{sep},{sep}".join(data).encode()
    values = jsonscan.parse_number_text(text, "ttfts")
    assert np.array_equal(values.view(np.int64), _bits([float(x) for x in data]))
    slow = _fallback(jsonscan.parse_number_text, text, "ttfts")
    assert np.array_equal(slow.view(np.int64), values.view(np.int64))


def test_a_continued_piece_starts_with_a_comma():
    values, counts = fastscan.scan_rows(b" ,[1.5], [ ]", False)
    assert np.frombuffer(values).tolist() == [1.5]
    assert np.frombuffer(counts, np.int64).tolist() == [1, 0]
    assert fastscan.scan_rows(b"[1.5]", False) is None
    assert fastscan.scan_rows(b",[1.5]") is None


def test_long_numbers_fall_back_to_the_exact_numpy_reader():
    long = "0." + "1" * 70
    assert fastscan.scan_rows(f"[{long}]".encode()) is None
    values = jsonscan.parse_number_text(f"{long}, 2.5".encode(), "ttfts")
    assert values.tolist() == [float(long), 2.5]


BAD_NUMBERS = [
    b"1, null",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"1,, 2",
    b"1, 2,",
    b",1",
    b"1 2",
    b"01",
    b".5",
    b"5.",
    b"+5",
    b"0x10",
    b"1e",
    b"1e+",
    b"--1",
    b'"1"',
    b"true",
    b"1.5x",
    b"1" * 80,
]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_malformed_numbers_fall_back(bad):
    assert fastscan.scan_numbers(bad) is None
    assert fastscan.scan_rows(b"[" + bad + b"]") is None
    assert fastscan.scan_rows(b"[0], [" + bad + b"], []") is None


@pytest.mark.parametrize(
    "bad", [b"[[1]]", b"[1, [2]]", b"[1, 2", b"[1, 2]]", b"[1], [2],", b"[1] [2]", b"[1]; [2]"]
)
def test_malformed_rows_fall_back(bad):
    assert fastscan.scan_rows(bad) is None


def test_the_readers_name_the_row_as_before(tmp_path):
    doc = {"itls": [[0.5, 0.25], [1.0, math.inf]]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(jsonscan.TraceError) as err:
        jsonscan.load(str(path), ("itls",))
    assert err.value.record == "`itls[1]`" and err.value.code == "E306"


def test_big_arrays_read_through_pieces_agree(tmp_path, monkeypatch):
    rng = np.random.default_rng(7)
    rows = [np.round(rng.gamma(4, 0.005, int(n)), 6) for n in rng.integers(0, 400, 300)]
    text = ", ".join("[" + ", ".join(map(repr, r.tolist())) + "]" for r in rows)
    path = tmp_path / "r.json"
    path.write_text('{"itls": [' + text + '], "ttfts": [0.5, 1e-3]}')
    monkeypatch.setattr(jsonscan, "PIECE", 4096)  # many pieces, each continuing the last
    _, fast = jsonscan.load(str(path), ("itls", "ttfts"))
    _, slow = _fallback(jsonscan.load, str(path), ("itls", "ttfts"))
    for key in ("itls", "ttfts"):
        assert np.array_equal(fast[key].values.view(np.int64), slow[key].values.view(np.int64))
        assert np.array_equal(fast[key].counts, slow[key].counts)
    assert np.array_equal(fast["itls"].values, np.concatenate(rows))
    assert fast["itls"].counts.tolist() == [r.size for r in rows]
    assert fast["itls"].values.flags.writeable


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(1e-30, 1e30), nudge=st.integers(-2, 2), digits=st.integers(15, 19))
def test_numbers_next_to_a_rounding_tie_round_like_float(x, nudge, digits):
    with localcontext(prec=1000):
        tie = (Decimal(x) + Decimal(math.nextafter(x, math.inf))) / 2
    mantissa, _, exponent = f"{tie:.{digits - 1}e}".partition("e")
    text = f"{int(mantissa.replace('.', '')) + nudge}e{int(exponent) - digits + 1}"
    values, _ = fastscan.scan_rows(f"[{text}]".encode())
    assert np.frombuffer(values).view(np.int64)[0] == _bits([float(text)])[0], text
