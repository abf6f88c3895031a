"""InferenceX aggregate rows (flat `agg_*.json`, API rows, AgentX v3): published values only."""

from __future__ import annotations

import re
from collections.abc import Mapping

from cmpc.traces import jsonscan
from cmpc.traces.common import mapping, number, object_at
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Published, Run

NAME = "inferencex"
# InferenceX fixed-sequence rows: `itl` is vLLM's pooled chunk gap; AgentX `itl` is per request.
_FIXED = {"ttft": "ttft", "tpot": "tpot", "itl": "chunk_gap", "e2el": "e2el"}
_STAT = re.compile(r"^(mean|median|std|min|max|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)$")
FIELDS = (
    "hw",
    "conc",
    "model",
    "infmax_model_prefix",
    "framework",
    "precision",
    "spec_decoding",
    "disagg",
    "is_multinode",
    "isl",
    "osl",
    "tp",
    "pp",
    "dcp_size",
    "pcp_size",
    "ep",
    "dp_attention",
    "image",
    "date",
    "recipe_fingerprint",
    "scenario_type",
    "kv_offloading",
    "benchmark_type",
    "num_prefill_gpu",
    "num_decode_gpu",
    "prefill_tp",
    "decode_tp",
    "prefill_ep",
    "decode_ep",
    "run_url",
    "id",
)
_RENAME = {"hardware": "hw", "spec_method": "spec_decoding"}


def _rows(doc: object) -> list[tuple[str, Mapping]]:
    if isinstance(doc, list):
        return [(f"[{i}]", mapping(r, f"`[{i}]`")) for i, r in enumerate(doc)]
    doc = mapping(doc, "the document")
    for key in ("benchmarks", "sample_rows", "rows", "data"):
        if isinstance(doc.get(key), list):
            return [(f"{key}[{i}]", mapping(r, f"`{key}[{i}]`")) for i, r in enumerate(doc[key])]
    return [("", doc)]


def _flat(row: Mapping) -> dict:
    """A row with API `metrics` merged into the top level (API rows nest them)."""
    out = dict(row)
    if isinstance(row.get("metrics"), dict):
        out.update(row["metrics"])
    for old, new in _RENAME.items():
        if old in out and new not in out:
            out[new] = out[old]
    return out


def _num(row: Mapping, key: str, where: str) -> float | None:
    value = row.get(key)
    if isinstance(value, bool) or value is None:
        return None
    return number(value, f"`{where}.{key}`" if where else f"`{key}`")


def _gpus(row: Mapping, where: str) -> float | None:
    """tp·pp·pcp on one node (DCP, EP, DP-attention add no GPUs); both pools if disaggregated."""
    given = _num(row, "num_gpus", where)
    if given:
        return given
    if row.get("disagg") is True or row.get("is_multinode") is True:
        pre, dec = _num(row, "num_prefill_gpu", where), _num(row, "num_decode_gpu", where)
        return None if pre is None or dec is None else pre + dec
    tp = _num(row, "tp", where) or _num(row, "decode_tp", where) or _num(row, "prefill_tp", where)
    if tp is None:
        return None
    return tp * (_num(row, "pp", where) or 1) * (_num(row, "pcp_size", where) or 1)


def _fixed_row(path: str, fmt: str, index: int, where: str, row: Mapping) -> Run:
    latency: dict[str, dict[str, float]] = {}
    for key, value in row.items():
        match = _STAT.match(key)
        if match and value is not None:
            latency.setdefault(_FIXED[match.group(2)], {})[match.group(1)] = number(
                value, f"`{where}.{key}`" if where else f"`{key}`"
            )
    gpus = _gpus(row, where)
    per_gpu = {
        "total": _num(row, "tput_per_gpu", where),
        "output": _num(row, "output_tput_per_gpu", where),
        "input": _num(row, "input_tput_per_gpu", where),
    }
    multinode = row.get("disagg") is True or row.get("is_multinode") is True
    throughput: dict[str, float | None] = {}
    if gpus and not multinode:
        throughput = {k: (None if v is None else v * gpus) for k, v in per_gpu.items()}
    elif multinode:
        pre, dec = _num(row, "num_prefill_gpu", where), _num(row, "num_decode_gpu", where)
        throughput = {
            "total": per_gpu["total"] * gpus if per_gpu["total"] is not None and gpus else None,
            "output": per_gpu["output"] * dec if per_gpu["output"] is not None and dec else None,
            "input": per_gpu["input"] * pre if per_gpu["input"] is not None and pre else None,
        }
    published = Published(latency=latency, throughput=throughput, per_gpu=per_gpu, num_gpus=gpus)
    return Run(path, fmt, index, _fields(row, gpus), published=published, record=where)


