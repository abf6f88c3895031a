"""A C scanner built from older source (an editable install not rebuilt) is set aside, not used."""

from __future__ import annotations

import subprocess
import sys

STALE = """
import sys, types
stale = types.ModuleType("cmpc._fastscan")
stale.scan_numbers = stale.scan_rows = lambda *a: None  # an older build: no scan_rows_into
sys.modules["cmpc._fastscan"] = stale
from cmpc import metrics
from cmpc.traces import jsonscan
print(jsonscan._fastscan is None, metrics._fastscan is None)
"""


def test_a_stale_scanner_leaves_the_numpy_path_serving():
    out = subprocess.run([sys.executable, "-c", STALE], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
