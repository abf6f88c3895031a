"""The synthetic sample data are exactly what the seeded generator writes, and say so."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "specs" / "data" / "synthetic"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_sample_traces", REPO / "scripts" / "make_sample_traces.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def test_committed_samples_are_the_generators_output(tmp_path):
    written = _generator().write_all(tmp_path)
    committed = sorted(p.relative_to(DATA) for p in DATA.rglob("*.jsonl"))
    assert sorted(p.relative_to(tmp_path) for p in written) == committed
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (DATA / rel).read_bytes(), rel


def test_every_sample_file_is_labelled_synthetic():
    for path in DATA.rglob("*.jsonl"):
        header = json.loads(path.read_text().splitlines()[0])
        assert header["synthetic"] is True and header["fields"]["synthetic"] == "yes"
