"""Replicate frontier reads remembered by what they are computed from, so equal reads run once.

A build reads each system's bootstrap replicates at the target once for its figures and again
for every sensitivity alternative; alternatives of price or utilization change none of the
inputs of those reads, so each is computed once per process and copied out after.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from cmpc import lazy

if TYPE_CHECKING:
    import hashlib
else:  # OpenSSL (3 ms to load): only a read computed from the replicates is hashed
    hashlib = lazy.module("hashlib")

LIMIT = 64  # reads kept per process (a read is one float per replicate: 2000 -> 16 kB)
_READS: OrderedDict[str, np.ndarray] = OrderedDict()


def read_key(conditions: str, *arrays: np.ndarray) -> str:
    """A digest of the read's conditions (a repr of the IR it reads) and its inputs' values."""
    digest = hashlib.sha256(conditions.encode())
    for array in arrays:
        values = np.ascontiguousarray(array, dtype=np.float64)
        digest.update(repr(values.shape).encode())
        digest.update(values.tobytes())
    return digest.hexdigest()


def remembered(key: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """`compute()`, or a copy of what it returned for the same key earlier in this process."""
    found = _READS.get(key)
    if found is None:
        found = np.array(compute(), dtype=np.float64)
        _READS[key] = found
        while len(_READS) > LIMIT:
            _READS.popitem(last=False)
    else:
        _READS.move_to_end(key)
    return found.copy()


def forget() -> None:
    """Drop every remembered read (tests)."""
    _READS.clear()
