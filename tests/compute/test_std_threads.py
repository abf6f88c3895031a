"""A long column's standard deviation has the same bits whatever the machine's thread count."""

from __future__ import annotations

import os
import subprocess
import sys

STD = """
import numpy as np
from cmpc.metrics import describe
x = np.random.default_rng(7).lognormal(2.0, 0.6, 3_000_000)
print(repr(describe(x, ["50"]).std))
"""


def _std(threads: str) -> str:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads}
    out = subprocess.run([sys.executable, "-c", STD], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_std_does_not_follow_the_thread_count():
    assert _std("1") == _std("2") == _std("4")
