"""The block-wise file scanner finds exactly what the same search over the whole bytes finds."""

from __future__ import annotations

import re
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

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
