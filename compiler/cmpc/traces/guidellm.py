"""GuideLLM `benchmarks.json`: one run per benchmark, per-request start/first/last/end times."""

from __future__ import annotations

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, duration_of, mapping, number, object_at
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import Run

NAME = "guidellm"
# <= 0.3 (`generative_benchmark`, flat per-request times) was proved on the shared oracle file,
# which states no version; >= 0.4 (`info.timings`, `metadata.guidellm_version`) on 0.8.1.
FLAT = Layout("GuideLLM", "<= 0.3 (flat request times)", "0.2.0", "0.3.99")
TIMINGS = Layout("GuideLLM", ">= 0.4 (`info.timings`, measured window)", "0.8.1", "0.8.1")
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
    if "cached_tokens" not in out:
        out["cached_tokens"] = object_at(item, "input_metrics").get("cached_tokens")
    return out


_COLUMNS = (
    "start_time",
    "end_time",
    "first_token_time",
    "last_token_time",
    "prompt_tokens",
    "cached_tokens",
    "output_tokens",
)
_NEEDED = {  # a column every successful request of the layout has, and the metric it feeds
    "start_time": "ttft and e2el",
    "end_time": "e2el",
    "output_tokens": "tpot and output tokens",
}


def _window(bench: dict, where: str) -> tuple[float, float] | None:
    """GuideLLM >= 0.4's measured window (after warm-up, before cool-down), if stated."""
    metrics = object_at(bench, "scheduler_metrics")
    low, high = metrics.get("measure_start_time"), metrics.get("measure_end_time")
    if low is None or high is None:
        return None
    return (
        float(number(low, f"`{where}.scheduler_metrics.measure_start_time`") or 0.0),
        float(number(high, f"`{where}.scheduler_metrics.measure_end_time`") or 0.0),
    )


def _overlaps(start: np.ndarray, end: np.ndarray, window: tuple[float, float]) -> np.ndarray:
    """GuideLLM's `get_within_range(closed=False)`: an event with a known end that overlaps."""
    low, high = window
    with np.errstate(invalid="ignore"):
        return ~np.isnan(end) & (end >= low) & (np.where(np.isnan(start), end, start) <= high)


def _benchmark(path: str, fmt: str, index: int, bench: dict, version: str | None) -> Run:
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
    cols = {k: np.full(n, np.nan) for k in _COLUMNS}
    ok = np.zeros(n, dtype=bool)
    flat = timed = False
    for i, (good, item, rwhere) in enumerate(rows):
        item = mapping(item, f"`{rwhere}`")
        flat = flat or "start_time" in item
        timed = timed or "timings" in object_at(item, "info")
        item = _flatten(item)
        ok[i] = good
        for key in _COLUMNS:
            optional = not good or key in ("cached_tokens", "last_token_time")
            value = number(item.get(key), f"`{rwhere}.{key}`", optional=optional)
            if value is not None:
                cols[key][i] = value
    for key, metric in _NEEDED.items():
        if n and ok.any() and np.all(np.isnan(cols[key][ok])):
            raise TraceError(
                f"no successful request has `{key}`, the field {metric} needs", where, "E321"
            )
    window = _window(bench, where) if timed else None
    start, end, first = cols["start_time"], cols["end_time"], cols["first_token_time"]
    only: dict[str, np.ndarray] = {}
    if window is not None:
        # the tool's summary covers only the requests overlapping the measured window; TTFT
        # only those whose [start, first token], ITL those whose [first token, end] overlap
        keep = _overlaps(start, end, window)
        cols = {k: v[keep] for k, v in cols.items()}
        ok = ok[keep]
        start, end, first = cols["start_time"], cols["end_time"], cols["first_token_time"]
        only = {"ttft": _overlaps(start, first, window), "tpot": _overlaps(first, end, window)}
        only["tpot"] &= ~np.isnan(first)
    origin = np.nanmin(start) if start.size and not np.all(np.isnan(start)) else 0.0
    out = cols["output_tokens"]
    last = np.where(np.isnan(cols["last_token_time"]), end, cols["last_token_time"])
    with np.errstate(invalid="ignore", divide="ignore"):
        # GuideLLM's own per-request figures (its summary weights them by tokens; docs/traces.md)
        itl = np.where(out > 1, (last - first) / (out - 1), np.nan)
        tpot_with_ttft = np.where(out > 0, (last - start) / out, np.nan)
    if "tpot" in only:
        itl = np.where(only["tpot"], itl, np.nan)
    cached = cols["cached_tokens"]
    requests = build_requests(
        ok,
        start=start - origin,
        ttft=first - start,
        e2el=end - start,
        input_tokens=cols["prompt_tokens"],
        cached_input_tokens=None if np.all(np.isnan(cached[ok])) else cached,
        output_tokens=out,
        extra={"inter_token_latency_s": itl, "time_per_output_token_s": tpot_with_ttft}
        if timed
        else {},
        only=only,
    )
    duration = duration_of(bench.get("duration"), f"`{where}.duration`")
    if duration is None and "start_time" in bench and "end_time" in bench:
        elapsed = number(bench["end_time"], where) - number(bench["start_time"], where)
        duration = duration_of(elapsed, f"`{where}.end_time` - `{where}.start_time`")
    fields: dict = {}
    args = object_at(bench, "args")
    strategy = object_at(args, "strategy") or object_at(object_at(bench, "config"), "strategy")
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
    layout = TIMINGS if timed and not flat else FLAT if flat and not timed else None
    reading = Reading("GuideLLM", layout, version)
    return Run(
        path,
        fmt,
        index,
        fields,
        requests=requests,
        duration_s=duration,
        record=where,
        reading=reading,
    )


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = mapping(jsonscan.read_document(path), "the document")
    benches = doc.get("benchmarks")
    if not isinstance(benches, list) or not benches:
        raise TraceError("`benchmarks` should be a non-empty list", "`benchmarks`", "E305")
    version = object_at(doc, "metadata").get("guidellm_version")
    stated = version if isinstance(version, str) else None
    return [
        _benchmark(path, fmt, i, mapping(b, f"`benchmarks[{i}]`"), stated)
        for i, b in enumerate(benches)
    ]
