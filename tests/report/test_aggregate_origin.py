"""The report says whether cmpc computed a system's statistics from per-request data or took
the tool's own aggregates. Real files: the InferenceX TPU v7 rows of
../shared/reference-data/inferencex/tpu-manual-sweep.json (aggregate rows; the TP8 frontier
gives 2,600.2 tok/s/GPU at 50 tok/s/user with the Steffen spline, reference/inferencex.md
section 4.4) and the vLLM 0.8.3 result files of specs/data/llama70b (per-request arrays)."""

from __future__ import annotations

import json
import shutil

from cmpc.build.pipeline import build_spec
from tests.conftest import SHARED

SPEC = """comparison "Qwen3.5-397B on TPU v7: TP8 vs TP1" {
  baseline tp8
  latency { metric tpot; statistic median; target 50 tok/s/user; read steffen }
  tokens { count input + output; reused included }
  normalize per gpu
  system tp8 {
    accelerator "Google TPU v7" x 8
    parallel tp 8
    cache_hit_rate unknown
    runs "rows/*.json" format inferencex where tp 8
  }
  system tp1 {
    accelerator "Google TPU v7" x 1
    parallel tp 1
    cache_hit_rate unknown
    runs "rows/*.json" format inferencex where tp 1
  }
}
"""


def test_inferencex_rows_are_the_tools_aggregates(tmp_path):
    (tmp_path / "rows").mkdir()
    shutil.copy(
        SHARED / "reference-data" / "inferencex" / "tpu-manual-sweep.json", tmp_path / "rows"
    )
    (tmp_path / "tpu.cmp").write_text(SPEC)
    outcome = build_spec(str(tmp_path / "tpu.cmp"), out_dir=str(tmp_path / "out"))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    tp8 = results["systems"]["tp8"]
    assert round(tp8["at_target"]["throughput_per_gpu"], 1) == 2600.2
    assert tp8["per_request"] == "none" and results["systems"]["tp1"]["per_request"] == "none"
    report = (tmp_path / "out" / "report.md").read_text()
    assert "per-request metrics computed by cmpc" not in report
    assert (
        "format inferencex; the tool's own aggregate figures (the files hold no per-request"
        in report
    )
    assert (
        "Runs without per-request data (tp8, tp1) give the statistic their tool published" in report
    )
    assert "| GPUs (the per-GPU denominator) | 8 (tp 8) | 1 (tp 1) |" in report


def test_vllm_arrays_are_computed_by_cmpc(in_repo, tmp_path):
    out = tmp_path / "out"
    outcome = build_spec("specs/llama70b-a100-tp8-vs-tp4pp2.cmp", out_dir=str(out))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    assert {s["per_request"] for s in results["systems"].values()} == {"all"}
    report = (out / "report.md").read_text()
    assert "format vllm; per-request metrics computed by cmpc" in report
    assert "Runs without per-request data" not in report


def test_the_per_token_definition_is_tpots_under_a_ttft_target(in_repo, tmp_path):
    """`tpot_definition` asks how the per-token latency is defined; a TTFT target does not make
    TTFT's definition the answer."""
    out = tmp_path / "out"
    sets = ["latency.metric=ttft", "latency.target=2 s"]
    outcome = build_spec("specs/llama70b-a100-tp8-vs-tp4pp2.cmp", out_dir=str(out), sets=sets)
    assert outcome.code == 0, outcome.diagnostics
    row = next(
        line for line in (out / "report.md").read_text().splitlines() if "`tpot_definition`" in line
    )
    assert "(end-to-end latency − TTFT) / (output tokens − 1)" in row
    assert "receiving its first token" not in row
