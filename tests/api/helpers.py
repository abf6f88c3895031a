"""Shared by the API tests: the synthetic sweep spec copied into a folder of the test's own."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.loaded import script_module

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "synthetic-sweep.cmp"
ORACLE = REPO.parent / "shared" / "oracle"


def sweep_copy(where: Path) -> Path:
    """specs/synthetic-sweep.cmp and its data (SYNTHETIC: scripts/make_sample_traces.py, seeded)."""
    folder = where / "specs"
    shutil.copytree(REPO / "specs" / "data" / "synthetic", folder / "data" / "synthetic")
    shutil.copy(SPEC, folder / SPEC.name)
    return folder / SPEC.name


def cli_build(spec: Path, out: Path, *extra: str) -> int:
    from cmpc.cli import main

    return main(["build", str(spec), "-o", str(out), "--no-cache", "--quiet", *extra])


def repetitions_copy(where: Path, seeds: tuple[int, ...] = (1, 2, 3)) -> Path:
    """The synthetic sweep run once per seed (SYNTHETIC, seeded: scripts/make_sample_traces.py):
    every concurrency repeated `len(seeds)` times, in `data/rep-SEED/`."""
    folder = where / "specs"
    make = script_module(REPO / "scripts" / "make_sample_traces.py")
    for seed in seeds:
        make.write_all(folder / "data" / f"rep-{seed}", seed)
    text = SPEC.read_text(encoding="utf-8")
    text = text.replace('"data/synthetic/alpha/', '"data/rep-*/alpha/')
    text = text.replace('"data/synthetic/beta/', '"data/rep-*/beta/')
    (folder / SPEC.name).write_text(text, encoding="utf-8")
    return folder / SPEC.name
