"""A build that must succeed, read back: shared by the interval and fleet tests."""

from __future__ import annotations

import json
from pathlib import Path

from cmpc.build.pipeline import build_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"


def build(spec: Path, out: Path, *sets: str) -> tuple[dict, str, list]:
    """results.json, report.md and the diagnostics of a build that must succeed."""
    outcome = build_spec(str(spec), out_dir=str(out), sets=list(sets))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    return results, (out / "report.md").read_text(), list(outcome.diagnostics)
