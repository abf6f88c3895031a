"""cmpc reproduces each harness's own summary of each live run in conformance/fixtures.

One test per fixture case and figure, table-driven per tool (read from the case's sidecar):
the tool's figure is read from the tool's own files, never recomputed, and compared with what
`cmpc stats` reports. Tolerances are exact (1e-9 relative) except where a comment says why.
A figure the tool published that cmpc reports as null fails, as does a fixture of a tool no
table knows.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from cmpc.traces import load_runs
from cmpc.verbs.stats import run_stats

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"
EXACT = 1e-9
STATS = ("mean", "p50", "p90", "p99")
# AIPerf 0.13 divides its throughputs by the profiling phase's window (credit phase start to
# end), which no file holds in ns: the summary's `start_time`/`end_time` keep it to the µs.
# cmpc divides by `benchmark_duration` (first request to last response, which it reproduces
# exactly); the tool's figure rescaled by window / benchmark_duration must then agree to the
# µs rounding of both ends: 2 µs / 1.8 s ≈ 1.1e-6.
AIPERF_WINDOW = 2e-6
# SGLang saves no per-request latency: e2el = ttft + Σ chunk gaps misses the time from the
# last content chunk to the end of the stream (the usage chunk and [DONE]), a fraction of one
# chunk gap per request (W400). Achieved on 0.5.23: ≤ 8.4e-4 relative (tpot p99).
SGLANG_REBUILT = 1e-3


@dataclass(frozen=True)
class Figure:
    name: str
    cmpc: float | None
    tool: float | None
    rtol: float = EXACT


def _cases() -> list[Path]:
    found = sorted(p.parent for p in FIXTURES.glob("*/*/*/sidecar.json"))
    assert found, f"no fixtures under {FIXTURES}: the checkout is incomplete"
    return found


def _sidecar(case: Path) -> dict:
    return json.loads((case / "sidecar.json").read_text())


@cache
def _stats(path: str, method: str = "linear") -> dict:
    outcome = run_stats([path], percentiles=["50", "90", "99"], method=method, as_json=True)
    assert outcome.code == 0, [d.message for d in outcome.diagnostics]
    return json.loads(outcome.stdout)


def _ms(doc: dict, metric: str, stat: str) -> float | None:
    block = doc["metrics"][f"{metric}_ms"]
    return None if block is None else block[stat]


# ---------------------------------------------------------------------------------------------
# AIPerf >= 0.2: profile_export.jsonl (records) and profile_export_aiperf.json (summary)

AIPERF_METRICS = {
    "ttft": "time_to_first_token",
    "tpot": "inter_token_latency",
    "chunk_gap": "inter_chunk_latency",
    "e2el": "request_latency",
}


def _aiperf(case: Path) -> Iterator[Figure]:
    summary = json.loads((case / "profile_export_aiperf.json").read_text())
    window = (
        datetime.datetime.fromisoformat(summary["end_time"])
        - datetime.datetime.fromisoformat(summary["start_time"])
    ).total_seconds()
    duration = summary["benchmark_duration"]["avg"]
    for name, doc in (
        ("records", _stats(str(case / "profile_export.jsonl"))),
        ("summary", _stats(str(case / "profile_export_aiperf.json"))),
    ):
        yield Figure(
            f"{name} succeeded", doc["requests"]["succeeded"], _avg(summary, "request_count")
        )
        yield Figure(
            f"{name} failed", doc["requests"]["failed"], _avg(summary, "error_request_count")
        )
        yield Figure(f"{name} duration_s", doc["duration_s"], duration)
        yield Figure(f"{name} input tokens", doc["tokens"]["input"], _avg(summary, "total_isl"))
        yield Figure(f"{name} output tokens", doc["tokens"]["output"], _avg(summary, "total_osl"))
        yield Figure(
            f"{name} cached input tokens",
            doc["tokens"]["cached_input"],
            _avg(summary, "total_usage_prompt_cache_read_tokens"),
        )
        rescale = 1.0 if name == "summary" else duration / window
        for ours, theirs in (
            ("requests_per_s", "request_throughput"),
            ("output_tokens_per_s", "output_token_throughput"),
            ("input_tokens_per_s", "input_token_throughput"),
            ("total_tokens_per_s", "total_token_throughput"),
        ):
            tool = _avg(summary, theirs)
            yield Figure(
                f"{name} {ours}",
                doc["throughput"][ours],
                None if tool is None else tool / rescale,
                EXACT if name == "summary" else AIPERF_WINDOW,
            )
        for metric, tag in AIPERF_METRICS.items():
            entry = summary.get(tag)
            if entry is None:  # t-digest backend: AIPerf 0.13 publishes no inter_chunk_latency
                assert name == "summary" or _ms(doc, metric, "mean") is not None
                assert name == "records" or doc["metrics"][f"{metric}_ms"] is None
                continue
            for stat in (*STATS, "min", "max", "std"):
                key = {"mean": "avg"}.get(stat, stat)
                yield Figure(f"{name} {metric} {stat}", _ms(doc, metric, stat), entry[key])
            yield Figure(f"{name} {metric} n", doc["metrics"][f"{metric}_ms"]["n"], entry["count"])


def _avg(summary: dict, tag: str) -> float | None:
    entry = summary.get(tag)
    return None if entry is None else entry["avg"]


# ---------------------------------------------------------------------------------------------
# GuideLLM >= 0.4: benchmarks.json


def guidellm_percentiles(values: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """GuideLLM's own method (schemas/base/statistics.py, DistributionSummary.from_values and
    Percentiles.from_pdf): merge equal values, normalize the weights to a pdf, and take the
    first value whose cumulative probability reaches q (searchsorted, side="left")."""
    order = np.argsort(values)
    unique, inverse = np.unique(values[order], return_inverse=True)
    summed = np.zeros_like(unique)
    np.add.at(summed, inverse, weights[order])
    keep = summed > 0
    unique, probabilities = unique[keep], summed[keep] / np.sum(summed[keep])
    cdf = np.cumsum(probabilities)
    out = {
        f"p{q:g}": float(unique[np.searchsorted(cdf, q / 100, side="left")]) for q in (50, 90, 99)
    }
    out["mean"] = float(np.sum(unique * probabilities))
    return out


def _guidellm(case: Path) -> Iterator[Figure]:
    path = str(case / "benchmarks.json")
    bench = json.loads(Path(path).read_text())["benchmarks"][0]
    metrics = bench["metrics"]
    # GuideLLM's percentiles are an inverse CDF (first value whose cumulative weight reaches q,
    # no interpolation): cmpc's `inverted_cdf` is the same for request-weighted distributions
    doc = _stats(path, "inverted_cdf")
    totals = metrics["request_totals"]
    yield Figure("succeeded", doc["requests"]["succeeded"], totals["successful"])
    yield Figure("failed", doc["requests"]["failed"], totals["errored"] + totals["incomplete"])
    yield Figure("duration_s", doc["duration_s"], bench["duration"])
    yield Figure(
        "input tokens",
        doc["tokens"]["input"],
        metrics["prompt_token_count"]["successful"]["total_sum"],
    )
    yield Figure(
        "output tokens",
        doc["tokens"]["output"],
        metrics["output_token_count"]["successful"]["total_sum"],
    )
    for metric, tag, scale in (
        ("ttft", "time_to_first_token_ms", 1.0),
        ("e2el", "request_latency", 1e3),
    ):
        tool = metrics[tag]["successful"]
        for stat in STATS:
            value = tool["mean"] if stat == "mean" else tool["percentiles"][stat]
            yield Figure(f"{metric} {stat}", _ms(doc, metric, stat), value * scale)
        yield Figure(f"{metric} n", doc["metrics"][f"{metric}_ms"]["n"], tool["count"])
        yield Figure(f"{metric} std", _ms(doc, metric, "std"), tool["std_dev"] * scale)
    # GuideLLM's ITL ((last − first)/(n − 1), weighted by n − 1) and TPOT ((last − start)/n,
    # TTFT included, weighted by n) are its own definitions: cmpc keeps the per-request values
    # under tool_metrics, and GuideLLM's weighted figures are reproduced from them exactly
    (run,), _ = load_runs(path)
    req = run.requests
    assert req is not None and req.output_tokens is not None
    for tag, extra, weight in (
        ("inter_token_latency_ms", "inter_token_latency_s", req.output_tokens - 1),
        ("time_per_output_token_ms", "time_per_output_token_s", req.output_tokens),
    ):
        values = req.extra[extra]
        sel = req.ok & ~np.isnan(values)
        ours = guidellm_percentiles(values[sel] * 1e3, weight[sel])
        tool = metrics[tag]["successful"]
        for stat in STATS:
            theirs = tool["mean"] if stat == "mean" else tool["percentiles"][stat]
            yield Figure(f"guidellm {tag} {stat}", ours[stat], theirs)
        yield Figure(f"guidellm {tag} count", float(np.sum(weight[sel])), tool["count"])


# ---------------------------------------------------------------------------------------------
# genai-bench: the run JSON of the experiment folder


def _genai_bench(case: Path) -> Iterator[Figure]:
    (path,) = (
        p for p in (case / "experiment").glob("*.json") if p.name != "experiment_metadata.json"
    )
    agg = json.loads(path.read_text())["aggregated_metrics"]
    doc = _stats(str(path))
    yield Figure("succeeded", doc["requests"]["succeeded"], agg["num_completed_requests"])
    yield Figure("failed", doc["requests"]["failed"], agg["num_error_requests"])
    yield Figure("duration_s", doc["duration_s"], agg["run_duration"])
    yield Figure("requests_per_s", doc["throughput"]["requests_per_s"], agg["requests_per_second"])
    yield Figure(
        "output_tokens_per_s",
        doc["throughput"]["output_tokens_per_s"],
        agg["mean_output_throughput_tokens_per_s"],
    )
    yield Figure("input tokens", doc["tokens"]["input"], agg["stats"]["num_input_tokens"]["sum"])
    yield Figure("output tokens", doc["tokens"]["output"], agg["stats"]["num_output_tokens"]["sum"])
    for metric, tag in (("ttft", "ttft"), ("tpot", "tpot"), ("e2el", "e2e_latency")):
        tool = agg["stats"][tag]
        for stat in (*STATS, "min", "max"):
            yield Figure(f"{metric} {stat}", _ms(doc, metric, stat), tool[stat] * 1e3)
        yield Figure(
            f"{metric} sum",
            _ms(doc, metric, "mean") * doc["metrics"][f"{metric}_ms"]["n"],
            tool["sum"] * 1e3,
        )


# ---------------------------------------------------------------------------------------------
# vLLM `vllm bench serve` and SGLang `bench_serving`: the summary keys of the same object

VLLM_METRICS = {"ttft": "ttft", "tpot": "tpot", "chunk_gap": "itl", "e2el": "e2el"}


def _vllm_like(
    doc: dict, result: dict, names: dict[str, str], rtols: dict[str, float]
) -> Iterator[Figure]:
    yield Figure("succeeded", doc["requests"]["succeeded"], result["completed"])
    yield Figure("duration_s", doc["duration_s"], result["duration"])
    yield Figure("input tokens", doc["tokens"]["input"], result["total_input_tokens"])
    yield Figure("output tokens", doc["tokens"]["output"], result["total_output_tokens"])
    yield Figure(
        "requests_per_s", doc["throughput"]["requests_per_s"], result["request_throughput"]
    )
    yield Figure(
        "output_tokens_per_s", doc["throughput"]["output_tokens_per_s"], result["output_throughput"]
    )
    total = result.get("total_token_throughput", result.get("total_throughput"))
    yield Figure("total_tokens_per_s", doc["throughput"]["total_tokens_per_s"], total)
    for metric, tag in names.items():
        for stat in (*STATS, "std"):
            key = {"mean": "mean", "p50": "median"}.get(stat, stat)
            yield Figure(
                f"{metric} {stat}",
                _ms(doc, metric, stat),
                result.get(f"{key}_{tag}_ms"),
                rtols.get(metric, EXACT),
            )


def _vllm(case: Path) -> Iterator[Figure]:
    path = case / "result.json"
    result = json.loads(path.read_text())
    doc = _stats(str(path))
    yield Figure("failed", doc["requests"]["failed"], result["failed"])
    yield from _vllm_like(doc, result, VLLM_METRICS, {})


def _sglang(case: Path) -> Iterator[Figure]:
    path = case / "result.jsonl"
    result = json.loads(path.read_text().splitlines()[0])  # Python's json reads its Infinity
    assert result["request_rate"] == math.inf
    doc = _stats(str(path))
    names = {"ttft": "ttft", "tpot": "tpot", "chunk_gap": "itl", "e2el": "e2e_latency"}
    rebuilt = {"tpot": SGLANG_REBUILT, "e2el": SGLANG_REBUILT}
    yield from _vllm_like(doc, result, names, rebuilt)


def _vllm_sweep(case: Path) -> Iterator[Figure]:
    """Every run=N.json and every entry of each combination's summary.json: the run's own
    summary keys, and its identity (run_number, each SERVE/BENCH parameter) under `fields`."""
    sidecar = _sidecar(case)
    params = {k for p in sidecar["serve_params"] + sidecar["bench_params"] for k in p}
    folders = sorted(p for p in case.iterdir() if p.is_dir())
    assert len(folders) == len(sidecar["serve_params"]) * len(sidecar["bench_params"])
    for folder in folders:
        summary = json.loads((folder / "summary.json").read_text())
        pooled = _stats(str(folder / "summary.json"))
        assert isinstance(pooled, list) and len(pooled) == len(summary)
        runs = sorted(folder.glob("run=*.json"))
        assert len(runs) == len(summary)
        for path, result, entry in zip(runs, summary, pooled, strict=True):
            for doc in (_stats(str(path)), entry):
                assert doc["format"] == "vllm-sweep"
                assert doc["fields"]["run_number"] == result["run_number"]
                assert path.name == f"run={result['run_number']}.json"
                for key in params:
                    assert doc["fields"][key] == result[key], key
                yield Figure(f"{path.name} failed", doc["requests"]["failed"], result["failed"])
                yield from _vllm_like(doc, result, VLLM_METRICS, {})


# inference-perf's latency names -> cmpc's, where the definitions agree
INFERENCE_PERF_METRICS = {
    "ttft": "time_to_first_token",
    "e2el": "request_latency",
    "e2e_per_token": "normalized_time_per_output_token",
}


def _inference_perf(case: Path) -> Iterator[Figure]:
    """The per-request file and every report (summary, stages) against the summary: one
    stage here, so the stage report is the summary's figures again."""
    summary = json.loads((case / "summary_lifecycle_metrics.json").read_text())
    successes = summary["successes"]
    reports = sorted(case.glob("*_lifecycle_metrics.json"))
    assert {p.name for p in reports} >= {"per_request_lifecycle_metrics.json"}
    for path in reports:
        name = path.name.removesuffix("_lifecycle_metrics.json")
        doc = _stats(str(path))
        assert doc["format"] == "inference-perf"
        yield Figure(f"{name} succeeded", doc["requests"]["succeeded"], successes["count"])
        yield Figure(f"{name} failed", doc["requests"]["failed"], summary["failures"]["count"])
        yield Figure(f"{name} duration_s", doc["duration_s"], summary["benchmark_time_seconds"])
        tokens = successes["prompt_tokens"]
        yield Figure(f"{name} input tokens", doc["tokens"]["input"], tokens["total"])
        yield Figure(f"{name} cached input tokens", doc["tokens"]["cached_input"], tokens["cached"])
        yield Figure(
            f"{name} output tokens", doc["tokens"]["output"], successes["output_tokens"]["total"]
        )
        for ours, theirs in (
            ("requests_per_s", "requests_per_sec"),
            ("input_tokens_per_s", "input_tokens_per_sec"),
            ("output_tokens_per_s", "output_tokens_per_sec"),
            ("total_tokens_per_s", "total_tokens_per_sec"),
        ):
            yield Figure(f"{name} {ours}", doc["throughput"][ours], successes["throughput"][theirs])
        for metric, tag in INFERENCE_PERF_METRICS.items():
            tool = successes["latency"][tag]
            for stat in (*STATS, "min", "max"):
                key = {"p50": "median"}.get(stat, stat)
                yield Figure(f"{name} {metric} {stat}", _ms(doc, metric, stat), tool[key] * 1e3)
        if name != "per_request":
            # the tool's TPOT and ITL are other definitions: a report gives cmpc no such figure
            assert doc["metrics"]["tpot_ms"] is None and doc["metrics"]["chunk_gap_ms"] is None
            continue
        # inference-perf's TPOT ((last token − first token)/(n − 1)) is kept per request under
        # tool_metrics; its ITL pools the per-token deltas: every chunk gap (cmpc's chunk_gap)
        # and a 0 for each further token of a chunk, n − 1 deltas per request in all
        (run,), _ = load_runs(str(path))
        req = run.requests
        assert req is not None and req.gaps is not None and req.gap_offsets is not None
        assert req.output_tokens is not None and successes["token_count_mismatches"] == 0
        tpot = req.extra["time_per_output_token_s"][req.ok]
        tpot = tpot[~np.isnan(tpot)]
        chunks = np.diff(req.gap_offsets)[req.ok] + 1
        zeros = int(np.sum(req.output_tokens[req.ok] - chunks))
        deltas = np.concatenate([req.gaps, np.zeros(zeros)])
        for tag, values in (("time_per_output_token", tpot), ("inter_token_latency", deltas)):
            tool = successes["latency"][tag]
            for stat in (*STATS, "min", "max"):
                key = {"p50": "median"}.get(stat, stat)
                ours = float(np.mean(values)) if stat == "mean" else _np_stat(values, stat)
                yield Figure(f"inference-perf {tag} {stat}", ours, tool[key])


