"""`_fastdraw.b64_ascii`: base64's own text, for any buffer a packed row block can be."""

from __future__ import annotations

import base64

import numpy as np
import pytest

from cmpc.ingest import resample

_fastdraw = pytest.importorskip("cmpc._fastdraw")


@pytest.mark.parametrize("size", [*range(0, 40), 8040, 32160, 100_001])
def test_every_length_and_byte_is_base64s_text(size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    got = _fastdraw.b64_ascii(data)
    assert type(got) is str and got.isascii()
    assert got == base64.b64encode(data).decode("ascii")


def test_every_byte_value_in_every_place_of_a_group():
    data = bytes(range(256)) * 3 + bytes(range(255, -1, -1))
    for start in range(3):
        assert _fastdraw.b64_ascii(data[start:]) == base64.b64encode(data[start:]).decode()


def test_a_float32_block_is_read_as_its_bytes():
    block = np.random.default_rng(1).random((4, 2010)).astype("<f4")
    block[1, 7] = np.nan
    assert _fastdraw.b64_ascii(block) == base64.b64encode(block.tobytes()).decode()


@pytest.mark.parametrize("bad", ["text", 5, None, np.zeros((4, 6))[:, ::2]])
def test_what_is_not_a_contiguous_buffer_is_refused(bad):
    with pytest.raises((TypeError, ValueError, BufferError)):
        _fastdraw.b64_ascii(bad)


def test_pack_writes_base64s_text_with_or_without_the_c_module(monkeypatch):
    rows = [np.linspace(0.0, 1.0, 2010), None, np.full(2010, 3.25)]
    fast = resample.pack(rows, 2000)
    monkeypatch.setattr(resample, "_fastdraw", None)
    assert resample.pack(rows, 2000) == fast
    want = np.full((3, 2010), np.nan, dtype="<f4")
    want[0], want[2] = rows[0], rows[2]
    assert fast == base64.b64encode(want.tobytes()).decode("ascii")
