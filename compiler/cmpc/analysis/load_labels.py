"""A run's load as a short label, from the load facts its reader extracted (`c64`, `4 req/s`).

Each reader keeps the load its tool states under the tool's own names (traces/*.py): vLLM and
SGLang `request_rate` (a number or "inf") with `max_concurrency`; AIPerf, genai-bench and
InferenceX `conc`; GuideLLM its strategy (`synchronous`, `concurrent`, `throughput`,
`constant`, `poisson`) with `request_rate`, `max_concurrency` and `conc` (streams);
inference-perf and llm-d a `stage` with `requested_rate` / `rate_qps` and `concurrency`; MLPerf
its `scenario` with `target_qps`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

CONCURRENCY_KEYS = ("conc", "concurrency", "max_concurrency")
RATE_KEYS = ("request_rate", "requested_rate", "rate_qps")
LOADGEN_SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")


def _number(value: object) -> float | None:
    """A finite or infinite number, from a number or its text (`"inf"`, `"4"`); else None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or x < 0 else x


def _first(fields: Mapping[str, object], keys: tuple[str, ...]) -> float | None:
    return next((x for k in keys if (x := _number(fields.get(k))) is not None), None)


def load_label(fields: Mapping[str, object]) -> str:
    """The load a run was driven at: `c64`, `4 req/s`, `2 req/s poisson c16`, `all at once`,
    `sync`, `throughput`, `Server 80 qps`, `Offline`, with ` (stage N)`; empty if unstated."""
    strategy = str(fields.get("strategy") or "")
    conc = _first(fields, CONCURRENCY_KEYS)
    rate = _first(fields, RATE_KEYS)
    scenario = str(fields.get("scenario") or "")
    cap = f" c{conc:g}" if conc is not None and math.isfinite(conc) else ""
    if strategy == "synchronous":
        text = "sync"
    elif strategy == "throughput":  # GuideLLM: every request at once, up to its cap
        text = "throughput" + cap
    elif rate is not None and math.isfinite(rate):
        text = f"{rate:g} req/s" + (f" {strategy}" if strategy in ("constant", "poisson") else "")
        text += cap
    elif cap:  # a concurrency, with an infinite rate or none: the concurrency is the load
        text = cap.strip()
    elif rate is not None:
        text = "all at once"
    elif scenario in LOADGEN_SCENARIOS:
        qps = _number(fields.get("target_qps"))
        text = scenario + (f" {qps:g} qps" if qps is not None and scenario == "Server" else "")
    else:
        text = ""
    stage = _number(fields.get("stage"))
    if stage is not None and math.isfinite(stage):
        text = f"{text} (stage {stage:g})" if text else f"stage {stage:g}"
    return text
