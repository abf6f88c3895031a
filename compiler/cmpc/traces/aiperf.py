"""NVIDIA AIPerf: `profile_export.jsonl` records; `profile_export_aiperf.json` aggregate-only."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at, pick_fields
from cmpc.traces.jsonscan import RaggedBuilder, TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import Published, Run

_ICL = (b'"inter_chunk_latency"', re.compile(rb'\s*:\s*\{\s*"value"\s*:\s*\['))
_MS = 1e-3
SKIPS_GAPS = True  # `read(..., gaps=False)` leaves inter-chunk latencies unparsed
# The layouts read and the releases each is proved on (tests/traces, tests/conformance).
# 0.1: record metrics `ttft`, `min_request_timestamp`, `max_response_timestamp`, summary under
# `records`; from 0.2: `time_to_first_token`, `metadata.request_start_ns`, summary at top level.
RECORDS_01 = Layout("AIPerf", "0.1 records", "0.1.1", "0.1.1")
RECORDS_02 = Layout("AIPerf", "0.2+ records", "0.13.0", "0.13.0")
SUMMARY_01 = Layout("AIPerf", "0.1 summary (`records`)", "0.1.1", "0.1.1")
SUMMARY_02 = Layout("AIPerf", "0.2+ summary (top-level metrics)", "0.13.0", "0.13.0")
# AIPerf record metrics and the cmpc metric each one is (AIPerf's ITL is cmpc's tpot).
SUMMARY_METRICS = {
    "ttft": "ttft",
    "time_to_first_token": "ttft",
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


def _seconds(metrics: Mapping, names: tuple[str, ...], where: str) -> float | None:
    """The first of `names` the record has (a time renamed between releases), in seconds by
    the unit the record states (ms when it states none)."""
    for name in names:
        value = _value(metrics, name, where)
        if value is not None:
            unit = str(metrics[name].get("unit", "ms"))
            if unit not in _UNIT_SCALE:
                raise TraceError(
                    f"`metrics.{name}.unit` {unit!r} is not a time unit", where, "E305"
                )
            return value * _UNIT_SCALE[unit]
    return None


def _ns(meta: Mapping, name: str, where: str) -> int | None:
    value = meta.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TraceError(f"`metadata.{name}` should be an integer (ns)", where, "E305")
    return value


# Record metrics kept under AIPerf's names and display units, for `tool_metrics`.
TOOL_METRICS = (
    "ttst",
    "time_to_second_token",
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
    cached: list[float | None] = []
    osl: list[float | None] = []
    ok: list[bool] = []
    extra: dict[str, list[float | None]] = {name: [] for name in TOOL_METRICS}
    wheres: list[str] = []
    first_ns: list[int] = []
    last_ns: list[int] = []
    old_layout = new_layout = streamed = False
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
        meta = object_at(doc, "metadata")
        phase = meta.get("benchmark_phase", meta.get("credit_phase"))
        if phase not in (None, "profiling"):
            continue  # warmup records are not part of the measurement
        metrics = mapping(doc.get("metrics", {}), f"{where}: `metrics`")
        wheres.append(where)
        if doc.get("error"):
            ok.append(False)
            for failed in (ttft, e2el, isl, cached, osl, *extra.values()):
                failed.append(np.nan)
            icl.add(None, where)
            continue
        ok.append(True)
        for name, values in extra.items():
            values.append(_value(metrics, name, where))
        ttft.append(_seconds(metrics, ("ttft", "time_to_first_token"), where))
        latency = _seconds(metrics, ("request_latency",), where)
        e2el.append(latency)
        isl.append(_value(metrics, "input_sequence_length", where))
        cached.append(_value(metrics, "usage_prompt_cache_read_tokens", where))
        out = _value(metrics, "output_sequence_length", where)
        if out is None:
            parts = [
                _value(metrics, k, where) for k in ("output_token_count", "reasoning_token_count")
            ]
            out = None if all(p is None for p in parts) else sum(p or 0 for p in parts)
        osl.append(out)
        start = _int_value(metrics, "min_request_timestamp", where)
        end = _int_value(metrics, "max_response_timestamp", where)
        old_layout = old_layout or start is not None or "ttft" in metrics
        new_layout = new_layout or "time_to_first_token" in metrics
        if start is None and "request_start_ns" in meta:
            # from 0.2 AIPerf's max response is the request timestamp + request latency (ns)
            new_layout = True
            start = _ns(meta, "request_start_ns", where)
            if start is not None and latency is not None:
                end = start + round(latency * 1e9)
        if start is None:
            start = _ns(meta, "timestamp_ns", where)
        if start is not None:
            first_ns.append(start)
        if end is not None:
            last_ns.append(end)
        streamed = streamed or "icl" in arrays or "inter_chunk_latency" in metrics
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

    def col(values: list[float | None]) -> np.ndarray | None:
        arr = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return None if np.all(np.isnan(arr)) else arr

    oks = np.array(ok)
    ragged = icl.finish()
    _require(oks, wheres, "e2el", e2el, "`metrics.request_latency`")
    _require(
        oks,
        wheres,
        "output tokens",
        osl,
        "`metrics.output_sequence_length` or `metrics.output_token_count`",
    )
    if streamed:  # a streamed run always has its first token timed
        _require(oks, wheres, "ttft", ttft, "`metrics.time_to_first_token` or `metrics.ttft`")
    if not first_ns or not last_ns:
        raise TraceError(
            "no record has `metadata.request_start_ns` with `metrics.request_latency`, or "
            "`metrics.min_request_timestamp` and `max_response_timestamp`: the fields the "
            "run's duration needs",
            wheres[0],
            "E321",
        )
    if new_layout:
        # AIPerf >= 0.2 folds the timestamps in float64 arrays before subtracting: the same
        # rounding (<= 256 ns at epoch scale) reproduces its `benchmark_duration` exactly
        duration = (float(max(last_ns)) - float(min(first_ns))) / 1e9
    else:
        duration = (max(last_ns) - min(first_ns)) / 1e9
    extras = {
        name: np.array([np.nan if v is None else v for v in vs]) for name, vs in extra.items()
    }
    requests = build_requests(
        oks,
        gaps=jsonscan.Ragged(ragged.values * _MS, ragged.counts) if gaps else None,
        labels=wheres,
        ttft=col(ttft),
        e2el=col(e2el),
        input_tokens=col(isl),
        cached_input_tokens=col(cached),
        output_tokens=col(osl),
        extra={name: v for name, v in extras.items() if not np.all(np.isnan(v))},
    )
    fields, version = sibling_fields(path)
    layout = RECORDS_02 if new_layout else RECORDS_01 if old_layout else None
    reading = Reading("AIPerf", layout, version)
    return [Run(path, fmt, 0, fields, requests=requests, duration_s=duration, reading=reading)]


def _require(
    ok: np.ndarray, wheres: list[str], metric: str, values: list[float | None], fields: str
) -> None:
    """E321 when no successful record holds a field a metric needs: never a silent null."""
    if any(v is not None and v == v for v, good in zip(values, ok, strict=True) if good):
        return
    first = wheres[int(np.flatnonzero(ok)[0])] if ok.any() else wheres[0]
    raise TraceError(f"no successful record has {fields}, the field {metric} needs", first, "E321")


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
    if "records" in doc or "aiperf_version" not in doc:
        records, prefix, layout = mapping(doc.get("records"), "`records`"), "records.", SUMMARY_01
    else:
        records, prefix, layout = doc, "", SUMMARY_02  # from 0.2 the metrics are at top level

    def avg(name: str) -> float | None:
        entry = records.get(name)
        if not isinstance(entry, dict):
            return None
        return number(entry.get("avg"), f"`{prefix}{name}.avg`", optional=True)

    latency = {}
    for tag, metric in SUMMARY_METRICS.items():
        entry = records.get(tag)
        if isinstance(entry, dict):
            latency[metric] = _stats(entry, _UNIT_SCALE.get(str(entry.get("unit")), _MS))
    duration = avg("benchmark_duration")
    if duration is not None:
        duration = duration_of(duration, f"`{prefix}benchmark_duration.avg`")
    isl, osl = avg("total_isl"), avg("total_osl")
    succeeded, failed = avg("request_count"), avg("error_request_count") or 0.0

    def rate(value: float | None) -> float | None:
        return None if value is None or not duration else value / duration

    published = Published(
        total=None if succeeded is None else int(succeeded + failed),
        succeeded=None if succeeded is None else int(succeeded),
        failed=int(failed),
        input_tokens=isl,
        cached_input_tokens=avg("total_usage_prompt_cache_read_tokens"),
        output_tokens=osl,
        throughput={
            "requests": avg("request_throughput"),
            "output": avg("output_token_throughput"),
            "input": avg("input_token_throughput") or rate(isl),
            "total": avg("total_token_throughput")
            or rate(None if isl is None or osl is None else isl + osl),
        },
        latency=latency,
    )
    reading = Reading("AIPerf", layout, _version(doc))
    return [
        Run(
            path,
            fmt,
            0,
            config_fields(doc),
            published=published,
            duration_s=duration,
            reading=reading,
        )
    ]


def _version(doc: Mapping) -> str | None:
    version = doc.get("aiperf_version")
    return version if isinstance(version, str) else None


def config_fields(doc: Mapping) -> dict:
    """Run identity from a summary's `input_config`: concurrency, request rate, model."""
    config = object_at(doc, "input_config")
    loadgen = object_at(config, "loadgen")
    endpoint = object_at(config, "endpoint")
    fields = pick_fields(loadgen, ("concurrency", "request_rate"), {"concurrency": "conc"})
    models = endpoint.get("model_names")
    if isinstance(models, list) and models and isinstance(models[0], str):
        fields["model"] = models[0]
    # from 0.2: `phases[].concurrency|request_rate` and `models.items[].name`
    phases = config.get("phases")
    profiling = [p for p in phases if isinstance(p, dict)] if isinstance(phases, list) else []
    profiling = [p for p in profiling if p.get("kind", p.get("name")) == "profiling"]
    if profiling:
        for key, value in pick_fields(
            profiling[0], ("concurrency", "request_rate"), {"concurrency": "conc"}
        ).items():
            fields.setdefault(key, value)
    items = object_at(config, "models").get("items")
    if "model" not in fields and isinstance(items, list) and items and isinstance(items[0], dict):
        name = items[0].get("name")
        if isinstance(name, str):
            fields["model"] = name
    return fields


def sibling_fields(path: str) -> tuple[dict, str | None]:
    """Fields and the AIPerf version from the `profile_export_aiperf.json` AIPerf writes
    beside the records, if any."""
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
                return {}, None  # the sibling is optional context; the records stand alone
            if not isinstance(doc, dict):
                return {}, None
            return config_fields(doc), _version(doc)
    return {}, None


def read(path: str, fmt: str, *, gaps: bool = True) -> list[Run]:
    if fmt == "aiperf-summary":
        return read_summary(path, fmt)
    return read_records(path, fmt, gaps=gaps)
