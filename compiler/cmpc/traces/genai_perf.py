"""NVIDIA GenAI-Perf profile export (`profile_export.json`): request and response timestamps."""

from __future__ import annotations

import json

import numpy as np

from cmpc.traces import jsonscan
from cmpc.traces.common import build_requests, mapping, number, object_at
from cmpc.traces.jsonscan import Ragged, TraceError
from cmpc.traces.table import Run

NAME = "genai-perf"
_NS = 1e-9


def _text(output: object) -> str:
    """The generated text of one response, as GenAI-Perf sees it (empty for [DONE], usage...)."""
    if not isinstance(output, dict):
        return ""
    raw = output.get("response", output.get("text_output", ""))
    if not isinstance(raw, str):
        return ""
    texts = []
    for part in raw.split("data:") if "data:" in raw else [raw]:
        part = part.strip()
        if not part or part == "[DONE]":
            continue
        try:
            doc = json.loads(part)
        except ValueError:
            texts.append(part)
            continue
        for choice in doc.get("choices") or [] if isinstance(doc, dict) else []:
            if not isinstance(choice, dict):
                continue
            for holder in (choice.get("delta"), choice.get("message")):
                if isinstance(holder, dict) and isinstance(holder.get("content"), str):
                    texts.append(holder["content"])
            if isinstance(choice.get("text"), str):
                texts.append(choice["text"])
        if isinstance(doc, dict) and isinstance(doc.get("text_output"), str):
            texts.append(doc["text_output"])
    return "".join(texts)


def _experiment(path: str, fmt: str, index: int, exp: dict) -> Run:
    where = f"experiments[{index}]"
    requests = exp.get("requests")
    if not isinstance(requests, list):
        raise TraceError(f"`{where}.requests` should be a list", where, "E305")
    n = len(requests)
    ok = np.zeros(n, dtype=bool)
    send = np.zeros(n, dtype=np.int64)
    first = np.zeros(n, dtype=np.int64)
    last = np.zeros(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    gaps: list[np.ndarray] = []
    for i, req in enumerate(requests):
        rwhere = f"{where}.requests[{i}]"
        req = mapping(req, f"`{rwhere}`")
        stamp = req.get("timestamp")
        stamps = req.get("response_timestamps")
        outputs = req.get("response_outputs") or []
        if not isinstance(stamp, int) or isinstance(stamp, bool):
            raise TraceError(f"`{rwhere}.timestamp` should be an integer (ns)", rwhere, "E305")
        if not isinstance(stamps, list) or not all(isinstance(t, int) for t in stamps):
            raise TraceError(
                f"`{rwhere}.response_timestamps` should be integers (ns)", rwhere, "E305"
            )
        if outputs and len(outputs) == len(stamps):
            try:
                stamps = [t for t, o in zip(stamps, outputs, strict=True) if _text(o)]
            except RecursionError:
                raise TraceError(
                    f"a response of `{rwhere}` is JSON nested too deeply", rwhere, "E301"
                ) from None
        send[i] = stamp
        if not stamps:
            continue  # no non-empty response: GenAI-Perf leaves it out of per-request metrics
        times = np.asarray(stamps, dtype=np.int64)
        if np.any(np.diff(times) < 0) or times[0] < stamp:
            raise TraceError(f"`{rwhere}` has responses out of order", rwhere, "E308")
        ok[i] = True
        first[i], last[i] = times[0], times[-1]
        gaps.append(np.diff(times) * _NS)
        counts[i] = times.size - 1
    values = np.concatenate(gaps) if gaps else np.empty(0)
    duration = None
    if ok.any():
        duration = (int(last[ok].max()) - int(send[ok].min())) * _NS
    ttft = np.where(ok, (first - send) * _NS, np.nan)
    e2el = np.where(ok, (last - send) * _NS, np.nan)
    table = build_requests(
        ok,
        gaps=Ragged(values, counts),
        ttft=ttft,
        e2el=e2el,
        start=(send - send.min()) * _NS if n else None,
    )
    mode = object_at(exp, "experiment")
    fields = {}
    if mode.get("mode") == "concurrency":
        fields["conc"] = number(mode.get("value"), f"`{where}.experiment.value`")
    elif mode.get("mode") == "request_rate":
        fields["request_rate"] = number(mode.get("value"), f"`{where}.experiment.value`")
    return Run(path, fmt, index, fields, requests=table, duration_s=duration, record=where)


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = mapping(jsonscan.read_document(path), "the document")
    experiments = doc.get("experiments")
    if not isinstance(experiments, list) or not experiments:
        raise TraceError("`experiments` should be a non-empty list", "`experiments`", "E305")
    return [
        _experiment(path, fmt, i, mapping(e, f"`experiments[{i}]`"))
        for i, e in enumerate(experiments)
    ]
