"""Disclosure facts the run files state (prompt count, load, dates, model, tokenizer, lengths)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping

from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir

FROM_FILES = "from the run files"


def number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def plain(x: float) -> str:
    if math.isinf(x):
        return "inf"
    return f"{x:g}"


def _distinct(values: Iterable[str]) -> list[str]:
    return sorted(set(values), key=lambda v: (len(v), v))


def _prompts(runs: tuple[RunPoint, ...]) -> str | None:
    counts = [n for r in runs if (n := number(r.fields.get("num_prompts"))) is not None]
    if not counts:
        return None
    shown = _distinct(plain(n) for n in counts)
    noun = "prompt" if shown == ["1"] else "prompts"
    return f"{', '.join(shown)} {noun} per run"


def _load(runs: tuple[RunPoint, ...]) -> str | None:
    parts: list[str] = []
    rates = [r for run in runs if (r := number(run.fields.get("request_rate"))) is not None]
    if rates:
        shown = _distinct(
            "inf (all requests at once)" if math.isinf(r) else f"{plain(r)} req/s" for r in rates
        )
        parts.append("request rate " + ", ".join(shown))
    bursts = [b for run in runs if (b := number(run.fields.get("burstiness"))) is not None]
    if bursts and any(not math.isinf(r) for r in rates):
        shown = _distinct(plain(b) for b in bursts)
        poisson = " (Poisson arrivals)" if shown == ["1"] else ""
        parts.append(f"burstiness {', '.join(shown)}{poisson}")
    cap = [c for run in runs if (c := number(run.fields.get("max_concurrency"))) is not None]
    conc = [run.concurrency for run in runs if run.concurrency is not None]
    if conc or cap:
        shown = _distinct(plain(c) for c in (conc or cap))
        parts.append(f"concurrency {', '.join(shown)}")
    return "; ".join(parts) or None


_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$")  # vLLM's `date`


def run_date(value: object) -> str:
    """A file's run timestamp as `YYYY-MM-DD HH:MM:SS` where it is vLLM's compact form."""
    m = _STAMP.match(str(value))
    return f"{m[1]}-{m[2]}-{m[3]} {m[4]}:{m[5]}:{m[6]}" if m else str(value)


def _dates(runs: tuple[RunPoint, ...]) -> str | None:
    dates = sorted({run_date(d) for r in runs if (d := r.fields.get("date"))})
    if not dates:
        return None
    return f"run dates {dates[0]}" if len(dates) == 1 else f"run dates {dates[0]} to {dates[-1]}"


def _model(runs: tuple[RunPoint, ...]) -> str | None:
    models = _distinct(str(m) for r in runs if (m := r.fields.get("model")))
    return f"model {', '.join(models)} (no revision stated)" if models else None


TOKENIZER_FIELDS = ("tokenizer_id", "server_model_tokenizer")  # vLLM, genai-bench


def tokenizers_of(run: RunPoint) -> list[str]:
    """The tokenizers a run file names for its client-side token counts."""
    return [str(t) for key in TOKENIZER_FIELDS if (t := run.fields.get(key))]


def _tokenizer(runs: tuple[RunPoint, ...]) -> str | None:
    names = _distinct(t for r in runs for t in tokenizers_of(r))
    return f"the client counted tokens with tokenizer {', '.join(names)}" if names else None


_SCENARIO = re.compile(r"^D\((\d+),\s*(\d+)\)$")  # genai-bench's deterministic `D(in,out)`


def lengths_of(run: RunPoint) -> tuple[int, int] | None:
    """The input and output length per request a run file fixes (InferenceX isl/osl, genai-bench
    `D(in,out)`), if it fixes them."""
    isl, osl = number(run.fields.get("isl")), number(run.fields.get("osl"))
    if isl is not None and osl is not None:
        return int(isl), int(osl)
    m = _SCENARIO.match(str(run.fields.get("scenario") or ""))
    return (int(m[1]), int(m[2])) if m else None


def _lengths(runs: tuple[RunPoint, ...]) -> str | None:
    pairs = sorted({p for r in runs if (p := lengths_of(r)) is not None})
    if not pairs:
        return None
    shown = ", ".join(f"{i}/{o}" for i, o in pairs)
    return f"input/output lengths {shown} tokens per request"


FACTS: dict[str, Callable[[tuple[RunPoint, ...]], str | None]] = {
    "num_requests": _prompts,
    "load_conditions": _load,
    "load_mode": _load,
    "measured_at": _dates,
    "model_revision": _model,
    "tokenizer": _tokenizer,
    "dataset": _lengths,
}


def runs_of(data: SystemData) -> tuple[RunPoint, ...]:
    """One statistic's runs: every statistic reads the same files."""
    return next((runs for runs in data.runs.values() if runs), ())


def run_facts(c: ir.Comparison, data: Mapping[str, SystemData]) -> dict[str, str]:
    """{checklist key: "from the run files: ..."} for what every system's files state."""
    facts: dict[str, str] = {}
    measured = [s for s in c.systems if s.name in data]
    if not measured:
        return facts
    for key, fact in FACTS.items():
        per_system = {s.label or s.name: fact(runs_of(data[s.name])) for s in measured}
        stated = {k: v for k, v in per_system.items() if v}
        if not stated:
            continue
        if len(set(stated.values())) == 1 and len(stated) == len(c.systems):
            text = next(iter(stated.values()))
        else:
            text = "; ".join(f"{label}: {value}" for label, value in stated.items())
        facts[key] = f"{FROM_FILES}: {text}"
    return facts
