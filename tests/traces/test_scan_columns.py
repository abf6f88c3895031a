"""The C scanner writing straight into the output columns: the same doubles, rows and errors as
the general path, and the columns as they were when a piece does not scan."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cmpc.traces import jsonscan

fastscan = pytest.importorskip("cmpc._fastscan", reason="the C scanner is not built")

finite = st.floats(allow_nan=False, allow_infinity=False)
formats = st.sampled_from([repr, "{:.6f}".format, "{:.9f}".format, "{:.17e}".format, str])
numbers = st.one_of(
    st.builds(lambda f, x: f(x), formats, finite).filter(
        lambda x: len(x) < 64 and math.isfinite(float(x))
    ),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(0, 1).map(lambda x: repr(round(x, 6))),  # vLLM's gaps, rounded to 6 decimals
    st.floats(0, 100).map(repr),
    st.sampled_from(["0", "-0", "0.0", "-0.0", "12345678", "123456789", "0.1234567890123456789"]),
)
space = st.sampled_from(["", " ", "\n", " \t\r\n "])
# 48 bytes and more after each number send it down the C scanner's fast path; this tail
# guarantees them for every number of the rows before it
TAIL = ", [" + ", ".join(["0.015625"] * 8) + "]"


def _render(data: list[list[str]], sep: str) -> bytes:
    inner = [f"[{sep}" + f"{sep},{sep}".join(row) + f"{sep}]" for row in data]
    return (f"{sep},{sep}".join(inner) + (TAIL if inner else TAIL[2:])).encode()


def _bits(values) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


@settings(max_examples=400, deadline=None)
@given(data=st.lists(st.lists(numbers, max_size=8), max_size=6), sep=space)
@example(data=[["0.015789", "0.0149", "0.02677", "-0.5", "7", "0.0"]], sep="")
@example(data=[["12345678.5", "1.2345678901234567", "0.12345678901234567"]], sep=" ")
@example(data=[["9007199254740993", "0.30000000000000004", "1e-05", "5e-324"]], sep="")
def test_columns_hold_what_float_gives(data, sep):
    text = _render(data, sep)
    values, counts = bytearray(), bytearray()
    assert fastscan.scan_rows_into(text, True, values, counts) == sum(map(len, data)) + 8
    expected = [float(x) for row in data for x in row] + [0.015625] * 8
    assert np.frombuffer(values).view(np.int64).tolist() == _bits(expected)
    assert np.frombuffer(counts, np.int64).tolist() == [len(row) for row in data] + [8]


def test_a_continued_piece_is_appended_after_the_columns_so_far():
    values, counts = bytearray(), bytearray()
    assert fastscan.scan_rows_into(b"[1.5, 2]" + TAIL.encode(), True, values, counts) == 10
    assert fastscan.scan_rows_into(b", [ ], [0.25]", False, values, counts) == 1
    assert np.frombuffer(values).tolist() == [1.5, 2.0] + [0.015625] * 8 + [0.25]
    assert np.frombuffer(counts, np.int64).tolist() == [2, 8, 0, 1]


@pytest.mark.parametrize(
    "bad",
    [b"1, null", b"NaN", b"1e400", b"01", b".5", b"5.", b"1 2", b"1.5x", b"--1", b"1" * 80],
)
@pytest.mark.parametrize("tail", [b"", TAIL.encode()])
def test_a_piece_that_does_not_scan_leaves_the_columns_as_they_were(bad, tail):
    values, counts = bytearray(b"\0" * 8), bytearray(b"\1" + b"\0" * 7)
    assert fastscan.scan_rows_into(b"[0.5], [" + bad + b"]" + tail, True, values, counts) is None
    assert values == b"\0" * 8 and counts == b"\1" + b"\0" * 7


def test_columns_take_whole_values_only():
    with pytest.raises(ValueError):
        fastscan.scan_rows_into(b"[1]", True, bytearray(3), bytearray())


def _write(path, rows, **more) -> str:
    text = ", ".join("[" + ", ".join(map(repr, r.tolist())) + "]" for r in rows)
    rest = "".join(f', "{k}": {json.dumps(v)}' for k, v in more.items())
    path.write_text('{"itls": [' + text + "]" + rest + "}")
    return str(path)


def _loads(path: str, monkeypatch) -> dict[str, tuple[list[int], list[int]]]:
    """`itls` as the column path, the general C path and the numpy path read it."""
    out = {}
    _, columns = jsonscan.load(path, ("itls",))
    out["columns"] = columns["itls"]
    with monkeypatch.context() as m:
        m.setattr(jsonscan, "_scan_into_columns", lambda src, start: None)
        out["general"] = jsonscan.load(path, ("itls",))[1]["itls"]
        m.setattr(jsonscan, "_fastscan", None)
        out["numpy"] = jsonscan.load(path, ("itls",))[1]["itls"]
    return {k: (_bits(v.values), v.counts.tolist()) for k, v in out.items()}


@pytest.mark.parametrize("piece", [64, 4096, 1 << 22])
def test_the_column_path_reads_what_the_general_paths_read(tmp_path, monkeypatch, piece):
    rng = np.random.default_rng(19)
    rows = [np.round(rng.gamma(4, 0.005, int(n)), 6) for n in rng.integers(0, 300, 200)]
    rows[3] = np.array([])
    rows[7] = -rows[7]
    path = _write(tmp_path / "r.json", rows, ttfts=[0.5] * len(rows))
    monkeypatch.setattr(jsonscan, "PIECE", piece)  # rows longer than a piece: the general path
    taken = []
    scan = jsonscan._scan_into_columns
    monkeypatch.setattr(
        jsonscan, "_scan_into_columns", lambda src, start: taken.append(1) or scan(src, start)
    )
    read = _loads(path, monkeypatch)
    assert taken
    assert read["columns"] == read["general"] == read["numpy"]
    assert read["columns"] == (_bits(np.concatenate(rows)), [r.size for r in rows])


def test_the_columns_are_writable_arrays(tmp_path):
    path = _write(tmp_path / "r.json", [np.array([0.5, 0.25]), np.array([1.0])])
    _, columns = jsonscan.load(path, ("itls",))
    gaps = columns["itls"]
    assert gaps.values.flags.writeable and gaps.values.dtype == np.float64
    assert gaps.counts.dtype == np.int64 and gaps.counts.tolist() == [2, 1]
    gaps.values.partition(1)  # `cmpc stats` partitions the pooled gaps in place


@pytest.mark.parametrize(
    "text, record, code",
    [
        ('{"itls": [[0.5, 0.25], [1.0, NaN]]}', "`itls[1]`", "E306"),
        ('{"itls": [[0.5, 0.25], [1.0, "x"]]}', None, None),  # a string: plain json reads it
        ('{"itls": [[0.5], [1.0 2.0]]}', "`itls[1]`", "E305"),
    ],
)
def test_errors_name_the_row_as_the_general_path_does(tmp_path, monkeypatch, text, record, code):
    path = tmp_path / "bad.json"
    path.write_text(text)
    outcomes = []
    for general in (False, True):
        with monkeypatch.context() as m:
            if general:
                m.setattr(jsonscan, "_scan_into_columns", lambda src, start: None)
            try:
                doc, arrays = jsonscan.load(str(path), ("itls",))
                outcomes.append(("read", json.dumps(doc), sorted(arrays)))
            except jsonscan.TraceError as exc:
                outcomes.append(("error", str(exc), exc.record, exc.code))
    assert outcomes[0] == outcomes[1]
    if code is not None:
        assert outcomes[0][2:] == (record, code)


def test_a_piece_ending_just_past_the_array_is_read_at_any_piece_size(tmp_path, monkeypatch):
    # before: a piece that ended between the array's `],` and the next key's quote (or a row
    # longer than a piece that ran into that `],`) was cut after the array's own bracket, and
    # a valid file failed with E305 or not depending on where the pieces fell
    rows = [[0.5, 0.25, 0.125], [], [1.0], [0.015625] * 12, [2.5, 3.5]]
    doc = {"itls": rows, "ttfts": [0.5] * len(rows)}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc))
    for piece in range(8, 160):
        monkeypatch.setattr(jsonscan, "PIECE", piece)
        read = _loads(str(path), monkeypatch)
        flat = [x for row in rows for x in row]
        assert read["columns"] == read["general"] == read["numpy"], piece
        assert read["columns"] == (_bits(flat), [len(r) for r in rows]), piece
