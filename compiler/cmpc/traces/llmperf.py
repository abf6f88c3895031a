"""Ray LLMPerf individual responses: one object per request, times in seconds."""

from __future__ import annotations

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, mapping, number
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Run

NAME = "llmperf"


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = jsonscan.read_document(path)
    if not isinstance(doc, list):
        raise TraceError("LLMPerf individual responses are a JSON list", "line 1", "E305")
    n = len(doc)
    cols = {k: np.full(n, np.nan) for k in ("ttft", "e2el", "inp", "out", "itl", "tput")}
    ok = np.zeros(n, dtype=bool)
    keys = {
        "ttft": "ttft_s",
        "e2el": "end_to_end_latency_s",
        "inp": "number_input_tokens",
        "out": "number_output_tokens",
        "itl": "inter_token_latency_s",
        "tput": "request_output_throughput_token_per_s",
    }
    for i, item in enumerate(doc):
        where = f"[{i}]"
        item = mapping(item, f"`{where}`")
        if item.get("error_code") is not None or item.get("error_msg"):
            continue
        ok[i] = True
        for col, key in keys.items():
            value = number(item.get(key), f"`{where}.{key}`", optional=True)
            if value is not None:
                cols[col][i] = value
    requests = build_requests(
        ok,
        ttft=cols["ttft"],
        e2el=cols["e2el"],
        input_tokens=cols["inp"],
        output_tokens=cols["out"],
        extra={
            "inter_token_latency_s": cols["itl"],
            "request_output_throughput_token_per_s": cols["tput"],
            "number_input_tokens": cols["inp"],
            "number_output_tokens": cols["out"],
        },
    )
    return [Run(path, fmt, 0, {}, requests=requests, duration_s=None)]
