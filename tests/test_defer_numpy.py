"""numpy deferred on `cmpc build`: loaded at its first use, never by a build that computes none."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.loaded import modules_loaded

REPO = Path(__file__).resolve().parents[1]


def _numpy_loaded(spec: Path, out: Path, *args: str) -> bool:
    """Whether `cmpc build` in a fresh interpreter loaded numpy itself (not its stand-in)."""
    args = ("build", str(spec), "-o", str(out), "--quiet", *args)
    code, modules = modules_loaded(*args, cwd=spec.parent)
    assert code == 0
    return "numpy" in modules


def _same_outputs(a: Path, b: Path) -> None:
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_build_of_reported_figures_never_loads_numpy(tmp_path, monkeypatch):
    from cmpc.build.pipeline import build_spec

    monkeypatch.chdir(tmp_path)  # as the child runs: reports name the spec from here

    spec = tmp_path / "spec.cmp"
    shutil.copy(REPO / "specs" / "mi355x-vs-b300.cmp", spec)
    price = "system.b300.price=2.40 USD/gpu/h"
    assert not _numpy_loaded(spec, tmp_path / "lazy", "--set", price)
    eager = build_spec(str(spec), out_dir=str(tmp_path / "eager"), sets=[price])  # numpy loaded
    assert eager.code == 0, eager.diagnostics
    _same_outputs(tmp_path / "lazy", tmp_path / "eager")


def test_a_build_that_reads_runs_loads_numpy_at_first_use(sweep_copy, tmp_path, monkeypatch):
    from cmpc.build.pipeline import build_spec

    monkeypatch.chdir(tmp_path)
    spec = sweep_copy
    assert _numpy_loaded(spec, tmp_path / "lazy", "--no-cache")
    eager = build_spec(str(spec), out_dir=str(tmp_path / "eager"))
    assert eager.code == 0, eager.diagnostics
    _same_outputs(tmp_path / "lazy", tmp_path / "eager")


def test_a_deferred_package_imports_its_submodules_and_loads_once():
    probe = """
import sys
from cmpc import lazy
stand_in = lazy.module("numpy")
assert sys.modules["numpy"] is stand_in and not lazy.loaded("numpy")
import numpy as np
from numpy.typing import NDArray  # a submodule: loads the package first, no circular import
assert lazy.loaded("numpy") and np.ndarray is sys.modules["numpy"].ndarray
assert lazy.module("numpy") is sys.modules["numpy"]  # imported: the module itself
print(int(np.arange(4).sum()))
"""
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "6"