def _np_stat(values: np.ndarray, stat: str) -> float:
    if stat == "min":
        return float(np.min(values))
    if stat == "max":
        return float(np.max(values))
    return float(np.percentile(values, float(stat[1:])))


# LoadGen's summary lines -> (cmpc metric, statistic); its detail log holds the same figures
# as MLLOG entries (rates to 6 significant digits where the summary prints 2 decimals)
MLPERF_SUMMARY = {
    "Min latency (ns)": ("e2el", "min"),
    "Max latency (ns)": ("e2el", "max"),
    "Mean latency (ns)": ("e2el", "mean"),
    "50.00 percentile latency (ns)": ("e2el", "p50"),
    "90.00 percentile latency (ns)": ("e2el", "p90"),
    "99.00 percentile latency (ns)": ("e2el", "p99"),
    "Min First Token latency (ns)": ("ttft", "min"),
    "Max First Token latency (ns)": ("ttft", "max"),
    "Mean First Token latency (ns)": ("ttft", "mean"),
    "50.00 percentile first token latency (ns)": ("ttft", "p50"),
    "90.00 percentile first token latency (ns)": ("ttft", "p90"),
    "99.00 percentile first token latency (ns)": ("ttft", "p99"),
    "Min Time per Output Token (ns)": ("tpot", "min"),
    "Max Time per Output Token (ns)": ("tpot", "max"),
    "Mean Time per Output Token (ns)": ("tpot", "mean"),
    "50.00 percentile time to output token (ns)": ("tpot", "p50"),
    "90.00 percentile time to output token (ns)": ("tpot", "p90"),
    "99.00 percentile time to output token (ns)": ("tpot", "p99"),
}
MLPERF_RATES = {
    "requests_per_s": ("Completed samples per second", "Samples per second"),
    "output_tokens_per_s": ("Completed tokens per second", "Tokens per second"),
}
MLPERF_DETAIL_RATES = {
    "requests_per_s": ("result_completed_samples_per_sec", "result_samples_per_second"),
    "output_tokens_per_s": ("result_completed_tokens_per_second", "result_tokens_per_second"),
}


