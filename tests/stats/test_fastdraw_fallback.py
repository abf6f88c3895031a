"""A broken cmpc._fastdraw: the numpy code serves, whichever module imports it first."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np

from cmpc.compute import frontier_batch
from cmpc.ingest import resample
from cmpc.traces.table import Requests, Run

# a run, its replicates and a batch read, printed as bytes' hashes; `_fastdraw` fails to import
BROKEN = """
import hashlib, sys
import numpy as np

import importlib.abc, importlib.machinery

class Broken(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    # found, as a built extension is, but failing as it loads (an undefined symbol, say)
    def find_spec(self, name, path=None, target=None):
        if name == "cmpc._fastdraw":
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        raise ImportError("a broken build")

    def exec_module(self, module):
        raise ImportError("a broken build")

sys.meta_path.insert(0, Broken())
for name in sys.argv[1:]:
    __import__(name)
from cmpc.compute import frontier_batch
from cmpc.ingest import resample
from cmpc.traces.table import Requests, Run

rng = np.random.default_rng(3)
e2el = rng.lognormal(0, 0.6, 200)
req = Requests(ok=rng.random(200) > 0.05, ttft=rng.lognormal(-2, 0.5, 200), e2el=e2el,
               input_tokens=rng.integers(100, 2000, 200).astype(float),
               output_tokens=rng.integers(1, 400, 200).astype(float))
run = Run("r", "cmpc", 0, {"conc": 8}, requests=req, duration_s=float(e2el.sum()) / 8)
got = resample.replicates(run, [("ttft", "p99"), ("e2el", "mean")], resample.Settings(50, 9), "sha")
x = rng.uniform(10, 100, (30, 7)); y = rng.uniform(1, 1000, (30, 7))
reads = frontier_batch.read_batch(x, y, 50.0, "steffen")
print(hashlib.sha256(b"".join(got[k].tobytes() for k in sorted(got)) + reads.tobytes()).hexdigest())
"""


def _broken(*first: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", BROKEN, *first], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_broken_build_falls_back_to_numpy_in_either_import_order():
    # frontier_batch first put lazy.module's stand-in in sys.modules, and resample took it
    after_batch = _broken("cmpc.compute.frontier_batch", "cmpc.ingest.resample")
    after_resample = _broken("cmpc.ingest.resample", "cmpc.compute.frontier_batch")
    assert after_batch == after_resample
    assert len(after_batch) == 64


def test_the_broken_builds_figures_are_the_numpy_codes(monkeypatch):
    monkeypatch.setattr(resample, "_fastdraw", None)
    monkeypatch.setattr(frontier_batch, "_fastdraw", None)
    rng = np.random.default_rng(3)
    e2el = rng.lognormal(0, 0.6, 200)
    req = Requests(
        ok=rng.random(200) > 0.05,
        ttft=rng.lognormal(-2, 0.5, 200),
        e2el=e2el,
        input_tokens=rng.integers(100, 2000, 200).astype(float),
        output_tokens=rng.integers(1, 400, 200).astype(float),
    )
    run = Run("r", "cmpc", 0, {"conc": 8}, requests=req, duration_s=float(e2el.sum()) / 8)
    settings = resample.Settings(50, 9)
    got = resample.replicates(run, [("ttft", "p99"), ("e2el", "mean")], settings, "sha")
    assert got is not None
    x, y = rng.uniform(10, 100, (30, 7)), rng.uniform(1, 1000, (30, 7))
    reads = frontier_batch.read_batch(x, y, 50.0, "steffen")
    whole = b"".join(got[k].tobytes() for k in sorted(got)) + reads.tobytes()
    assert _broken("cmpc.compute.frontier_batch") == hashlib.sha256(whole).hexdigest()
