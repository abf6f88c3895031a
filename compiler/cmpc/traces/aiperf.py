"""NVIDIA AIPerf: `profile_export.jsonl` records; `profile_export_aiperf.json` aggregate-only."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at, pick_fields
from cmpc.traces.jsonscan import RaggedBuilder, TraceError
from cmpc.traces.table import Published, Run

_ICL = (b'"inter_chunk_latency"', re.compile(rb'\s*:\s*\{\s*"value"\s*:\s*\['))
_MS = 1e-3
SKIPS_GAPS = True  # `read(..., gaps=False)` leaves inter-chunk latencies unparsed
# AIPerf record metrics and the cmpc metric each one is (AIPerf's ITL is cmpc's tpot).
SUMMARY_METRICS = {
    "ttft": "ttft",
    "request_latency": "e2el",
    "inter_token_latency": "tpot",
    "inter_chunk_latency": "chunk_gap",
}
_UNIT_SCALE = {"ms": 1e-3, "ns": 1e-9, "us": 1e-6, "sec": 1.0, "s": 1.0}


def _value(metrics: Mapping, name: str, where: str) -> float | None:
    entry = metrics.get(name)
    if entry is None:
        return None
    entry = mapping(entry, f"{where}: `metrics.{name}`")
    return number(entry.get("value"), f"{where}: `metrics.{name}.value`", optional=True)


def _int_value(metrics: Mapping, name: str, where: str) -> int | None:
    entry = metrics.get(name)
    if entry is None:
        return None
    value = mapping(entry, f"{where}: `metrics.{name}`").get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        raise TraceError(f"`metrics.{name}.value` should be an integer", where, "E305")
    return value


# Record metrics kept under AIPerf's names and display units, for `tool_metrics`.
TOOL_METRICS = (
    "ttst",
    "inter_token_latency",
    "output_token_throughput_per_user",
    "input_sequence_length",
    "output_sequence_length",
    "output_token_count",
    "reasoning_token_count",
)


def read_records(path: str, fmt: str, *, gaps: bool = True) -> list[Run]:
    """Profiling records; without `gaps`, `inter_chunk_latency` is cut out but not parsed."""
    ttft: list[float | None] = []
    e2el: list[float | None] = []
    isl: list[float | None] = []
    osl: list[float | None] = []
    ok: list[bool] = []
    extra: dict[str, list[float | None]] = {name: [] for name in TOOL_METRICS}
    wheres: list[str] = []
    first_ns: list[int] = []
    last_ns: list[int] = []
    icl = RaggedBuilder("inter_chunk_latency")
    for where, raw in jsonscan.records(path):
        line, arrays = jsonscan.take_arrays(raw, {"icl": _ICL})
        doc = jsonscan.decode(line, where) if line is not raw else None
        if doc is None:
            try:
                doc = jsonscan.decode(raw)
            except TraceError as exc:
                raise TraceError(str(exc), f"{where}, {exc.record}", exc.code) from None
        if not isinstance(doc, dict):
            raise TraceError("each line should be a JSON object (an AIPerf record)", where, "E305")
        meta = doc.get("metadata") or {}
        phase = (
            meta.get("benchmark_phase", meta.get("credit_phase"))
            if isinstance(meta, dict)
            else None
        )
        if phase not in (None, "profiling"):
            continue  # warmup records are not part of the measurement
        metrics = mapping(doc.get("metrics", {}), f"{where}: `metrics`")
        wheres.append(where)
        if doc.get("error"):
            ok.append(False)
            for failed in (ttft, e2el, isl, osl, *extra.values()):
                failed.append(np.nan)
            icl.add(None, where)
            continue
        ok.append(True)
        for name, values in extra.items():
            values.append(_value(metrics, name, where))
        ttft.append(_value(metrics, "ttft", where))
        e2el.append(_value(metrics, "request_latency", where))
        isl.append(_value(metrics, "input_sequence_length", where))
        out = _value(metrics, "output_sequence_length", where)
        if out is None:
            parts = [
                _value(metrics, k, where) for k in ("output_token_count", "reasoning_token_count")
            ]
            out = None if all(p is None for p in parts) else sum(p or 0 for p in parts)
        osl.append(out)
        start = _int_value(metrics, "min_request_timestamp", where)
        end = _int_value(metrics, "max_response_timestamp", where)
        if start is None:
            start = meta.get("timestamp_ns") if isinstance(meta, dict) else None
        if start is not None:
            first_ns.append(start)
        if end is not None:
            last_ns.append(end)
        if not gaps:
            icl.add(None, where)
        elif "icl" in arrays:
            icl.add(arrays["icl"], where)
        else:
            entry = metrics.get("inter_chunk_latency")
            chunks = entry.get("value") if isinstance(entry, dict) else None
            if chunks is not None and not isinstance(chunks, list):
                raise TraceError(
                    "`metrics.inter_chunk_latency.value` should be a list", where, "E305"
                )
            icl.add(
                ",".join(repr(number(v, where)) for v in chunks).encode() if chunks else None,
                where,
            )
    if not ok:
        raise TraceError("the file holds no records", "line 1", "E309")

    def col(values: list[float | None], scale: float = 1.0) -> np.ndarray | None:
        arr = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return None if np.all(np.isnan(arr)) else arr * scale

    ragged = icl.finish()
    ragged = jsonscan.Ragged(ragged.values * _MS, ragged.counts)
    duration = (max(last_ns) - min(first_ns)) / 1e9 if first_ns and last_ns else None
    requests = build_requests(
        np.array(ok),
        gaps=ragged if gaps else None,
        labels=wheres,
        ttft=col(ttft, _MS),
        e2el=col(e2el, _MS),
        input_tokens=col(isl),
        output_tokens=col(osl),
        extra={
            name: np.array([np.nan if v is None else v for v in values], dtype=np.float64)
            for name, values in extra.items()
        },
    )
    return [Run(path, fmt, 0, sibling_fields(path), requests=requests, duration_s=duration)]


def _stats(entry: Mapping, scale: float) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in entry.items():
        if value is None or not isinstance(value, int | float) or isinstance(value, bool):
            continue
        if key == "avg":
            out["mean"] = value * scale
        elif key in ("std", "min", "max") or re.fullmatch(r"p\d+(\.\d+)?", key):
            out[key] = value * scale
        elif key == "count":
            out["n"] = value
    if "p50" in out:
        out["median"] = out["p50"]
    return out


def read_summary(path: str, fmt: str) -> list[Run]:
    doc = jsonscan.read_document(path)
    doc = mapping(doc, "the document")
    records = mapping(doc.get("records"), "`records`")

    def avg(name: str) -> float | None:
        entry = records.get(name)
        if not isinstance(entry, dict):
            return None
        return number(entry.get("avg"), f"`records.{name}.avg`", optional=True)

    latency = {}
    for tag, metric in SUMMARY_METRICS.items():
        entry = records.get(tag)
        if isinstance(entry, dict):
            latency[metric] = _stats(entry, _UNIT_SCALE.get(str(entry.get("unit")), _MS))
    duration = avg("benchmark_duration")
    if duration is not None:
        duration = duration_of(duration, "`records.benchmark_duration.avg`")
    isl, osl = avg("total_isl"), avg("total_osl")
    succeeded, failed = avg("request_count"), avg("error_request_count") or 0.0

    def rate(value: float | None) -> float | None:
        return None if value is None or not duration else value / duration

    published = Published(
        total=None if succeeded is None else int(succeeded + failed),
        succeeded=None if succeeded is None else int(succeeded),
        failed=int(failed),
        input_tokens=isl,
        output_tokens=osl,
        throughput={
            "requests": avg("request_throughput"),
            "output": avg("output_token_throughput"),
            "input": rate(isl),
            "total": rate(None if isl is None or osl is None else isl + osl),
        },
        latency=latency,
    )
    return [Run(path, fmt, 0, config_fields(doc), published=published, duration_s=duration)]


def config_fields(doc: Mapping) -> dict:
    """Run identity from a summary's `input_config`: concurrency, request rate, model."""
    config = object_at(doc, "input_config")
    loadgen = object_at(config, "loadgen")
    endpoint = object_at(config, "endpoint")
    fields = pick_fields(loadgen, ("concurrency", "request_rate"), {"concurrency": "conc"})
    models = endpoint.get("model_names")
    if isinstance(models, list) and models and isinstance(models[0], str):
        fields["model"] = models[0]
    return fields


def sibling_fields(path: str) -> dict:
    """Fields from the `profile_export_aiperf.json` AIPerf writes beside the records, if any."""
    folder, name = os.path.split(path)
    for candidate in (
        name.replace("profile_export.jsonl", "profile_export_aiperf.json"),
        "profile_export_aiperf.json",
    ):
        sibling = os.path.join(folder, candidate)
        if candidate != name and os.path.isfile(sibling):
            try:
                doc = jsonscan.read_document(sibling)
            except (OSError, TraceError):
                return {}  # the sibling is optional context; the records stand on their own
            return config_fields(doc) if isinstance(doc, dict) else {}
    return {}


def read(path: str, fmt: str, *, gaps: bool = True) -> list[Run]:
    if fmt == "aiperf-summary":
        return read_summary(path, fmt)
    return read_records(path, fmt, gaps=gaps)
