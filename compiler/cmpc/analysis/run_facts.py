"""Disclosure facts the run files state (prompt count, load, dates, model, tokenizer)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping

from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir

FROM_FILES = "from the run files"


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _plain(x: float) -> str:
    if math.isinf(x):
        return "inf"
    return f"{x:g}"


def _distinct(values: Iterable[str]) -> list[str]:
    return sorted(set(values), key=lambda v: (len(v), v))


def _prompts(runs: tuple[RunPoint, ...]) -> str | None:
    counts = [n for r in runs if (n := _number(r.fields.get("num_prompts"))) is not None]
    if not counts:
        return None
    shown = _distinct(_plain(n) for n in counts)
    noun = "prompt" if shown == ["1"] else "prompts"
    return f"{', '.join(shown)} {noun} per run"


def _load(runs: tuple[RunPoint, ...]) -> str | None:
    parts: list[str] = []
    rates = [r for run in runs if (r := _number(run.fields.get("request_rate"))) is not None]
    if rates:
        shown = _distinct(
            "inf (all requests at once)" if math.isinf(r) else f"{_plain(r)} req/s" for r in rates
        )
        parts.append("request rate " + ", ".join(shown))
    bursts = [b for run in runs if (b := _number(run.fields.get("burstiness"))) is not None]
    if bursts and any(not math.isinf(r) for r in rates):
        shown = _distinct(_plain(b) for b in bursts)
        poisson = " (Poisson arrivals)" if shown == ["1"] else ""
        parts.append(f"burstiness {', '.join(shown)}{poisson}")
    cap = [c for run in runs if (c := _number(run.fields.get("max_concurrency"))) is not None]
    conc = [run.concurrency for run in runs if run.concurrency is not None]
    if conc or cap:
        shown = _distinct(_plain(c) for c in (conc or cap))
        parts.append(f"concurrency {', '.join(shown)}")
    return "; ".join(parts) or None


_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$")  # vLLM's `date`


def _date(value: object) -> str:
    m = _STAMP.match(str(value))
    return f"{m[1]}-{m[2]}-{m[3]} {m[4]}:{m[5]}:{m[6]}" if m else str(value)


def _dates(runs: tuple[RunPoint, ...]) -> str | None:
    dates = sorted({_date(d) for r in runs if (d := r.fields.get("date"))})
    if not dates:
        return None
    return f"run dates {dates[0]}" if len(dates) == 1 else f"run dates {dates[0]} to {dates[-1]}"


def _model(runs: tuple[RunPoint, ...]) -> str | None:
    models = _distinct(str(m) for r in runs if (m := r.fields.get("model")))
    return f"model {', '.join(models)} (no revision stated)" if models else None


def _tokenizer(runs: tuple[RunPoint, ...]) -> str | None:
    names = _distinct(str(t) for r in runs if (t := r.fields.get("tokenizer_id")))
    return f"the client counted tokens with tokenizer {', '.join(names)}" if names else None


FACTS: dict[str, Callable[[tuple[RunPoint, ...]], str | None]] = {
    "num_requests": _prompts,
    "load_conditions": _load,
    "load_mode": _load,
    "measured_at": _dates,
    "model_revision": _model,
    "tokenizer": _tokenizer,
}


def _runs_of(data: SystemData) -> tuple[RunPoint, ...]:
    """One statistic's runs: every statistic reads the same files."""
    return next((runs for runs in data.runs.values() if runs), ())


def run_facts(c: ir.Comparison, data: Mapping[str, SystemData]) -> dict[str, str]:
    """{checklist key: "from the run files: ..."} for what every system's files state."""
    facts: dict[str, str] = {}
    measured = [s for s in c.systems if s.name in data]
    if not measured:
        return facts
    for key, fact in FACTS.items():
        per_system = {s.label or s.name: fact(_runs_of(data[s.name])) for s in measured}
        stated = {k: v for k, v in per_system.items() if v}
        if not stated:
            continue
        if len(set(stated.values())) == 1 and len(stated) == len(c.systems):
            text = next(iter(stated.values()))
        else:
            text = "; ".join(f"{label}: {value}" for label, value in stated.items())
        facts[key] = f"{FROM_FILES}: {text}"
    return facts


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _same_name(a: str, b: str) -> bool:
    """One name inside the other, so `Llama-3.3-70B` and `meta-llama/Llama-3.3-70B` agree."""
    return a in b or b in a


def disagreements(c: ir.Comparison, data: Mapping[str, SystemData]) -> list[Diagnostic]:
    """W440 where the spec says one thing and the run files another (the spec's answer wins)."""
    out: list[Diagnostic] = []
    answers = dict(c.disclosure)
    for s in c.systems:
        if s.name not in data:
            continue
        runs = _runs_of(data[s.name])
        models = {str(m) for r in runs if (m := r.fields.get("model"))}
        if s.model:
            mine = _squashed(s.model)
            other = sorted(m for m in models if not _same_name(mine, _squashed(m)))
            if other:
                out.append(_w440(c, s.name, "model", f"`{s.model}`", ", ".join(other)))
        counts = {int(n) for r in runs if (n := _number(r.fields.get("num_prompts"))) is not None}
        said = answers.get("num_requests")
        if said and counts:
            stated = {int(x) for x in re.findall(r"\d+", said.replace(",", ""))}
            if stated and not counts <= stated:
                shown = ", ".join(str(n) for n in sorted(counts))
                out.append(_w440(c, s.name, "num_requests", f'"{said}"', f"{shown} prompts"))
    return out


def _w440(c: ir.Comparison, system: str, key: str, spec: str, files: str) -> Diagnostic:
    return warning(
        "W440",
        f"system `{system}`: the spec's {key} {spec} disagrees with the run files ({files})",
        notes=("the report shows the spec's answer; the run files' facts are not used for it",),
        file=c.file,
        help="correct the spec, or check that the run glob reads the runs you mean",
    )
