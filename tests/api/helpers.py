"""Shared by the API tests: the synthetic sweep spec copied into a folder of the test's own."""

from __future__ import annotations

import shutil
from pathlib import Path

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