def _mlperf_summary(text: str) -> dict[str, str]:
    """LoadGen's summary as label -> value text (the first of repeated labels)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        if sep and value.strip():
            out.setdefault(label.strip(), value.strip())
    return out


def _mlperf_detail(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for line in text.splitlines():
        if line.startswith(":::MLLOG "):
            entry = json.loads(line.removeprefix(":::MLLOG "))
            out.setdefault(entry["key"], entry["value"])
    return out


def _mlperf(case: Path) -> Iterator[Figure]:
    """Both logs against LoadGen's own figures: the summary's text and the detail's MLLOG
    values, exact; and the two logs against each other (the same nanoseconds)."""
    summary = _mlperf_summary((case / "mlperf_log_summary.txt").read_text())
    detail = _mlperf_detail((case / "mlperf_log_detail.txt").read_text())
    from_summary = _stats(str(case / "mlperf_log_summary.txt"))
    from_detail = _stats(str(case / "mlperf_log_detail.txt"))
    for doc in (from_summary, from_detail):
        assert doc["format"] == "mlperf" and doc["aggregate_only"] is True
        assert doc["fields"]["scenario"] == summary["Scenario"] == detail["effective_scenario"]
        assert doc["fields"]["result_validity"] == summary["Result is"]
        assert doc["fields"]["result_validity"] == detail["result_validity"]
        if summary["Scenario"] == "Server":
            ttft, tpot = summary["ttft_latency (ns)"], summary["tpot_latency (ns)"]
            yield Figure("ttft constraint ms", doc["fields"]["ttft_constraint_ms"], int(ttft) / 1e6)
            yield Figure("tpot constraint ms", doc["fields"]["tpot_constraint_ms"], int(tpot) / 1e6)
        else:
            assert "ttft_constraint_ms" not in doc["fields"]
        for label, (metric, stat) in MLPERF_SUMMARY.items():
            tool = int(summary[label]) * 1e-6 if label in summary else None
            yield Figure(f"{label}", _ms(doc, metric, stat), tool)
    for ours, labels in MLPERF_RATES.items():
        tool = next(float(summary[k]) for k in labels if k in summary)
        yield Figure(f"summary {ours}", from_summary["throughput"][ours], tool)
        # the summary rounds to 2 decimals (Server) or 6 digits (Offline); the detail to 6
        detailed = from_detail["throughput"][ours]
        yield Figure(f"detail vs summary {ours}", detailed, tool, rtol=5e-3 / tool + 1e-6)
    for ours, keys in MLPERF_DETAIL_RATES.items():
        tool = next(float(detail[k]) for k in keys if k in detail)  # type: ignore[arg-type]
        yield Figure(f"detail {ours}", from_detail["throughput"][ours], tool)
    samples = detail["result_query_count"] * detail["effective_samples_per_query"]  # type: ignore[operator]
    yield Figure("detail samples", from_detail["requests"]["succeeded"], samples)
    yield Figure("detail e2el n", from_detail["metrics"]["e2el_ms"]["n"], samples)


# BR latency names -> cmpc's (the BR's TPOT and ITL are each producer's own definitions)
LLMD_LATENCY = {
    "ttft": "time_to_first_token",
    "e2el": "request_latency",
    "e2e_per_token": "normalized_time_per_output_token",
}
LLMD_RATES = {
    "requests_per_s": "request_rate",
    "input_tokens_per_s": "input_token_rate",
    "output_tokens_per_s": "output_token_rate",
    "total_tokens_per_s": "total_token_rate",
}


def _llmd_report(case: Path) -> Iterator[Figure]:
    """The partial inference-perf wrote and the composed reports (YAML, JSON) against the
    partial's own figures, and against inference-perf's native summary of the same run;
    per-GPU figures against the stack's stated accelerators."""
    import yaml

    sidecar = _sidecar(case)
    partial = yaml.safe_load((case / "inference-perf.partial.stage_0.yaml").read_text())
    aggregate = partial["results"]["request_performance"]["aggregate"]
    native = FIXTURES / "inference-perf" / sidecar["version"] / sidecar["case"]
    summary = json.loads((native / "summary_lifecycle_metrics.json").read_text())
    stack = sidecar["composed"]["stack"][0]["standardized"]
    gpus = stack["accelerator"]["count"] * stack["replicas"]
    for name in ("inference-perf.partial.stage_0.yaml", *sidecar["composed"]["files"]):
        doc = _stats(str(case / name))
        assert doc["format"] == "llmd-report" and doc["aggregate_only"] is True
        requests = aggregate["requests"]
        yield Figure(f"{name} total", doc["requests"]["total"], requests["total"])
        yield Figure(f"{name} failed", doc["requests"]["failed"], requests["failures"])
        yield Figure(
            f"{name} succeeded", doc["requests"]["succeeded"], summary["successes"]["count"]
        )
        for ours, theirs in LLMD_RATES.items():
            tool = aggregate["throughput"][theirs]["mean"]
            yield Figure(f"{name} {ours}", doc["throughput"][ours], tool)
            native_key = {"requests_per_s": "requests_per_sec"}.get(ours, ours + "ec")
            native_rate = summary["successes"]["throughput"][native_key]
            yield Figure(f"{name} {ours} (native)", doc["throughput"][ours], native_rate)
            if name != "inference-perf.partial.stage_0.yaml" and ours != "requests_per_s":
                yield Figure(f"{name} {ours} per gpu", doc["per_gpu"][ours], tool / gpus)
        if name == "inference-perf.partial.stage_0.yaml":
            assert "per_gpu" not in doc  # the partial states no deployment
        else:
            assert doc["per_gpu"]["num_gpus"] == gpus and doc["fields"]["tp"] == 4
        for metric, tag in LLMD_LATENCY.items():
            tool = aggregate["latency"][tag]
            native_stats = summary["successes"]["latency"][tag]
            for stat in (*STATS, "min", "max"):
                yield Figure(f"{name} {metric} {stat}", _ms(doc, metric, stat), tool[stat] * 1e3)
                key = {"p50": "median"}.get(stat, stat)
                yield Figure(
                    f"{name} {metric} {stat} (native)",
                    _ms(doc, metric, stat),
                    native_stats[key] * 1e3,
                )
            yield Figure(f"{name} {metric} std", _ms(doc, metric, "std"), tool["stddev"] * 1e3)
        assert doc["metrics"]["tpot_ms"] is None and doc["metrics"]["chunk_gap_ms"] is None


