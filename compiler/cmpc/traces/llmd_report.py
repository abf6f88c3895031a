"""llm-d Benchmark Report v0.2 / v0.2.1 (YAML or JSON): aggregate figures and the deployment.

Aggregate-only: `results.request_performance.aggregate` is carried over (ms to s), and the
accelerators of `scenario.stack` (each inference engine's `accelerator.count` per replica
× `replicas`) give the per-GPU throughputs. YAML is parsed by PyYAML's safe loader with
aliases refused (no billion laughs) and the size bounded like every other document.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

import yaml  # this module is imported only to read a report: `cmpc check` never loads it

from cmpc.traces import jsonscan, readpass
from cmpc.traces.common import mapping, number, object_at
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import FieldValue, Published, Run

NAME = "llmd-report"
REPORT = Layout("llm-d Benchmark Report", "v0.2", "0.2", "0.2.1")
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "s/token": 1.0, "ms/token": 1e-3}
# BR latency name -> cmpc metric, where the definitions agree for every producer; its
# `time_per_output_token` and `inter_token_latency` are each tool's own (the schema says so)
_LATENCY = {
    "time_to_first_token": "ttft",
    "request_latency": "e2el",
    "normalized_time_per_output_token": "e2e_per_token",
}
# producers whose TPOT and ITL are vLLM's `vllm bench serve` figures (llm-d-benchmark's importers
# copy `*_tpot_ms` and `*_itl_ms`): (latency − ttft)/(n − 1) = cmpc's tpot, and the pooled
# chunk gaps = cmpc's chunk_gap
_VLLM_LIKE = {"time_per_output_token": "tpot", "inter_token_latency": "chunk_gap"}
_BY_TOOL = {"vllm-benchmark": _VLLM_LIKE, "inferencemax": _VLLM_LIKE}
_THROUGHPUT = {
    "request_rate": "requests",
    "input_token_rate": "input",
    "output_token_rate": "output",
    "total_token_rate": "total",
}
_PERCENTILE = re.compile(r"^[pP](\d+)(?:p(\d+))?$")  # p50, p99p9 (= p99.9), p0p1, P25


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = mapping(_document(path), "the document")
    version = doc.get("version")
    stated = str(version) if isinstance(version, str | int | float) else None
    results = object_at(doc, "results")
    aggregate = object_at(object_at(results, "request_performance"), "aggregate")
    if not aggregate:
        raise TraceError(
            "the report has no `results.request_performance.aggregate`, where a benchmark "
            "report keeps its figures",
            "the document",
            "E321",
        )
    requests = object_at(aggregate, "requests")
    where = "`results.request_performance.aggregate"
    total = _int(requests.get("total"), f"{where}.requests.total`")
    failed = _int(requests.get("failures"), f"{where}.requests.failures`")
    incomplete = _int(requests.get("incomplete"), f"{where}.requests.incomplete`")
    succeeded = None
    if total is not None and failed is not None:
        succeeded = total - failed - (incomplete or 0)
    latency: dict[str, dict[str, float]] = {}
    tool = object_at(object_at(object_at(doc, "scenario"), "load"), "standardized").get("tool")
    names = _LATENCY | _BY_TOOL.get(tool if isinstance(tool, str) else "", {})
    for name, metric in names.items():
        entry = object_at(aggregate, "latency").get(name)
        if isinstance(entry, dict):
            latency[metric] = _stats(entry, f"{where}.latency.{name}`")
    throughput: dict[str, float | None] = {}
    for name, basis in _THROUGHPUT.items():
        entry = object_at(aggregate, "throughput").get(name)
        if isinstance(entry, dict):
            throughput[basis] = number(entry.get("mean"), f"{where}.throughput.{name}.mean`")
    fields = _fields(doc)
    gpus = _accelerators(object_at(doc, "scenario"))
    per_gpu: dict[str, float | None] = {}
    if gpus:
        fields["num_gpus"] = gpus
        for basis in ("total", "output", "input"):
            rate = throughput.get(basis)
            per_gpu[basis] = None if rate is None else rate / gpus
    published = Published(
        total=total,
        succeeded=succeeded,
        failed=failed,
        throughput=throughput,
        latency=latency,
        per_gpu=per_gpu,
        num_gpus=float(gpus) if gpus else None,
    )
    reading = Reading("llm-d Benchmark Report", REPORT, stated)
    return [Run(path, fmt, 0, fields, published=published, reading=reading)]


def _document(path: str) -> Any:
    limit = jsonscan.record_limit()
    with readpass.open_input(path) as handle:  # the build's one read of it, hashed on the way
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TraceError(f"the report is over {limit} bytes", "the document", "E301")
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return jsonscan.loads(data)
    return _yaml(data.decode("utf-8"))


class _NoAliases(yaml.SafeLoader):
    """The safe loader, refusing aliases: an alias can expand a small file without bound."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            line = self.peek_event().start_mark.line + 1
            raise TraceError(
                "the YAML uses an alias (`*name`), which cmpc does not expand",
                f"line {line}",
                "E301",
            )
        return super().compose_node(parent, index)


