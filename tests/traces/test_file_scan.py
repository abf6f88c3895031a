"""The block-wise file scanner finds exactly what the same search over the whole bytes finds."""

from __future__ import annotations

import os
import re
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.traces import readpass
from cmpc.traces.jsonscan import _Bytes, _File

KEY = re.compile(rb'"k"\s*:\s*\[')


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"]", b'"', b'"k"', b":", b" ", b"[", b"x" * 7]), max_size=60),
    st.integers(1, 24),
    st.data(),
)
def test_block_search_equals_whole_search(parts, scan, data):
    text = b"".join(parts)
    with tempfile.NamedTemporaryFile() as tmp:
        tmp.write(text)
        tmp.flush()
        with open(tmp.name, "rb") as handle:
            blocks = _File(handle)
            blocks.SCAN, blocks.OVERLAP = scan, 8  # tiny blocks: every boundary case
            whole = _Bytes(text)
            sub = data.draw(st.sampled_from([b"]", b'"', b"]]", b'"k"']))
            lo = data.draw(st.integers(0, len(text)))
            hi = data.draw(st.integers(lo, len(text) + 3))
            assert blocks.find(sub, lo, hi) == whole.find(sub, lo, hi)
            assert blocks.rfind(sub, lo, hi) == whole.rfind(sub, lo, hi)
            assert blocks.search(KEY, lo) == whole.search(KEY, lo)
            # reads that start inside the block kept from the last search
            assert blocks.read(lo, hi) == whole.read(lo, hi)
            assert blocks.read(max(0, lo - 3), lo + 5) == whole.read(max(0, lo - 3), lo + 5)


def _held_handle(text: bytes):
    """The same bytes as a file read ahead into memory (readpass.Held) opens them."""
    held = readpass.Held(text, "", os.stat(__file__), 0.0)
    with readpass.hashing("doc", held):
        return readpass.open_input("doc")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([b"a", b"]", b'"', b'"k"', b":", b" ", b"[", b"x" * 7]), max_size=60),
    st.integers(1, 24),
    st.lists(
        st.tuples(
            st.sampled_from(["find", "rfind", "search", "read"]),
            st.sampled_from([b"]", b'"', b"]]", b'"k"']),
            st.integers(0, 500),
            st.integers(0, 40),
        ),
        max_size=12,
    ),
    st.booleans(),
)
def test_any_sequence_of_searches_equals_the_whole_search(parts, scan, calls, held):
    """Searches inside the block the last one kept look there in place: a sequence of them,
    each starting anywhere, finds what the whole bytes give, from a file or from memory."""
    text = b"".join(parts)
    with tempfile.NamedTemporaryFile() as tmp:
        tmp.write(text)
        tmp.flush()
        with _held_handle(text) if held else open(tmp.name, "rb") as handle:
            blocks = _File(handle)
            blocks.SCAN, blocks.OVERLAP = scan, 8
            whole = _Bytes(text)
            for name, sub, lo, width in calls:
                lo = lo % (len(text) + 1)
                hi = lo + width
                if name == "search":
                    assert blocks.search(KEY, lo) == whole.search(KEY, lo)
                elif name == "read":
                    assert blocks.read(lo, hi) == whole.read(lo, hi)
                else:
                    assert getattr(blocks, name)(sub, lo, hi) == getattr(whole, name)(sub, lo, hi)


def test_a_search_inside_the_kept_block_reads_and_moves_nothing(tmp_path, monkeypatch):
    """The array end sought after its key is in the block the key search read: found there,
    with no second read and no megabyte moved to the buffer's front."""
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"k": [' + b"1, " * 50_000 + b'2], "z": 0}')
    with open(path, "rb") as handle:
        blocks = _File(handle)
        start = blocks.search(KEY)[1] - 1
        fills = []
        real = blocks._fill
        monkeypatch.setattr(blocks, "_fill", lambda *a, **k: fills.append(a) or real(*a, **k))
        quote = blocks.find(b'"', start, blocks.size)
        assert quote == path.read_bytes().find(b'"', start)
        assert blocks.rfind(b"]", start, quote) == path.read_bytes().rfind(b"]", start, quote)
        assert fills == []


def test_a_small_files_buffer_is_the_files_size_not_a_zeroed_megabyte(tmp_path):
    # a sweep's low-concurrency runs are a few kB: a 1 MiB bytearray each was zeroed for them
    data = b'{"ttfts": [0.1, 0.2], "itls": [[1, 2], [3]], "duration": 1}'
    path = tmp_path / "small.json"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        blocks = _File(handle)
        assert blocks.find(b'"itls"', 0, blocks.size) == data.find(b'"itls"')
        assert blocks.rfind(b"]", 0, blocks.size) == data.rfind(b"]")
        assert blocks.read(3, 40) == data[3:40]
        assert blocks._buffer is not None and len(blocks._buffer) == len(data)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (_File.SCAN * 2) + data)
    with open(big, "rb") as handle:
        blocks = _File(handle)
        assert blocks.find(b'"itls"', 0, blocks.size) == _File.SCAN * 2 + data.find(b'"itls"')
        assert blocks._buffer is not None and len(blocks._buffer) == _File.SCAN + _File.OVERLAP
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with open(empty, "rb") as handle:
        assert _File(handle).find(b"x", 0, 10) == -1