def _fields(row: Mapping, gpus: float | None) -> dict:
    out = {}
    for key in FIELDS:
        value = row.get(key)
        if isinstance(value, bool):
            value = str(value).lower()
        if isinstance(value, str | int | float):
            out[key] = value
    single = not (row.get("disagg") is True or row.get("is_multinode") is True)
    for name in ("tp", "ep"):
        pooled = row.get(f"decode_{name}", row.get(f"prefill_{name}"))
        if name not in out and single and isinstance(pooled, int):
            out[name] = pooled
    if gpus is not None:
        out["num_gpus"] = int(gpus) if float(gpus).is_integer() else gpus
    return out


def _agentx_row(path: str, fmt: str, index: int, where: str, row: Mapping) -> Run:
    metrics = mapping(row.get("request_metrics"), f"`{where}.request_metrics`")
    lat = object_at(metrics, "latency")
    latency: dict[str, dict[str, float]] = {}
    # AgentX `itl`/`tpot` is AIPerf's per-request (e2el - ttft)/(osl - 1): cmpc's tpot.
    for src, metric in (("ttft", "ttft"), ("e2el", "e2el"), ("tpot", "tpot")):
        stats = lat.get(src)
        if isinstance(stats, dict):
            latency[metric] = {
                ("median" if k == "p50" else k): number(v, f"`{where}.latency.{src}.{k}`")
                for k, v in stats.items()
                if v is not None and (k in ("mean", "std", "min", "max") or re.match(r"p\d", k))
            }
            if "median" in latency[metric]:
                latency[metric]["p50"] = latency[metric]["median"]
    tput = object_at(metrics, "throughput")

    def rate(name: str) -> float | None:
        entry = tput.get(name)
        return _num(entry, "tokens_per_second", where) if isinstance(entry, dict) else None

    per = object_at(tput, "per_gpu")
    gpus = _gpus(row, where)
    cache = {}
    server = row.get("server_metrics")
    if isinstance(server, dict) and isinstance(server.get("cache"), dict):
        cache = server["cache"]
    total = _num(row, "num_requests_total", where)
    ok = _num(row, "num_requests_successful", where)
    published = Published(
        total=None if total is None else int(total),
        succeeded=None if ok is None else int(ok),
        failed=None if total is None or ok is None else int(total - ok),
        throughput={"input": rate("input"), "output": rate("output"), "total": rate("total")},
        latency=latency,
        per_gpu={
            "total": _num(per, "total_tput_tps", where),
            "output": _num(per, "output_tput_tps", where),
            "input": _num(per, "input_tput_tps", where),
        },
        num_gpus=gpus,
        cache_hit_rate=_num(cache, "overall_cache_hit_rate", where),
    )
    return Run(path, fmt, index, _fields(row, gpus), published=published, record=where)


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = jsonscan.read_document(path)
    runs: list[Run] = []
    for where, raw in _rows(doc):
        row = _flat(raw)
        if isinstance(row.get("request_metrics"), dict):
            runs.append(_agentx_row(path, fmt, len(runs), where, row))
        elif "tput_per_gpu" in row:
            runs.append(_fixed_row(path, fmt, len(runs), where, row))
    if not runs:
        raise TraceError("no InferenceX row with `tput_per_gpu` or `request_metrics`", None, "E312")
    return runs
