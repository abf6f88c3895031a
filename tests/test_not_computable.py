"""Runs with latencies but no countable tokens: "not computable" (W416), never "cannot reach".

Real files: the vLLM 0.8.3 results of specs/data/llama70b, which state no prefix-cached token
counts (TP8's median TPOT is 27.3 ms, 36.6 tok/s/user), and the GenAI-Perf export of
../shared/oracle/genai-perf, whose 26 requests carry latencies (P90 TTFT 18,477 ms) and no
token counts."""

from __future__ import annotations

import json
import shutil

from cmpc.build.pipeline import build_spec
from tests.conftest import SHARED

LLAMA = "specs/llama70b-a100-tp8-vs-tp4pp2.cmp"
TARGET = "latency.target=20 tok/s/user"  # easier than every TP8 run: met, a lower bound


def _build(tmp_path, *sets: str):
    outcome = build_spec(LLAMA, out_dir=str(tmp_path / "out"), sets=list(sets))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    codes = [d.code for d in outcome.diagnostics]
    return results, codes, (tmp_path / "out" / "report.md").read_text()


def test_an_unknown_cache_split_is_not_computable_never_unreachable(in_repo, tmp_path):
    results, codes, report = _build(tmp_path, TARGET, "tokens.reused=excluded")
    assert codes.count("W416") == 2 and "W411" not in codes
    tp8 = results["systems"]["tp8"]
    assert tp8["at_target"]["reachable"] is None
    assert tp8["at_target"]["throughput_per_gpu"] is None
    assert tp8["notes"] and "not computable" in tp8["notes"][0]
    assert "does not reach the target" not in report
    assert "no run has a finite latency" not in report


def test_a_declared_hit_rate_gives_the_read_back(in_repo, tmp_path):
    sets = (TARGET, "tokens.reused=excluded", "system.tp8.cache_hit_rate=0%")
    results, codes, _ = _build(tmp_path, *sets)
    assert codes.count("W416") == 1  # tp4pp2 still states none
    at = results["systems"]["tp8"]["at_target"]
    # 0% cached: every input token is uncached, so the count is the whole input + output
    assert at["reachable"] is True and at["bound"] == "lower"
    included, _, _ = _build(tmp_path / "inc", TARGET)
    assert at["throughput_per_gpu"] == included["systems"]["tp8"]["at_target"]["throughput_per_gpu"]


GENAI_PERF = """comparison "GenAI-Perf c10" {
  baseline a
  latency { metric ttft; statistic p90; target 30 s }
  tokens { count input + output; reused included }
  normalize per gpu
  system a { accelerator "X" x 1; cache_hit_rate unknown; runs "runs/*c10.json" }
  system b { accelerator "X" x 1; cache_hit_rate unknown; runs "runs/*c10.json" }
}
"""


def test_runs_without_token_counts_are_not_computable(tmp_path):
    (tmp_path / "runs").mkdir()
    name = "adaptive__simple_medium_response_c10.json"
    shutil.copy(SHARED / "oracle" / "genai-perf" / name, tmp_path / "runs")
    (tmp_path / "gp.cmp").write_text(GENAI_PERF)
    outcome = build_spec(str(tmp_path / "gp.cmp"), out_dir=str(tmp_path / "out"))
    assert outcome.code == 0, outcome.diagnostics
    w416 = [d.message for d in outcome.diagnostics if d.code == "W416"]
    assert w416 == [
        f"`{s}`: no throughput is computable: its run files state no input and output token "
        "counts, so no token throughput"
        for s in ("a", "b")
    ]
    assert "W411" not in {d.code for d in outcome.diagnostics}  # P90 TTFT 18.5 s meets 30 s
    report = (tmp_path / "out" / "report.md").read_text()
    assert "no run has a finite latency" not in report
    assert "throughput not computable: the run files state no token counts" in report
