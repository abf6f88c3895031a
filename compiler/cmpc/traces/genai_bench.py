"""sgl-project genai-bench run JSON: per-request metrics plus the run's aggregate."""

from __future__ import annotations

import os

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at, pick_fields
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import Run

NAME = "genai-bench"
# One layout so far; the release is stated by the folder's `experiment_metadata.json`.
RUN_JSON = Layout("genai-bench", "run JSON", "0.0.2", "0.0.5")
_TOOL_METRICS = (
    "tpot",
    "output_latency",
    "output_inference_speed",
    "input_throughput",
    "output_throughput",
)


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = mapping(jsonscan.read_document(path), "the document")
    items = doc.get("individual_request_metrics")
    if not isinstance(items, list):
        raise TraceError(
            "`individual_request_metrics` should be a list", "`individual_request_metrics`", "E305"
        )
    agg = object_at(doc, "aggregated_metrics")
    unit = doc.get("_time_unit", "s")
    scale = {"s": 1.0, "ms": 1e-3}.get(unit)
    if scale is None:
        raise TraceError(f"unknown `_time_unit` {unit!r}", "`_time_unit`", "E305")
    n = len(items)
    ok = np.zeros(n, dtype=bool)
    tpot_stated = np.zeros(n, dtype=bool)  # the request carries a `tpot` key (null or a number)
    names = ("ttft", "e2e_latency", "num_input_tokens", "num_output_tokens", *_TOOL_METRICS)
    cols = {k: np.full(n, np.nan) for k in names}
    for i, item in enumerate(items):
        where = f"individual_request_metrics[{i}]"
        item = mapping(item, f"`{where}`")
        if item.get("error_code") is not None:
            continue
        ok[i] = True
        tpot_stated[i] = "tpot" in item
        for key in names:
            value = number(item.get(key), f"`{where}.{key}`", optional=True)
            if value is not None:
                cols[key][i] = value
    time_scaled = ("ttft", "e2e_latency", "tpot", "output_latency")
    for key in time_scaled:
        cols[key] *= scale
    for key, metric in (("ttft", "ttft"), ("e2e_latency", "e2el"), ("num_output_tokens", "tpot")):
        if ok.any() and np.all(np.isnan(cols[key][ok])):
            raise TraceError(
                f"no successful request has `{key}`, the field {metric} needs",
                "`individual_request_metrics`",
                "E321",
            )
    # genai-bench sets `tpot` to null when the decode took under 1 ms (a burst of tokens: timing
    # jitter, not a decode speed) and leaves the request out of its TPOT statistics; cmpc's tpot
    # follows the file: a successful request whose stated `tpot` is null has no tpot
    only = {"tpot": ~(tpot_stated & np.isnan(cols["tpot"]))} if tpot_stated.any() else {}
    requests = build_requests(
        ok,
        only=only,
        ttft=cols["ttft"],
        e2el=cols["e2e_latency"],
        input_tokens=cols["num_input_tokens"],
        output_tokens=cols["num_output_tokens"],
        extra={key: cols[key] for key in (*_TOOL_METRICS, "num_input_tokens", "num_output_tokens")},
    )
    duration = duration_of(agg.get("run_duration"), "`aggregated_metrics.run_duration`")
    fields = pick_fields(
        agg,
        ("scenario", "num_concurrency", "batch_size", "iteration_type"),
        {"num_concurrency": "conc"},
    )
    metadata, version = metadata_fields(path)
    fields = metadata | fields
    reading = Reading("genai-bench", RUN_JSON, version)
    return [Run(path, fmt, 0, fields, requests=requests, duration_s=duration, reading=reading)]


def metadata_fields(path: str) -> tuple[dict, str | None]:
    """Model and server facts, and genai-bench's release (`benchmark_version`), from the
    `experiment_metadata.json` genai-bench writes per folder."""
    folder, name = os.path.split(path)
    prefix = name.split("__", 1)[0] + "__" if "__" in name else ""
    for candidate in (prefix + "experiment_metadata.json", "experiment_metadata.json"):
        sibling = os.path.join(folder, candidate)
        if candidate != name and os.path.isfile(sibling):
            try:
                doc = jsonscan.read_document(sibling)
            except (OSError, TraceError):
                return {}, None  # optional context: the run file stands on its own
            if not isinstance(doc, dict):
                return {}, None
            keys = (
                "model",
                "api_backend",
                "server_engine",
                "server_version",
                "server_gpu_type",
                "server_gpu_count",
                "server_model_tokenizer",
            )
            version = doc.get("benchmark_version")
            return (
                pick_fields(doc, keys, {"server_gpu_type": "hw", "server_engine": "framework"}),
                version if isinstance(version, str) else None,
            )
    return {}, None
