"""The synthetic sample data are exactly what the seeded generator writes, and say so."""

from __future__ import annotations

import json
from pathlib import Path

from tests.loaded import script_module

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "specs" / "data" / "synthetic"


def test_committed_samples_are_the_generators_output(tmp_path):
    written = script_module(REPO / "scripts" / "make_sample_traces.py").write_all(tmp_path)
    committed = sorted(p.relative_to(DATA) for p in DATA.rglob("*.jsonl"))
    assert sorted(p.relative_to(tmp_path) for p in written) == committed
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (DATA / rel).read_bytes(), rel


def test_every_sample_file_is_labelled_synthetic():
    for path in DATA.rglob("*.jsonl"):
        header = json.loads(path.read_text().splitlines()[0])
        assert header["synthetic"] is True and header["fields"]["synthetic"] == "yes"
