"""Inputs the type checker showed could reach a None where a number was assumed: each builds (or
summarizes) to an honest "unknown" instead of an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cmpc.build.pipeline import build_spec
from cmpc.metrics import summarize
from cmpc.traces.table import Requests, Run

# `a` reports its sweep in tok/s of the whole system but declares no GPU count.
REPORTED_WITHOUT_GPUS = """
comparison "points without a GPU count" {
  baseline b
  source s { title "S"; role third_party }
  latency { metric tpot; statistic median; target 50 tok/s/user }
  tokens { count output }
  system a {
    cache_hit_rate unknown
    reported { source s; point 40 tok/s/user 6000 tok/s; point 60 tok/s/user 4000 tok/s }
  }
  system b {
    accelerator "X" x 8
    cache_hit_rate unknown
    reported { source s; point 40 tok/s/user 6000 tok/s/gpu; point 60 tok/s/user 4000 tok/s/gpu }
  }
}
"""


def test_reported_points_that_cannot_be_per_gpu_are_unknown_not_a_crash(tmp_path: Path):
    spec = tmp_path / "rep.cmp"
    spec.write_text(REPORTED_WITHOUT_GPUS)
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=False)
    assert outcome.code == 0, outcome.diagnostics
    a = json.loads((tmp_path / "out" / "results.json").read_text())["systems"]["a"]
    assert a["points"] == [] and a["at_target"]["throughput_per_gpu"] is None
    assert a["at_target"]["reachable"] is None  # unknown: not "outside the frontier" (W411)
    assert "W411" not in {d.code for d in outcome.diagnostics}
    assert any("GPU count" in note for note in a["notes"])


def test_a_tpot_slo_on_runs_without_ttft_is_unknown_goodput():
    requests = Requests(
        ok=np.ones(3, dtype=bool),
        e2el=np.array([1.0, 2.0, 3.0]),
        output_tokens=np.array([10.0, 20.0, 30.0]),
    )
    run = Run("r.json", "llmperf", 0, {}, requests=requests, duration_s=10.0)
    metrics = summarize(run, slos={"tpot": 0.05})
    assert metrics.goodput is None and metrics.slo_attainment is None
