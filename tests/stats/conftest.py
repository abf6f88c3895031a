"""The synthetic sweep, copied for tests that change it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .builds import SPECS


@pytest.fixture
def sweep_copy(tmp_path: Path) -> Path:
    """The synthetic sweep's spec and runs, copied so a test may change them."""
    shutil.copytree(SPECS / "data" / "synthetic", tmp_path / "data" / "synthetic")
    spec = tmp_path / "sweep.cmp"
    shutil.copy(SPECS / "synthetic-sweep.cmp", spec)
    return spec