TOOLS: dict[str, Callable[[Path], Iterator[Figure]]] = {
    "aiperf": _aiperf,
    "guidellm": _guidellm,
    "genai-bench": _genai_bench,
    "vllm": _vllm,
    "vllm-sweep": _vllm_sweep,
    "sglang": _sglang,
    "inference-perf": _inference_perf,
    "mlperf": _mlperf,
    "llmd-report": _llmd_report,
}


def _params() -> list:
    out = []
    for case in _cases():
        sidecar = _sidecar(case)
        out.append(
            pytest.param(case, id=f"{sidecar['tool']}-{sidecar['version']}-{sidecar['case']}")
        )
    return out


@pytest.mark.parametrize("case", _params())
def test_cmpc_reproduces_the_tools_summary(case: Path) -> None:
    sidecar = _sidecar(case)
    assert sidecar["tool"] in TOOLS, f"no conformance table for {sidecar['tool']}: add one"
    assert case.parts[-3:] == (sidecar["tool"], sidecar["version"], sidecar["case"])
    wrong = []
    for fig in TOOLS[sidecar["tool"]](case):
        if fig.tool is None:
            continue  # the tool published no such figure
        if fig.cmpc is None:
            wrong.append(f"{fig.name}: cmpc null, tool {fig.tool!r}")
        elif not math.isclose(
            fig.cmpc, fig.tool, rel_tol=fig.rtol, abs_tol=0 if fig.tool else 1e-12
        ):
            error = abs(fig.cmpc - fig.tool) / abs(fig.tool)
            wrong.append(
                f"{fig.name}: cmpc {fig.cmpc!r}, tool {fig.tool!r} ({error:.2e} > {fig.rtol:g})"
            )
    assert wrong == []


def test_guidellm_percentile_method_is_the_tools() -> None:
    """The reproduction of GuideLLM's method is checked on a case it was built for: weights."""
    values = np.array([3.0, 1.0, 2.0, 2.0])
    weights = np.array([1.0, 1.0, 2.0, 0.0])
    got = guidellm_percentiles(values, weights)
    assert got["p50"] == 2.0 and got["p90"] == 3.0 and got["mean"] == pytest.approx(2.0)
