"""cmpc reproduces each tool's own summary, written in the same file, figure by figure."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from cmpc.verbs.stats import run_stats

ORACLE = Path(__file__).resolve().parents[2].parent / "shared" / "oracle"
EXACT = 1e-9
VLLM_TPOT = 1e-6  # e2el rebuilt as ttft + sum(itl): achieved <= 8.8e-7 (docs/traces.md)


def _oracle(rel: str) -> Path:
    """An oracle file; missing means a broken checkout, not a test to skip."""
    path = ORACLE / rel
    assert path.exists(), f"{path} is missing: the repo needs ../shared beside it (docs/ci.md)"
    return path


@cache
def cmpc_json(rel: str, percentiles: tuple[str, ...], method: str = "linear") -> dict:
    outcome = run_stats(
        [str(_oracle(rel))], percentiles=list(percentiles), method=method, as_json=True
    )
    assert outcome.code == 0, outcome.diagnostics
    return json.loads(outcome.stdout)


def _load(rel: str):
    path = _oracle(rel)
    if rel.endswith(".jsonl"):
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return json.loads(path.read_text())


def _get(doc: dict, dotted: str):
    for part in dotted.split("|"):
        doc = doc[part]
    return doc


# ---------------------------------------------------------------------------------------------
# vLLM 0.8.3 benchmark_serving.py: the summary sits beside the arrays in the same file.

VLLM_FILES = [
    "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json",
    "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json",
]
VLLM_FIGURES = {
    "completed": ("requests|succeeded", EXACT),
    "total_input_tokens": ("tokens|input", EXACT),
    "total_output_tokens": ("tokens|output", EXACT),
    "duration": ("duration_s", EXACT),
    "request_throughput": ("throughput|requests_per_s", EXACT),
    "output_throughput": ("throughput|output_tokens_per_s", EXACT),
    "total_token_throughput": ("throughput|total_tokens_per_s", EXACT),
}
for _metric, _cmpc, _rtol in (
    ("ttft", "ttft_ms", EXACT),
    ("itl", "chunk_gap_ms", EXACT),
    ("tpot", "tpot_ms", VLLM_TPOT),
):
    for _stat in ("mean", "median", "std", "p99"):
        VLLM_FIGURES[f"{_stat}_{_metric}_ms"] = (f"metrics|{_cmpc}|{_stat}", _rtol)


@pytest.mark.parametrize("rel", VLLM_FILES)
@pytest.mark.parametrize("key", sorted(VLLM_FIGURES))
def test_vllm(rel, key):
    tool = _load(rel)
    path, rtol = VLLM_FIGURES[key]
    got = _get(cmpc_json(rel, ("99",)), path)
    np.testing.assert_allclose(got, tool[key], rtol=rtol)


# ---------------------------------------------------------------------------------------------
# AIPerf 0.1.1: profile_export.jsonl against profile_export_aiperf.json of the same run.

AIPERF_JSONL = "aiperf/aiperf-examples-run1__profile_export.jsonl"
AIPERF_SUMMARY = "aiperf/aiperf-examples-run1__profile_export_aiperf.json"
AIPERF_PCTS = ("1", "5", "25", "50", "75", "90", "95", "99")
AIPERF_CANONICAL = {
    "ttft": "metrics|ttft_ms",
    "request_latency": "metrics|e2el_ms",
    "inter_token_latency": "metrics|tpot_ms",
    "inter_chunk_latency": "metrics|chunk_gap_ms",
}
AIPERF_TOOL = (
    "ttst",
    "output_token_throughput_per_user",
    "input_sequence_length",
    "output_sequence_length",
    "output_token_count",
    "reasoning_token_count",
)
AIPERF_STATS = {"avg": "mean", "std": "std", "min": "min", "max": "max", "count": "n"} | {
    f"p{p}": f"p{p}" for p in AIPERF_PCTS
}
AIPERF_CASES = [(tag, stat) for tag in (*AIPERF_CANONICAL, *AIPERF_TOOL) for stat in AIPERF_STATS]
AIPERF_TOTALS = {
    "request_count": "requests|succeeded",
    "error_request_count": "requests|failed",
    "total_isl": "tokens|input",
    "total_osl": "tokens|output",
    "benchmark_duration": "duration_s",
    "request_throughput": "throughput|requests_per_s",
    "output_token_throughput": "throughput|output_tokens_per_s",
}


@pytest.mark.parametrize(("tag", "stat"), AIPERF_CASES)
def test_aiperf_record_metric(tag, stat):
    summary = _load(AIPERF_SUMMARY)
    ours = cmpc_json(AIPERF_JSONL, AIPERF_PCTS)
    block = _get(ours, AIPERF_CANONICAL[tag]) if tag in AIPERF_CANONICAL else None
    if block is None:
        block = ours["tool_metrics"][tag]
    np.testing.assert_allclose(block[AIPERF_STATS[stat]], summary["records"][tag][stat], rtol=EXACT)


@pytest.mark.parametrize("tag", sorted(AIPERF_TOTALS))
def test_aiperf_totals(tag):
    summary = _load(AIPERF_SUMMARY)
    got = _get(cmpc_json(AIPERF_JSONL, AIPERF_PCTS), AIPERF_TOTALS[tag])
    np.testing.assert_allclose(got, summary["records"][tag]["avg"], rtol=EXACT)


@pytest.mark.parametrize(("tag", "stat"), [(t, s) for t in AIPERF_CANONICAL for s in AIPERF_STATS])
def test_aiperf_summary_is_read_as_published(tag, stat):
    summary = _load(AIPERF_SUMMARY)
    block = _get(cmpc_json(AIPERF_SUMMARY, AIPERF_PCTS), AIPERF_CANONICAL[tag])
    np.testing.assert_allclose(block[AIPERF_STATS[stat]], summary["records"][tag][stat], rtol=EXACT)


# ---------------------------------------------------------------------------------------------
# GenAI-Perf: the profile export against `*_genai_perf.json` of the same run.

GP_EXPORT = "genai-perf/adaptive__simple_medium_response_c10.json"
GP_SUMMARY = "genai-perf/adaptive__simple_medium_response_c10_genai_perf.json"
GP_PCTS = ("1", "5", "10", "25", "50", "75", "90", "95", "99")
GP_STATS = {"avg": "mean", "std": "std", "min": "min", "max": "max"} | {
    f"p{p}": f"p{p}" for p in GP_PCTS
}
GP_METRICS = {"request_latency": "metrics|e2el_ms", "time_to_first_token": "metrics|ttft_ms"}


@pytest.mark.parametrize(("name", "stat"), [(m, s) for m in GP_METRICS for s in GP_STATS])
def test_genai_perf_latency(name, stat):
    summary = _load(GP_SUMMARY)
    block = _get(cmpc_json(GP_EXPORT, GP_PCTS), GP_METRICS[name])
    np.testing.assert_allclose(block[GP_STATS[stat]], summary[name][stat], rtol=EXACT)


@pytest.mark.parametrize(
    ("name", "path"),
    [("request_throughput", "throughput|requests_per_s"), ("request_count", "requests|succeeded")],
)
def test_genai_perf_counts(name, path):
    summary = _load(GP_SUMMARY)
    np.testing.assert_allclose(
        _get(cmpc_json(GP_EXPORT, GP_PCTS), path), summary[name]["avg"], rtol=EXACT
    )


def test_genai_perf_token_counts_are_null_not_invented():
    ours = cmpc_json(GP_EXPORT, GP_PCTS)
    assert ours["tokens"] == {"input": None, "cached_input": None, "output": None}
    assert ours["throughput"]["output_tokens_per_s"] is None
    assert ours["metrics"]["tpot_ms"] is None


# ---------------------------------------------------------------------------------------------
# LLMPerf (2023-12): individual responses against the summary of the same run.

LP_IND = "llmperf/llmperf-leaderboard__individual_fireworks_70b.json"
LP_SUM = "llmperf/llmperf-leaderboard__summary_fireworks_70b.json"
LP_PCTS = ("25", "50", "75", "90", "95", "99")
LP_METRICS = {
    "ttft_s": ("metrics|ttft_ms", 1e-3),
    "end_to_end_latency_s": ("metrics|e2el_ms", 1e-3),
    "inter_token_latency_s": ("tool_metrics|inter_token_latency_s", 1.0),
    "request_output_throughput_token_per_s": (
        "tool_metrics|request_output_throughput_token_per_s",
        1.0,
    ),
    "number_input_tokens": ("tool_metrics|number_input_tokens", 1.0),
    "number_output_tokens": ("tool_metrics|number_output_tokens", 1.0),
}
LP_STATS = ["mean", "min", "max", "stddev", *[f"quantiles_p{p}" for p in LP_PCTS]]


@pytest.mark.parametrize(("name", "stat"), [(m, s) for m in LP_METRICS for s in LP_STATS])
def test_llmperf(name, stat):
    summary = _load(LP_SUM)
    ours = cmpc_json(LP_IND, LP_PCTS)
    path, scale = LP_METRICS[name]
    block = _get(ours, path)
    expected = float(summary[f"results_{name}_{stat}"])
    if stat == "stddev":  # LLMPerf uses pandas' sample std (ddof=1); cmpc reports population
        n = block["n"]
        got = block["std"] * math.sqrt(n / (n - 1))
    elif stat.startswith("quantiles_"):
        got = block[stat.removeprefix("quantiles_")]
    else:
        got = block[stat]
    np.testing.assert_allclose(got * scale, expected, rtol=EXACT)


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("results_num_completed_requests", "requests|succeeded"),
        ("results_number_errors", "requests|failed"),
        ("results_num_requests_started", "requests|total"),
    ],
)
def test_llmperf_counts(name, path):
    summary = _load(LP_SUM)
    assert _get(cmpc_json(LP_IND, LP_PCTS), path) == summary[name]


def test_llmperf_wall_clock_throughput_is_null_not_invented():
    ours = cmpc_json(LP_IND, LP_PCTS)
    assert ours["duration_s"] is None
    assert ours["throughput"]["output_tokens_per_s"] is None


# ---------------------------------------------------------------------------------------------
# GuideLLM <= 0.2.1: per-request times against `metrics.*.successful` of the same benchmark.

GL = "guidellm/graz-vllm-benchmark__benchmarks.json"
GL_PCTS = ("0.1", "1", "5", "10", "25", "75", "90", "95", "99", "99.9")
GL_METRICS = {
    "request_latency": ("metrics|e2el_ms", 1e-3),
    "time_to_first_token_ms": ("metrics|ttft_ms", 1.0),
}


def _gl_key(pct: str) -> str:
    return {"0.1": "p001", "99.9": "p999"}.get(pct, "p" + pct.zfill(2))


GL_STATS = ["mean", "median", "std_dev", "variance", "min", "max", "count", "total_sum"] + [
    _gl_key(p) for p in GL_PCTS
]


@pytest.mark.parametrize(("name", "stat"), [(m, s) for m in GL_METRICS for s in GL_STATS])
def test_guidellm(name, stat):
    doc = _load(GL)
    tool = doc["benchmarks"][0]["metrics"][name]["successful"]
    # GuideLLM's percentiles (and median) are inverse-CDF values, numpy's `inverted_cdf`
    block = _get(cmpc_json(GL, GL_PCTS, "inverted_cdf"), GL_METRICS[name][0])
    scale = GL_METRICS[name][1]
    pct = {_gl_key(p): p for p in GL_PCTS}
    if stat == "p999":
        # n = 1000 puts p99.9 exactly on a CDF step; GuideLLM's float cumsum lands one rank
        # below numpy's `inverted_cdf` (docs/traces.md): check the rank, not the value.
        sample = np.sort(_guidellm_samples(doc, name))
        rank = int(np.searchsorted(sample, block["p99.9"] * scale))
        assert sample[rank - 1] == pytest.approx(tool["percentiles"]["p999"], rel=EXACT)
        return
    if stat in pct:
        expected, got = tool["percentiles"][stat], block[f"p{pct[stat]}"] * scale
    elif stat == "median":
        expected, got = (
            tool["median"],
            _get(cmpc_json(GL, ("50",), "inverted_cdf"), GL_METRICS[name][0])["p50"] * scale,
        )
    elif stat == "std_dev":
        expected, got = tool["std_dev"], block["std"] * scale
    elif stat == "variance":
        expected, got = tool["variance"], (block["std"] * scale) ** 2
    elif stat == "count":
        expected, got = tool["count"], block["n"]
    elif stat == "total_sum":
        expected, got = tool["total_sum"], block["mean"] * block["n"] * scale
    else:
        expected, got = tool[stat], block[stat] * scale
    np.testing.assert_allclose(got, expected, rtol=EXACT)


def _guidellm_samples(doc: dict, name: str) -> np.ndarray:
    rows = doc["benchmarks"][0]["requests"]["successful"]
    if name == "request_latency":
        return np.array([r["end_time"] - r["start_time"] for r in rows])
    return np.array([(r["first_token_time"] - r["start_time"]) * 1000.0 for r in rows])


@pytest.mark.parametrize(
    ("name", "path"),
    [("prompt_token_count", "tokens|input"), ("output_token_count", "tokens|output")],
)
def test_guidellm_token_totals(name, path):
    doc = _load(GL)
    tool = doc["benchmarks"][0]["metrics"][name]["successful"]
    np.testing.assert_allclose(
        _get(cmpc_json(GL, GL_PCTS, "inverted_cdf"), path), tool["total_sum"], rtol=EXACT
    )


def test_guidellm_counts():
    doc = _load(GL)
    totals = doc["benchmarks"][0]["request_totals"]
    ours = cmpc_json(GL, GL_PCTS, "inverted_cdf")["requests"]
    assert (ours["succeeded"], ours["total"]) == (totals["successful"], totals["total"])


# ---------------------------------------------------------------------------------------------
# genai-bench 0.0.2: individual request metrics against `aggregated_metrics` of the same file.

GB_DIR = "genai-bench/genaibench-regression_main_branch__"
GB = GB_DIR + "D100_100_text-to-text_num_concurrency_1_time_120s.json"
GB_META = GB_DIR + "experiment_metadata.json"
GB_PCTS = ("25", "50", "75", "90", "95", "99")
GB_METRICS = {
    "ttft": "metrics|ttft_ms",
    "e2e_latency": "metrics|e2el_ms",
    "tpot": "metrics|tpot_ms",
    "output_latency": "tool_metrics|output_latency",
    "output_inference_speed": "tool_metrics|output_inference_speed",
    "input_throughput": "tool_metrics|input_throughput",
    "output_throughput": "tool_metrics|output_throughput",
    "num_input_tokens": "tool_metrics|num_input_tokens",
    "num_output_tokens": "tool_metrics|num_output_tokens",
}
GB_STATS = ["min", "max", "mean", "stddev", "sum", *[f"p{p}" for p in GB_PCTS]]
GB_TOTALS = {
    "run_duration": "duration_s",
    "requests_per_second": "throughput|requests_per_s",
    "mean_output_throughput_tokens_per_s": "throughput|output_tokens_per_s",
    "mean_input_throughput_tokens_per_s": "throughput|input_tokens_per_s",
    "mean_total_tokens_throughput_tokens_per_s": "throughput|total_tokens_per_s",
    "num_completed_requests": "requests|succeeded",
    "num_error_requests": "requests|failed",
    "num_requests": "requests|total",
}


@pytest.mark.parametrize(("name", "stat"), [(m, s) for m in GB_METRICS for s in GB_STATS])
def test_genai_bench(name, stat):
    doc = _load(GB)
    tool = doc["aggregated_metrics"]["stats"][name][stat]
    path = GB_METRICS[name]
    block = _get(cmpc_json(GB, GB_PCTS), path)
    scale = 1e-3 if path.startswith("metrics|") else 1.0
    if stat == "stddev":
        got = block["std"]
    elif stat == "sum":
        got = block["mean"] * block["n"]
    else:
        got = block[stat]
    np.testing.assert_allclose(got * scale, tool, rtol=EXACT)


@pytest.mark.parametrize("name", sorted(GB_TOTALS))
def test_genai_bench_totals(name):
    doc = _load(GB)
    got = _get(cmpc_json(GB, GB_PCTS), GB_TOTALS[name])
    np.testing.assert_allclose(got, doc["aggregated_metrics"][name], rtol=EXACT)


# ---------------------------------------------------------------------------------------------
# Files beside the runs that hold only a tool's summary or metadata: a clear error, exit 1.


@pytest.mark.parametrize("rel", [GP_SUMMARY, LP_SUM, GB_META])
def test_summary_only_files_name_the_file_to_pass(rel):
    outcome = run_stats([str(_oracle(rel))], as_json=True)
    assert outcome.code == 1
    (diag,) = outcome.diagnostics
    assert diag.code == "E302" and diag.help and "pass" in diag.help


def test_every_oracle_data_file_is_covered():
    covered = {*VLLM_FILES, AIPERF_JSONL, AIPERF_SUMMARY, GP_EXPORT, GP_SUMMARY, LP_IND, LP_SUM}
    covered |= {GL, GB, GB_META}
    assert ORACLE.is_dir(), f"{ORACLE} is missing: the repo needs ../shared beside it"
    present = {
        str(p.relative_to(ORACLE))
        for p in ORACLE.rglob("*")
        if p.is_file() and p.suffix in (".json", ".jsonl")
    }
    assert present <= covered
