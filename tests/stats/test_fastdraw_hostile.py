"""cmpc._fastdraw under hostile arguments: errors, never crashes (the reviewer's experiments)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cmpc import _fastdraw

STATE = (0, 1, 0, 1, False, 0)

# /tmp/rev8a/exp/uaf.py: an item's __bool__ empties the caller's list while C reads it
CLEARED_WHILE_READ = """
import faulthandler
import numpy as np
from cmpc import _fastdraw as f
faulthandler.enable()
S = (0, 1, 0, 1, False, 0)
one = np.ones((1, 5)); sums = np.zeros((3, 1))
metrics = []
class Evil:
    def __bool__(self):
        metrics.clear()
        for _ in range(1000): [object() for _ in range(10)]
        return False
good = lambda: (False, np.arange(5), np.array([.5]), np.ones(5), np.zeros((1, 3)))
first = (Evil(), np.arange(5), np.array([.5]), np.ones(5), np.zeros((1, 3)))
metrics[:] = [first] + [good() for _ in range(50)]
print(f.bootstrap_pcg64(S, 5, 3, one, sums, metrics))
print("survived")
"""


def test_a_metric_list_emptied_while_read_is_no_crash():
    done = subprocess.run(
        [sys.executable, "-c", CLEARED_WHILE_READ], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("survived\n")


def test_a_metric_that_is_not_a_tuple_is_a_type_error():
    metric = [False, np.arange(5), np.array([0.5]), np.ones(5), np.zeros((1, 3))]
    with pytest.raises(TypeError, match="tuple"):
        _fastdraw.bootstrap_pcg64(STATE, 5, 3, np.ones((1, 5)), np.zeros((3, 1)), [metric])
