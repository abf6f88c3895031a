"""MLPerf Inference LoadGen logs: `mlperf_log_summary.txt` and `mlperf_log_detail.txt`.

Aggregate-only: LoadGen keeps no per-query record in these files, so its own figures are
carried over (nanoseconds to seconds) with the scenario, the validity and, for Server, the
TTFT/TPOT constraints it was held to. The accelerator count comes from the submission's
`systems/<system>.json` when the log sits in a submission tree (`results/<system>/...`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from cmpc.diagnostics import Diagnostic, warning
from cmpc.traces import jsonscan, readpass
from cmpc.traces.common import mapping, number
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import FieldValue, Published, Run

NAME = "mlperf"
READS_BESIDE = True  # the submission's systems JSON, within the spec's folder
SUMMARY = Layout("LoadGen", "mlperf_log_summary.txt", "6.0.17", "6.0.17")
DETAIL = Layout("LoadGen", "mlperf_log_detail.txt", "6.0.17", "6.0.17")
NS = 1e-9
_MLLOG = ":::MLLOG "
# summary line label (lower case, unit stripped) -> (metric, statistic)
_SUMMARY_STATS = {
    "min latency": ("e2el", "min"),
    "max latency": ("e2el", "max"),
    "mean latency": ("e2el", "mean"),
    "min first token latency": ("ttft", "min"),
    "max first token latency": ("ttft", "max"),
    "mean first token latency": ("ttft", "mean"),
    "min time per output token": ("tpot", "min"),
    "max time per output token": ("tpot", "max"),
    "mean time per output token": ("tpot", "mean"),
}
_SUMMARY_PERCENTILE = re.compile(
    r"^(\d+(?:\.\d+)?) percentile (latency|first token latency|time to output token)$"
)
_SUMMARY_METRIC = {
    "latency": "e2el",
    "first token latency": "ttft",
    "time to output token": "tpot",
}
# detail key -> (metric, statistic)
_DETAIL_STATS = {
    "result_min_latency_ns": ("e2el", "min"),
    "result_max_latency_ns": ("e2el", "max"),
    "result_mean_latency_ns": ("e2el", "mean"),
    "result_first_token_min_latency_ns": ("ttft", "min"),
    "result_first_token_max_latency_ns": ("ttft", "max"),
    "result_first_token_mean_latency_ns": ("ttft", "mean"),
    "result_time_to_output_token_min": ("tpot", "min"),
    "result_time_to_output_token_max": ("tpot", "max"),
    "result_time_to_output_token_mean": ("tpot", "mean"),
}
_DETAIL_PERCENTILE = re.compile(
    r"^result_(first_token_|time_per_output_token_)?(\d+(?:\.\d+)?)_percentile_(?:latency_)?ns$"
)
_DETAIL_METRIC = {"": "e2el", "first_token_": "ttft", "time_per_output_token_": "tpot"}
# samples/s and tokens/s: Server writes "completed", Offline and the others do not
_SUMMARY_RATES = {
    "completed samples per second": "requests",
    "samples per second": "requests",
    "completed tokens per second": "output",
    "tokens per second": "output",
}
_DETAIL_RATES = {
    "result_completed_samples_per_sec": "requests",
    "result_samples_per_second": "requests",
    "result_completed_tokens_per_second": "output",
    "result_tokens_per_second": "output",
}
_SUMMARY_FIELDS = {
    "sut name": "sut_name",
    "scenario": "scenario",
    "mode": "mode",
    "result is": "result_validity",
    "performance constraints satisfied": "performance_constraints_met",
    "min duration satisfied": "min_duration_met",
    "min queries satisfied": "min_queries_met",
    "early stopping satisfied": "early_stopping_met",
}
_DETAIL_FIELDS = {
    "sut_name": "sut_name",
    "effective_scenario": "scenario",
    "effective_test_mode": "mode",
    "result_validity": "result_validity",
    "result_perf_constraints_met": "performance_constraints_met",
    "result_min_duration_met": "min_duration_met",
    "result_min_queries_met": "min_queries_met",
    "early_stopping_met": "early_stopping_met",
}


def read(path: str, fmt: str = NAME, root: str | None = None) -> list[Run]:
    head = readpass.head(path, 4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    detail = head.startswith(_MLLOG.encode())
    run = _read_detail(path, fmt) if detail else _read_summary(path, fmt)
    return [_with_system(run, root)]


def _read_summary(path: str, fmt: str) -> Run:
    limit = jsonscan.record_limit()
    with readpass.open_input(path) as handle:  # the build's one read of it, hashed on the way
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TraceError(f"the summary is over {limit} bytes", "the document", "E301")
    text = data.decode("utf-8")
    fields: dict[str, FieldValue] = {}
    latency: dict[str, dict[str, float]] = {}
    rates: dict[str, float | None] = {}
    params: dict[str, float] = {}
    section = "results"
    for number_, line in enumerate(text.splitlines(), 1):
        if line.strip() == "Test Parameters Used":
            section = "parameters"
        label, sep, value = line.partition(":")
        if not sep or not value.strip():
            continue
        where = f"line {number_}"
        unit = re.search(r"\((ns|ms)\)\s*$", label)
        key = re.sub(r"\s*\((ns|ms)\)\s*$", "", label).strip().lower()
        value = value.strip()
        if section == "parameters":
            params[key] = _summary_number(value, where)
            continue
        if key in _SUMMARY_FIELDS:
            fields[_SUMMARY_FIELDS[key]] = _flag(value)
        elif key in _SUMMARY_RATES and unit is None:
            rates.setdefault(_SUMMARY_RATES[key], _summary_number(value, where))
        elif key in _SUMMARY_STATS:
            metric, stat = _SUMMARY_STATS[key]
            latency.setdefault(metric, {})[stat] = _summary_number(value, where) * NS
        elif match := _SUMMARY_PERCENTILE.match(key):
            metric = _SUMMARY_METRIC[match.group(2)]
            latency.setdefault(metric, {})[_pkey(match.group(1))] = (
                _summary_number(value, where) * NS
            )
    if "scenario" not in fields:
        raise TraceError(
            "the summary names no `Scenario`, which every LoadGen summary states",
            "the document",
            "E321",
        )
    _constraints(fields, params.get("ttft_latency"), params.get("tpot_latency"))
    if fields.get("scenario") == "Server" and "target_qps" in params:
        fields["target_qps"] = params["target_qps"]
    published = Published(throughput=rates, latency=latency)
    return Run(path, fmt, 0, fields, published=published, reading=Reading("LoadGen", SUMMARY))


def _read_detail(path: str, fmt: str) -> Run:
    values: dict[str, object] = {}
    for where, raw in jsonscan.records(path):
        text = raw.decode("utf-8").strip()
        if not text.startswith(_MLLOG):
            continue  # LoadGen writes only MLLOG lines; anything else carries no figure
        entry = mapping(jsonscan.loads(text[len(_MLLOG) :].encode()), where)
        key = entry.get("key")
        if isinstance(key, str) and "value" in entry:
            values.setdefault(key, entry["value"])
            values.setdefault(f"{key}@", where)  # where the first value was logged
    if "effective_scenario" not in values:
        raise TraceError(
            "the detail log has no `effective_scenario` entry, which LoadGen logs at the start",
            "the document",
            "E321",
        )
    fields: dict[str, FieldValue] = {}
    for key, name in _DETAIL_FIELDS.items():
        if key in values:
            fields[name] = _flag(values[key])
    latency: dict[str, dict[str, float]] = {}
    rates: dict[str, float | None] = {}
    for key, value in values.items():
        if key.endswith("@"):
            continue
        where = f"{values[key + '@']} `{key}`"
        if key in _DETAIL_RATES:
            rates.setdefault(_DETAIL_RATES[key], number(value, where))
        elif key in _DETAIL_STATS:
            metric, stat = _DETAIL_STATS[key]
            latency.setdefault(metric, {})[stat] = number(value, where) * NS
        elif match := _DETAIL_PERCENTILE.match(key):
            metric = _DETAIL_METRIC[match.group(1) or ""]
            latency.setdefault(metric, {})[_pkey(match.group(2))] = number(value, where) * NS
    samples = _samples(values)
    if samples is not None:
        for metric in ("e2el", "ttft"):  # one latency and one first token per sample
            if metric in latency:
                latency[metric]["n"] = samples
    ttft = values.get("requested_server_ttft_latency")
    tpot = values.get("requested_server_tpot_latency")
    _constraints(
        fields,
        None if ttft is None else number(ttft, "`requested_server_ttft_latency`"),
        None if tpot is None else number(tpot, "`requested_server_tpot_latency`"),
    )
    qps = values.get("effective_target_qps")
    if fields.get("scenario") == "Server" and qps is not None:
        fields["target_qps"] = number(qps, "`effective_target_qps`")
    version = values.get("loadgen_version")
    stated = version.split(" @ ")[0].strip() if isinstance(version, str) else None
    if stated:
        fields["loadgen_version"] = stated
    published = Published(
        total=samples,
        succeeded=samples,
        throughput=rates,
        latency=latency,
    )
    reading = Reading("LoadGen", DETAIL, stated)
    return Run(path, fmt, 0, fields, published=published, reading=reading)


_CHECKS = (
    ("performance_constraints_met", "performance constraints"),
    ("min_duration_met", "min duration"),
    ("min_queries_met", "min queries"),
    ("early_stopping_met", "early stopping"),
)


def run_warnings(run: Run) -> list[Diagnostic]:
    """W322 for a result LoadGen itself called INVALID, naming the checks that failed."""
    if run.fields.get("result_validity") != "INVALID":
        return []
    failed = [label for key, label in _CHECKS if run.fields.get(key) == "no"]
    return [
        warning(
            "W322",
            f"`{run.path}`: LoadGen marked this {run.fields.get('scenario', '')} result INVALID"
            + (f" ({', '.join(failed)} not satisfied)" if failed else ""),
            file=run.path,
            help="an INVALID run is not a publishable MLPerf result: rerun until LoadGen "
            "reports VALID, or say in the report why it is shown",
        )
    ]


def _samples(values: Mapping[str, object]) -> int | None:
    """Samples LoadGen issued and saw completed: queries × samples per query (it ends a run
    only once every issued sample has completed)."""
    queries = values.get("result_query_count")
    per_query = values.get("effective_samples_per_query")
    if isinstance(queries, int) and isinstance(per_query, int) and queries >= 0:
        return queries * per_query
    return None


def _constraints(
    fields: dict[str, FieldValue], ttft_ns: float | None, tpot_ns: float | None
) -> None:
    """The TTFT/TPOT bounds of a Server run (in ms); other scenarios are not held to them."""
    if fields.get("scenario") != "Server":
        return
    if ttft_ns is not None:
        fields["ttft_constraint_ms"] = ttft_ns / 1e6
    if tpot_ns is not None:
        fields["tpot_constraint_ms"] = tpot_ns / 1e6


def _pkey(percentile: str) -> str:
    """`99.90` as `p99.9`, `50.00` as `p50`: cmpc's statistic keys."""
    value = float(percentile)
    return f"p{int(value)}" if value.is_integer() else f"p{value:g}"


