"""SGLang `bench_serving` output: one JSON result per line, appended run after run."""

from __future__ import annotations

import re

from cmpc.traces import jsonscan
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Run
from cmpc.traces.vllm import run_from_doc

NAME = "sglang"
# bench_serving writes its default `--request-rate inf` as the bare `Infinity` (Python's json),
# which JSON does not allow; for this one field it is read as vLLM writes it, the string "inf"
_INFINITE_RATE = re.compile(rb'("request_rate"\s*:\s*)Infinity(?=\s*[,}])')


def read(path: str, fmt: str = NAME) -> list[Run]:
    runs: list[Run] = []
    for where, line in jsonscan.records(path):
        line = _INFINITE_RATE.sub(rb'\1"inf"', line, count=1)
        try:
            doc, arrays = jsonscan.load_bytes(line, ("itls",))
        except TraceError as exc:
            raise TraceError(str(exc), where, exc.code) from None
        if not isinstance(doc, dict):
            raise TraceError("each line should be a JSON object", where, "E305")
        try:
            runs.append(run_from_doc(path, doc, arrays, fmt, len(runs), where))
        except TraceError as exc:
            raise TraceError(
                f"{exc}", f"{where}, {exc.record}" if exc.record else where, exc.code
            ) from None
    return runs
