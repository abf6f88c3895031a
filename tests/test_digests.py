"""cmpc.digests: the interpreter's own SHA-256 and BLAKE2b give hashlib's digests."""

from __future__ import annotations

import hashlib
import random

import pytest

from cmpc import digests

SIZES = [0, 1, 55, 56, 63, 64, 65, 1000, 1 << 16, 230_000]


@pytest.mark.parametrize("size", SIZES)
def test_sha256_is_hashlibs(size):
    data = random.Random(size).randbytes(size)
    assert digests.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    stepwise = digests.sha256()
    for i in range(0, size, 777):
        stepwise.update(data[i : i + 777])
    assert stepwise.hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("size", SIZES)
def test_the_checksum_is_a_256_bit_blake2b(size):
    data = random.Random(size).randbytes(size)
    assert digests.checksum(data) == hashlib.blake2b(data, digest_size=32).hexdigest()
    assert len(digests.checksum(data)) == 64