def _yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_NoAliases)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f"line {mark.line + 1}" if mark is not None else "the document"
        raise TraceError(f"not valid YAML ({exc.problem})", line, "E301") from None
    except yaml.YAMLError as exc:
        raise TraceError(f"not valid YAML ({exc})", "the document", "E301") from None


def _stats(entry: Mapping, where: str) -> dict[str, float]:
    """BR statistics in seconds: `mean`, `stddev` (as `std`), `min`, `max`, `pNN`."""
    units = entry.get("units")
    scale = _TIME_UNITS.get(units) if isinstance(units, str) else None
    if scale is None:
        raise TraceError(f"{where} has units {units!r}, not a time unit", where, "E305")
    out: dict[str, float] = {}
    for key, value in entry.items():
        name = {"stddev": "std"}.get(key, key)
        match = _PERCENTILE.match(key)
        if match:
            name = f"p{match.group(1)}" + (f".{match.group(2)}" if match.group(2) else "")
        elif name not in ("mean", "std", "min", "max"):
            continue
        out[name] = number(value, f"{where}.{key}") * scale
    return out


def _int(value: object, where: str) -> int | None:
    count = number(value, where, optional=True)
    return None if count is None else int(count)


def _accelerators(scenario: Mapping) -> int | None:
    """Σ accelerator.count × replicas over the stack's inference engines (llm-d-benchmark
    writes the count of one replica: tp × dp_local); None if no engine states a count."""
    stack = scenario.get("stack")
    if not isinstance(stack, list):
        return None
    total = 0
    for i, component in enumerate(stack):
        standard = object_at(mapping(component, f"`scenario.stack[{i}]`"), "standardized")
        if standard.get("kind") != "inference_engine":
            continue
        where = f"`scenario.stack[{i}].standardized"
        count = _int(object_at(standard, "accelerator").get("count"), f"{where}.accelerator.count`")
        replicas = _int(standard.get("replicas"), f"{where}.replicas`")
        if count is None:
            return None
        total += count * (1 if replicas is None else replicas)
    return total or None


def _fields(doc: Mapping) -> dict[str, FieldValue]:
    """The run's identity: version, run ids, the load and each engine's parallelism."""
    out: dict[str, FieldValue] = {}
    version = doc.get("version")
    if isinstance(version, str | int | float) and not isinstance(version, bool):
        out["br_version"] = str(version)
    run = object_at(doc, "run")
    for key in ("uid", "eid"):
        if isinstance(run.get(key), str):
            out[f"run_{key}"] = run[key]
    start = object_at(run, "time").get("start")
    if isinstance(start, str | datetime.datetime):
        out["run_start"] = start if isinstance(start, str) else start.isoformat()
    scenario = object_at(doc, "scenario")
    load = object_at(object_at(scenario, "load"), "standardized")
    for key in ("tool", "tool_version", "stage", "rate_qps", "concurrency"):
        value = load.get(key)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            out[f"load_{key}" if key.startswith("tool") else key] = value
    stack = scenario.get("stack")
    engines = [
        object_at(c, "standardized")
        for c in (stack if isinstance(stack, list) else [])
        if isinstance(c, dict) and object_at(c, "standardized").get("kind") == "inference_engine"
    ]
    for engine in engines:
        role = engine.get("role")
        prefix = f"{role}_" if len(engines) > 1 and isinstance(role, str) else ""
        accelerator = object_at(engine, "accelerator")
        if isinstance(accelerator.get("model"), str):
            out[f"{prefix}accelerator"] = accelerator["model"]
        if isinstance(engine.get("replicas"), int):
            out[f"{prefix}replicas"] = engine["replicas"]
        parallelism = object_at(accelerator, "parallelism")
        for key in ("tp", "pp", "dp", "dp_local", "ep", "workers"):
            if isinstance(parallelism.get(key), int) and not isinstance(parallelism[key], bool):
                out[f"{prefix}{key}"] = parallelism[key]
        if isinstance(object_at(engine, "model").get("name"), str) and not prefix:
            out["model"] = engine["model"]["name"]
    return out