def _summary_number(value: str, where: str) -> float:
    try:
        out = float(value.split()[0])
    except (ValueError, IndexError):
        found = f"{where} should end in a number, found {value[:30]!r}"
        raise TraceError(found, where, "E305") from None
    return number(out, where)


def _flag(value: object) -> FieldValue:
    """`Yes`/`NO`/booleans as `yes`/`no`; text as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        text = value.strip()
        return text.lower() if text.lower() in ("yes", "no") else text
    if isinstance(value, int | float):
        return value
    return None


# ---------------------------------------------------------------------------------------------
# the submission's systems/<system>.json


def system_file(path: str, root: str | None = None) -> str | None:
    """`<submission>/systems/<system>.json` for a log under `<submission>/results/<system>/`,
    when it is a file inside `root` (default: the submission folder); else None."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "results" and i + 1 < len(parts) - 1:
            submission = os.sep.join(parts[:i])
            found = os.path.join(submission, "systems", parts[i + 1] + ".json")
            if not os.path.isfile(found) or not _inside(found, submission):
                return None
            if root is not None and not _inside(found, root):
                return None  # nothing outside the spec's folder is read
            return found
    return None


def _with_system(run: Run, root: str | None) -> Run:
    found = system_file(run.path, root)
    if found is None:
        return run
    doc = mapping(jsonscan.read_document(found), f"`{found}`")
    per_node = _count(doc.get("accelerators_per_node"))
    nodes = _count(doc.get("number_of_nodes"))
    if per_node is None:
        return run
    gpus = per_node * (nodes or 1)
    fields = dict(run.fields)
    fields["num_gpus"] = gpus
    fields["system_name"] = os.path.splitext(os.path.basename(found))[0]
    name = doc.get("accelerator_model_name")
    if isinstance(name, str) and name.strip():
        fields["accelerator"] = name.strip()
    pub = run.published or Published()
    output = pub.throughput.get("output")
    per_gpu = {"output": None if output is None else output / gpus}
    published = Published(
        total=pub.total,
        succeeded=pub.succeeded,
        failed=pub.failed,
        throughput=pub.throughput,
        latency=pub.latency,
        per_gpu=per_gpu,
        num_gpus=float(gpus),
    )
    return Run(run.path, run.format, run.index, fields, published=published, reading=run.reading)


def _count(value: object) -> int | None:
    """A positive count: an integer, or a string of digits (submitters write both)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def _inside(path: str, folder: str) -> bool:
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
