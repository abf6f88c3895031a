"""A small spec over the MLPerf and llm-d fixtures builds with their own figures and GPUs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.outcome import Outcome

FIXTURES = Path(__file__).resolve().parents[1] / "conformance" / "fixtures"
MLPERF = FIXTURES / "mlperf" / "6.0.17"
LLMD = FIXTURES / "llmd-report" / "0.7.0" / "completions-stream-c4"
SPEC = """\
comparison "LoadGen Server runs vs an llm-d benchmark report (conformance fixtures)" {
  question "Do the MLPerf and llm-d readers carry their figures and GPU counts into a build?"
  baseline loadgen

  latency {
    metric ttft
    statistic median
  }

  tokens {
    count output
  }

  normalize per gpu

  system loadgen {
    label "dummy SUT under LoadGen"
    accelerator "synthetic" x 8
    runs "sub/results/box/**/mlperf_log_detail.txt" format mlperf
  }

  system llmd {
    label "mock server, BR v0.2.1"
    accelerator "synthetic" x 8
    runs "br/benchmark_report.yaml" format llmd-report
  }
}
"""
# a submitter's systems JSON (the fields MLCommons submissions hold), written for the test
SYSTEM = {
    "accelerator_model_name": "synthetic",
    "accelerators_per_node": "8",
    "number_of_nodes": "1",
}


def _tree(tmp_path: Path, case: str) -> Path:
    run = tmp_path / "sub" / "results" / "box" / "llm" / "Server" / "performance" / "run_1"
    run.mkdir(parents=True)
    shutil.copy(MLPERF / case / "mlperf_log_detail.txt", run)
    (tmp_path / "sub" / "systems").mkdir()
    (tmp_path / "sub" / "systems" / "box.json").write_text(json.dumps(SYSTEM))
    (tmp_path / "br").mkdir()
    shutil.copy(LLMD / "benchmark_report.yaml", tmp_path / "br")
    spec = tmp_path / "show.cmp"
    spec.write_text(SPEC)
    return spec


def _detail(case: str, key: str) -> float:
    for line in (MLPERF / case / "mlperf_log_detail.txt").read_text().splitlines():
        entry = json.loads(line.removeprefix(":::MLLOG "))
        if entry["key"] == key:
            return entry["value"]
    raise KeyError(key)


def test_both_formats_build_with_the_tools_figures_per_gpu(tmp_path):
    spec = _tree(tmp_path, "server-valid")
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=False)
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    loadgen, llmd = results["systems"]["loadgen"], results["systems"]["llmd"]
    # LoadGen's output tokens/s over the systems JSON's 8 accelerators
    tokens = _detail("server-valid", "result_completed_tokens_per_second")
    assert loadgen["at_target"]["throughput_per_gpu"] == pytest.approx(tokens / 8, rel=1e-12)
    ttft = _detail("server-valid", "result_first_token_50.00_percentile_latency_ns") * 1e-9
    assert loadgen["points"][0]["interactivity_tok_s_user"] == pytest.approx(1 / ttft, rel=1e-12)
    # the report's output token rate over its stack's 2 replicas x 4 accelerators
    partial = (LLMD / "benchmark_report.json").read_text()
    rate = json.loads(partial)["results"]["request_performance"]["aggregate"]["throughput"]
    expected = rate["output_token_rate"]["mean"] / 8
    assert llmd["at_target"]["throughput_per_gpu"] == pytest.approx(expected, rel=1e-12)
    conditions = results["load"]["systems"]["loadgen"]
    assert conditions == [
        "scenario Server, target_qps 80.0, ttft_constraint_ms 200.0, tpot_constraint_ms 20.0"
    ]
    assert "W322" not in {d.code for d in outcome.diagnostics}


def test_an_invalid_loadgen_result_is_flagged_in_the_build(tmp_path):
    spec = _tree(tmp_path, "server-invalid")
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=False)
    assert outcome.code == 0, outcome.diagnostics
    invalid = [d for d in outcome.diagnostics if d.code == "W322"]
    assert len(invalid) == 1 and "performance constraints" in invalid[0].message
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert any("W322" in json.dumps(w) for w in results["warnings"])


@pytest.mark.parametrize("change", ["appears", "edited"])
def test_a_systems_json_changed_after_a_cached_build_is_read_again(tmp_path, change):
    # the cache key holds the systems JSON's hash: an entry made without it (or with other
    # contents) is not served once it changes
    spec = _tree(tmp_path, "server-valid")
    box = tmp_path / "sub" / "systems" / "box.json"
    if change == "appears":
        box.unlink()
    else:
        box.write_text(json.dumps(dict(SYSTEM, accelerators_per_node="2")))

    def file_gpus(outcome: Outcome) -> list[str]:
        """The GPU counts W512 says the loadgen run's file holds (none: it agrees with 8)."""
        assert outcome.code == 0, outcome.diagnostics
        return [
            re.findall(r"counts (\d+)", d.message)[-1]
            for d in outcome.diagnostics
            if d.code == "W512" and "`loadgen`" in d.message
        ]

    cached = {"use_cache": True, "cache_dir": str(tmp_path / "cache")}
    first = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=False, **cached)
    assert file_gpus(first) == ([] if change == "appears" else ["2"])
    box.write_text(json.dumps(dict(SYSTEM, accelerators_per_node="4")))  # not the spec's 8
    second = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=False, **cached)
    assert any((tmp_path / "cache" / "entries").iterdir())  # the first build's entries
    assert file_gpus(second) == ["4"]
