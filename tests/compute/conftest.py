"""Paths to the shared reference data the computation tests check against."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
INFERENCEX = SHARED / "reference-data" / "inferencex"


@pytest.fixture(scope="session")
def tpu_sweep() -> dict:
    return json.loads((INFERENCEX / "tpu-manual-sweep.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def kimi_whitepaper() -> dict:
    return json.loads((INFERENCEX / "mi355x-kimi-k3.json").read_text(encoding="utf-8"))
