"""kubernetes-sigs inference-perf: per-request lifecycle metrics, and the stage/summary reports."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at
from cmpc.traces.jsonscan import Ragged, TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import FieldValue, Published, Run

NAME = "inference-perf"
# inference-perf writes no release into its reports; the layouts are those of 0.7.0.
PER_REQUEST = Layout("inference-perf", "per-request lifecycle", "0.7.0", "0.7.0")
REPORT = Layout("inference-perf", "lifecycle report", "0.7.0", "0.7.0")
_STAGE = re.compile(r"stage_(\d+)_lifecycle_metrics")
# report latency name -> cmpc metric; its `time_per_output_token` ((last token − first token)
# / (n − 1)) and `inter_token_latency` (per-token deltas, 0 inside a chunk) are other figures
_REPORT_METRICS = {
    "time_to_first_token": "ttft",
    "request_latency": "e2el",
    "normalized_time_per_output_token": "e2e_per_token",
}
_THROUGHPUT = {
    "requests": "requests_per_sec",
    "input": "input_tokens_per_sec",
    "output": "output_tokens_per_sec",
    "total": "total_tokens_per_sec",
}


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = jsonscan.read_document(path)
    if isinstance(doc, list):
        return [_read_requests(path, fmt, doc)]
    return [_read_report(path, fmt, mapping(doc, "the document"))]


def _read_requests(path: str, fmt: str, items: list) -> Run:
    n = len(items)
    if n == 0:
        raise TraceError("the file lists no request", "the document", "E309")
    ok = np.zeros(n, dtype=bool)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    ttft, tool_tpot = np.full(n, np.nan), np.full(n, np.nan)
    cols = {k: np.full(n, np.nan) for k in ("input", "cached", "output")}
    gap_rows: list[np.ndarray] = []
    for i, item in enumerate(items):
        where = f"`[{i}]`"
        item = mapping(item, where)
        start[i] = number(item.get("start_time"), f"`[{i}].start_time`")
        end[i] = number(item.get("end_time"), f"`[{i}].end_time`")
        ok[i] = item.get("error") is None
        if not ok[i]:
            gap_rows.append(np.empty(0))
            continue
        info = mapping(item.get("info"), f"`[{i}].info`")
        text = object_at(object_at(info, "request_metrics"), "text")
        cols["input"][i] = _count(text.get("input_tokens"), f"`[{i}].info.request_metrics.text`")
        response = object_at(info, "response_metrics")
        output = _count(response.get("output_tokens"), f"`[{i}].info.response_metrics`")
        cols["output"][i] = output
        usage = object_at(response, "server_usage")
        cached = object_at(usage, "prompt_tokens_details").get("cached_tokens")
        cols["cached"][i] = _count(cached, f"`[{i}]...prompt_tokens_details`")
        chunks = _times(response.get("chunk_times"), f"`[{i}].info.response_metrics.chunk_times`")
        tokens = _times(
            response.get("output_token_times"),
            f"`[{i}].info.response_metrics.output_token_times`",
        )
        gap_rows.append(np.diff(chunks))
        if tokens.size:
            ttft[i] = tokens[0] - start[i]
            if output > 1 and tokens.size > 1:
                tool_tpot[i] = (tokens[-1] - tokens[0]) / (output - 1)
    if ok.any() and np.all(np.isnan(cols["output"][ok])):
        raise TraceError(
            "no successful request has `info.response_metrics.output_tokens`, the field tpot needs",
            "the document",
            "E321",
        )
    counts = np.array([row.size for row in gap_rows], dtype=np.int64)
    flat = np.concatenate(gap_rows) if gap_rows else np.empty(0)
    requests = build_requests(
        ok,
        gaps=Ragged(flat, counts),
        labels=[f"request {i}" for i in range(n)],
        start=start,
        ttft=ttft,
        e2el=end - start,
        input_tokens=cols["input"],
        cached_input_tokens=cols["cached"],
        output_tokens=cols["output"],
        extra={"time_per_output_token_s": tool_tpot},
    )
    # inference-perf's benchmark_time_seconds: last end − first start over every request
    duration = duration_of(float(np.max(end) - np.min(start)), "the requests' times")
    reading = Reading("inference-perf", PER_REQUEST)
    return Run(path, fmt, 0, {}, requests=requests, duration_s=duration, reading=reading)


def _count(value: object, where: str) -> float:
    """A token count, NaN when the request does not state it."""
    count = number(value, where, optional=True)
    return np.nan if count is None else count


def _times(value: object, where: str) -> np.ndarray:
    if value is None:
        return np.empty(0)
    if not isinstance(value, list):
        raise TraceError(f"{where} should be a list of numbers", where, "E305")
    return np.array([number(v, f"{where}[{j}]") for j, v in enumerate(value)], dtype=np.float64)


def _read_report(path: str, fmt: str, doc: Mapping) -> Run:
    if "successes" not in doc or "benchmark_time_seconds" not in doc:
        raise TraceError(
            "an inference-perf lifecycle report needs `successes` and `benchmark_time_seconds`",
            "the document",
            "E321",
        )
    successes = mapping(doc["successes"], "`successes`")
    failures = object_at(doc, "failures")
    load = object_at(doc, "load_summary")
    latency = object_at(successes, "latency")
    stats: dict[str, dict[str, float]] = {}
    for tag, metric in _REPORT_METRICS.items():
        entry = latency.get(tag)
        if isinstance(entry, dict):
            stats[metric] = _stats(entry, f"`successes.latency.{tag}`")
    if "e2el" in stats and isinstance(successes.get("count"), int):
        stats["e2el"]["n"] = successes["count"]  # one request latency per success
    throughput = object_at(successes, "throughput")
    prompt = object_at(successes, "prompt_tokens")
    output = object_at(successes, "output_tokens")
    succeeded = number(successes.get("count"), "`successes.count`", optional=True)
    failed = number(failures.get("count"), "`failures.count`", optional=True)
    total = number(load.get("count"), "`load_summary.count`", optional=True)
    published = Published(
        total=None if total is None else int(total),
        succeeded=None if succeeded is None else int(succeeded),
        failed=None if failed is None else int(failed),
        input_tokens=number(prompt.get("total"), "`successes.prompt_tokens.total`", optional=True),
        cached_input_tokens=number(
            prompt.get("cached"), "`successes.prompt_tokens.cached`", optional=True
        ),
        output_tokens=number(output.get("total"), "`successes.output_tokens.total`", optional=True),
        throughput={
            basis: number(throughput.get(key), f"`successes.throughput.{key}`", optional=True)
            for basis, key in _THROUGHPUT.items()
        },
        latency=stats,
    )
    duration = duration_of(doc["benchmark_time_seconds"], "`benchmark_time_seconds`")
    fields: dict[str, FieldValue] = {}
    stage = _STAGE.search(os.path.basename(path))
    if stage:
        fields["stage"] = int(stage.group(1))
    for key in ("requested_rate", "concurrency", "achieved_rate"):  # rate stages only
        value = number(load.get(key), f"`load_summary.{key}`", optional=True)
        if value is not None:
            fields[key] = int(value) if key == "concurrency" else value
    reading = Reading("inference-perf", REPORT)
    return Run(path, fmt, 0, fields, published=published, duration_s=duration, reading=reading)


def _stats(entry: Mapping, where: str) -> dict[str, float]:
    """inference-perf's `summarize`: mean, min, max, `median`, `pNN` (numpy linear), seconds."""
    out: dict[str, float] = {}
    for key, value in entry.items():
        if key in ("mean", "min", "max", "median") or re.fullmatch(r"p\d+(\.\d+)?", key):
            out[key] = number(value, f"{where}.{key}")
    if "median" in out:
        out["p50"] = out["median"]
    return out
