"""vLLM `benchmark_serving.py` / `vllm bench serve` result JSON (old and new key names)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import (
    build_requests,
    column,
    duration_of,
    number,
    pick_fields,
    ragged_from_lists,
)
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Published, Run, row_sums

NAME = "vllm"
SKIPS_GAPS = True  # `read(..., gaps=False)` leaves `itls` unread
SIGNATURE = (r'"(request_throughput|total_token_throughput|mean_ttft_ms|median_ttft)"',)
FIELDS = (
    "backend",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    "request_rate",
    "burstiness",
    "max_concurrency",
    "date",
    "label",
    # GPU counts as `--metadata KEY=VALUE` writes them (strings): vLLM's nightly benchmarks pass
    # `tensor_parallel_size`; `tp`, `pp` and `num_gpus` are what users commonly add.
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "tp",
    "pp",
    "num_gpus",
)
FIELD_RENAME = {"model_id": "model"}

# Metric names of vLLM (and SGLang) summaries, mapped to cmpc's.
METRIC_NAMES = {
    "ttft": "ttft",
    "tpot": "tpot",
    "itl": "chunk_gap",
    "e2el": "e2el",
    "e2e_latency": "e2el",
}
_STAT_KEY = re.compile(r"^(mean|median|std|min|max|p\d+(?:\.\d+)?)_([a-z0-9_]+?)(_ms)?$")


def published_latency(doc: Mapping) -> dict[str, dict[str, float]]:
    """`{mean,median,std,pNN}_{metric}_ms` keys (or bare keys in seconds) as cmpc stats."""
    out: dict[str, dict[str, float]] = {}
    for key, value in doc.items():
        match = _STAT_KEY.match(key)
        if not match or match.group(2) not in METRIC_NAMES or value is None:
            continue
        scale = 1e-3 if match.group(3) else 1.0
        stat = match.group(1)
        out.setdefault(METRIC_NAMES[match.group(2)], {})[stat] = number(value, f"`{key}`") * scale
    return out


def _count(doc: Mapping, key: str) -> int | None:
    value = doc.get(key)
    return None if value is None else int(number(value, f"`{key}`"))


def published(doc: Mapping) -> Published:
    """The summary part of a result file, for runs saved without per-request arrays."""
    completed = _count(doc, "completed")
    failed = _count(doc, "failed")
    prompts = _count(doc, "num_prompts")
    if failed is None and completed is not None and prompts is not None:
        failed = prompts - completed
    total = completed + failed if completed is not None and failed is not None else prompts

    def opt(key: str) -> float | None:
        return number(doc.get(key), f"`{key}`", optional=True)

    total_in = opt("total_input_tokens")
    total_out = opt("total_output_tokens")
    inp = opt("input_throughput") or opt("request_inthroughput")
    out_tp = opt("output_throughput")
    tot = opt("total_token_throughput") or opt("total_throughput")
    if inp is None and tot is not None and out_tp is not None:
        inp = tot - out_tp
    if tot is None and inp is not None and out_tp is not None:
        tot = inp + out_tp
    return Published(
        total=total,
        succeeded=completed,
        failed=failed,
        input_tokens=total_in,
        output_tokens=total_out,
        throughput={
            "requests": opt("request_throughput"),
            "input": inp,
            "output": out_tp,
            "total": tot,
        },
        latency=published_latency(doc),
    )


def run_from_doc(
    path: str, doc: Mapping, arrays: Mapping, fmt: str, index: int, record: str
) -> Run:
    """One run from a vLLM-style result object (also used for SGLang lines)."""
    fields = pick_fields(doc, FIELDS, FIELD_RENAME)
    duration = duration_of(doc.get("duration"), "`duration`")
    if "ttfts" not in doc:
        return Run(
            path, fmt, index, fields, published=published(doc), duration_s=duration, record=record
        )
    ttft = column(doc, "ttfts")
    n = ttft.size
    errors = doc.get("errors")
    if isinstance(errors, list):
        if len(errors) != n:
            raise TraceError(
                f"`errors` has {len(errors)} entries but the run has {n} requests",
                "`errors`",
                "E313",
            )
        ok = np.array([not e for e in errors], dtype=bool)
    else:
        ok = np.ones(n, dtype=bool)
    sums = arrays.get("itls") if isinstance(arrays.get("itls"), jsonscan.RowSums) else None
    if sums is not None:
        gaps = None
        _reject_negative_gaps(sums, ok)
    elif "itls" in arrays:
        gaps = arrays["itls"]
    elif "itls" in doc:
        gaps = ragged_from_lists(doc["itls"], "itls")
    else:
        gaps = None
    rows = sums if sums is not None else gaps
    if rows is not None and rows.counts.size != n:
        raise TraceError(
            f"`itls` has {rows.counts.size} entries but the run has {n} requests", "`itls`", "E313"
        )
    reconstructed = False
    if isinstance(doc.get("latencies"), list):
        e2el = column(doc, "latencies", n)
    elif sums is not None:
        e2el = ttft + sums.sums
        reconstructed = True
    elif gaps is not None:
        e2el = ttft + row_sums(gaps.values, gaps.counts)
        reconstructed = True
    else:
        e2el = None
    if gaps is not None and not np.all(ok):
        keep = np.repeat(ok, gaps.counts)
        gaps = jsonscan.Ragged(gaps.values[keep], np.where(ok, gaps.counts, 0))
    requests = build_requests(
        ok,
        gaps=gaps,
        ttft=ttft,
        e2el=e2el,
        start=column(doc, "start_times", n) if isinstance(doc.get("start_times"), list) else None,
        input_tokens=column(doc, "input_lens", n) if "input_lens" in doc else None,
        output_tokens=column(doc, "output_lens", n) if "output_lens" in doc else None,
        e2el_reconstructed=reconstructed,
    )
    if duration is None:
        raise TraceError("the run has no `duration`", "`duration`", "E312")
    return Run(path, fmt, index, fields, requests=requests, duration_s=duration, record=record)


def read(path: str, fmt: str = NAME, *, gaps: bool = True) -> list[Run]:
    """The run of one result file; without `gaps`, `itls` (most of the bytes) is left unread
    unless the file has no `latencies`, whose end-to-end times are then rebuilt from it."""
    if not gaps:
        doc, arrays = jsonscan.load(path, skip=("itls",))
        if not isinstance(doc, dict) or isinstance(doc.get("latencies"), list):
            return _runs(path, doc, arrays, fmt)
        # no `latencies`: only each request's sum of gaps is needed, never all gaps at once
        doc, arrays = jsonscan.load(path, sums=("itls",))
        return _runs(path, doc, arrays, fmt)
    doc, arrays = jsonscan.load(path, ("itls",))
    return _runs(path, doc, arrays, fmt)


def _reject_negative_gaps(sums: jsonscan.RowSums, ok: np.ndarray) -> None:
    """E308 as `check_requests` gives it for the gaps of a request that did not fail."""
    for row, value in sums.negative:
        if row < ok.size and ok[row]:
            raise TraceError(
                f"request {row} has chunks out of order (a gap of {value:g} s)",
                f"request {row}",
                "E308",
            )


def _runs(path: str, doc: object, arrays: Mapping, fmt: str) -> list[Run]:
    if not isinstance(doc, dict):
        raise TraceError("a vLLM result file holds one JSON object", "line 1", "E305")
    return [run_from_doc(path, doc, arrays, fmt, 0, "")]
