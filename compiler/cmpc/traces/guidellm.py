"""GuideLLM `benchmarks.json`: one run per benchmark, per-request start/first/last/end times."""

from __future__ import annotations

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Run

NAME = "guidellm"
_GROUPS = ("successful", "errored", "incomplete")


# GuideLLM >= 0.4 writes `request_start_time`/`request_end_time` and keeps the token times in
# `info.timings`; older versions write flat `start_time`, `first_token_time`, ...
_TIMINGS = {
    "start_time": "request_start",
    "end_time": "request_end",
    "first_token_time": "first_token_iteration",
    "last_token_time": "last_token_iteration",
}
_RENAMED = {"start_time": "request_start_time", "end_time": "request_end_time"}


def _flatten(item: dict) -> dict:
    """The per-request times and token counts under the names of GuideLLM <= 0.3."""
    if "start_time" in item:
        return item
    info = object_at(item, "info")
    timings = object_at(info, "timings")
    out = dict(item)
    for old, new in _TIMINGS.items():
        value = item.get(_RENAMED.get(old, ""), timings.get(new))
        if value is not None:
            out[old] = value
    return out


def _benchmark(path: str, fmt: str, index: int, bench: dict) -> Run:
    where = f"benchmarks[{index}]"
    groups = mapping(bench.get("requests"), f"`{where}.requests`")
    rows: list[tuple[bool, dict, str]] = []
    for group in _GROUPS:
        items = groups.get(group) or []
        if not isinstance(items, list):
            raise TraceError(f"`{where}.requests.{group}` should be a list", where, "E305")
        for i, item in enumerate(items):
            rows.append((group == "successful", item, f"{where}.requests.{group}[{i}]"))
    n = len(rows)
    names = (
        "start_time",
        "end_time",
        "first_token_time",
        "last_token_time",
        "prompt_tokens",
        "output_tokens",
    )
    cols = {k: np.full(n, np.nan) for k in names}
    ok = np.zeros(n, dtype=bool)
    for i, (good, item, rwhere) in enumerate(rows):
        item = _flatten(mapping(item, f"`{rwhere}`"))
        ok[i] = good
        for key in names:
            value = number(item.get(key), f"`{rwhere}.{key}`", optional=not good)
            if value is not None:
                cols[key][i] = value
    start = cols["start_time"]
    origin = np.nanmin(start) if n and not np.all(np.isnan(start)) else 0.0
    requests = build_requests(
        ok,
        start=start - origin,
        ttft=cols["first_token_time"] - start,
        e2el=cols["end_time"] - start,
        input_tokens=cols["prompt_tokens"],
        output_tokens=cols["output_tokens"],
    )
    duration = duration_of(bench.get("duration"), f"`{where}.duration`")
    if duration is None and "start_time" in bench and "end_time" in bench:
        elapsed = number(bench["end_time"], where) - number(bench["start_time"], where)
        duration = duration_of(elapsed, f"`{where}.end_time` - `{where}.start_time`")
    fields: dict = {}
    args = object_at(bench, "args")
    strategy = object_at(args, "strategy")
    if isinstance(strategy.get("type_"), str):
        fields["strategy"] = strategy["type_"]
    for key, name in (
        ("rate", "request_rate"),
        ("max_concurrency", "max_concurrency"),
        ("streams", "conc"),
    ):
        value = strategy.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            fields[name] = value
    worker = object_at(bench, "worker")
    if isinstance(worker.get("backend_model"), str):
        fields["model"] = worker["backend_model"]
    return Run(path, fmt, index, fields, requests=requests, duration_s=duration, record=where)


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = mapping(jsonscan.read_document(path), "the document")
    benches = doc.get("benchmarks")
    if not isinstance(benches, list) or not benches:
        raise TraceError("`benchmarks` should be a non-empty list", "`benchmarks`", "E305")
    return [
        _benchmark(path, fmt, i, mapping(b, f"`benchmarks[{i}]`")) for i, b in enumerate(benches)
    ]
