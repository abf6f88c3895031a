"""Every load the readers know labels its point: in results.json, the SVG and figures.csv.

The files are the tools' own outputs: ../shared/oracle (vLLM at `--request-rate inf` and 4,
AIPerf, genai-bench, genai-perf, GuideLLM's throughput profile) and the conformance fixtures
(vLLM and SGLang at an infinite rate capped by `--max-concurrency`, GuideLLM concurrent,
inference-perf stages, MLPerf Server and Offline). GuideLLM's other profiles are the oracle file
with its strategy object rewritten as GuideLLM writes that profile's (derived, not measured).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from cmpc.analysis.load_labels import load_label
from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors
from cmpc.traces import load_runs

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO.parent / "shared" / "oracle"
LIVE = REPO / "conformance" / "fixtures"
VLLM_INF = "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json"
VLLM_4 = "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"
GUIDELLM = "guidellm/graz-vllm-benchmark__benchmarks.json"
GENAI_BENCH = (
    "genaibench-regression_main_branch__D100_100_text-to-text_num_concurrency_1_time_120s.json"
)

FILES = [
    (ORACLE / VLLM_INF, "all at once"),
    (ORACLE / VLLM_4, "4 req/s"),
    (ORACLE / GUIDELLM, "throughput"),
    (ORACLE / "aiperf/aiperf-examples-run1__profile_export_aiperf.json", "c100"),
    (ORACLE / "genai-perf/adaptive__simple_medium_response_c10.json", "c10"),
    (ORACLE / "genai-bench" / GENAI_BENCH, "c1"),
    (LIVE / "vllm/0.33.0/bench-serve-chat-c4/result.json", "c4"),
    (LIVE / "sglang/0.5.23/bench-serving-chat-c4/result.jsonl", "c4"),
    (LIVE / "guidellm/0.8.1/concurrent-c4/benchmarks.json", "c4"),
    (
        LIVE / "inference-perf/0.7.0/chat-stream-c4/stage_0_lifecycle_metrics.json",
        "30 req/s c4 (stage 0)",
    ),
    (LIVE / "mlperf/6.0.17/server-valid/mlperf_log_summary.txt", "Server 80 qps"),
    (LIVE / "mlperf/6.0.17/offline/mlperf_log_summary.txt", "Offline"),
]


@pytest.mark.parametrize(
    ("path", "label"), FILES, ids=[f"{p.parent.name}/{p.name}" for p, _ in FILES]
)
def test_each_reader_s_load_facts_give_a_label(path: Path, label: str) -> None:
    runs, _ = load_runs(str(path), gaps=False)
    assert [load_label(run.fields) for run in runs] == [label]


# GuideLLM's profiles as its strategies serialize them (guidellm.scheduler.strategies)
PROFILES = [
    ({"type_": "synchronous"}, "sync"),
    ({"type_": "constant", "rate": 2.5}, "2.5 req/s constant"),
    ({"type_": "poisson", "rate": 4.0, "random_seed": 42}, "4 req/s poisson"),
    ({"type_": "throughput", "max_concurrency": 64}, "throughput c64"),
]


@pytest.mark.parametrize(("strategy", "label"), PROFILES)
def test_guidellm_profiles_are_labelled(tmp_path: Path, strategy: dict, label: str) -> None:
    doc = json.loads((ORACLE / GUIDELLM).read_text())
    doc["benchmarks"][0]["args"]["strategy"] = strategy
    target = tmp_path / "benchmarks.json"
    target.write_text(json.dumps(doc))
    (run,), _ = load_runs(str(target), gaps=False)
    assert load_label(run.fields) == label


SPEC = """comparison "labels" {
  baseline rate
  latency { metric tpot; statistic median }
  system rate {
    accelerator "NVIDIA A100 SXM4 40GB" x 8
    runs "data/vllm/*.json" format vllm
  }
  system guide {
    accelerator "GPU" x 1
    runs "data/guidellm/*.json" format guidellm
  }
}
"""


def test_labels_reach_the_figure_results_and_figures_csv(tmp_path: Path) -> None:
    for name in (VLLM_INF, VLLM_4, GUIDELLM):
        (tmp_path / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ORACLE / name, tmp_path / "data" / name)
    spec = tmp_path / "labels.cmp"
    spec.write_text(SPEC)
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"))
    assert not has_errors(outcome.diagnostics), outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    loads = {n: sorted(p["load"] for p in s["points"]) for n, s in results["systems"].items()}
    assert loads == {"rate": ["4 req/s", "all at once"], "guide": ["throughput"]}
    svg = (tmp_path / "out" / "figures" / "frontier.svg").read_text()
    for label in ("4 req/s", "all at once", "throughput"):
        assert f">{label}</text>" in svg or f"load: {label}" in svg
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "figures.csv").read_text())))
    shown = sorted((r["system"], r["displayed"]) for r in rows if r["id"].endswith(".load"))
    assert shown == [("guide", "throughput"), ("rate", "4 req/s"), ("rate", "all at once")]
