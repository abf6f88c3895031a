"""W440: every disclosure fact the run files state, compared with what the spec says of it."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from cmpc.analysis.run_facts import (
    lengths_of,
    number,
    plain,
    run_date,
    runs_of,
    tokenizers_of,
)
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ir import model as ir

_NUM = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"  # 1,000 is one number; 1, 2 two
_LIST = rf"{_NUM}(?:\s*(?:,|/|and|or|-|–|to)\s*{_NUM})*"
_CONCURRENCY = re.compile(rf"\bconcurrenc(?:y|ies)\s*(?:of|at|=|:)?\s*({_LIST})", re.I)
_RATE_BEFORE = re.compile(
    rf"(?:\brequest rates?|\bqps|\brps|\brates?)\s*(?:of|at|=|:)?\s*({_LIST})", re.I
)
_RATE_AFTER = re.compile(
    rf"({_LIST})\s*(?:req(?:uest)?s?/s\b|rps\b|qps\b|requests? per second)", re.I
)
_INFINITE = re.compile(
    r"\binf\b|infinit|all (?:requests )?at once|\boffline\b|max(?:imum)? rate", re.I
)
_CLOSED = re.compile(r"closed[- ]loop|fixed concurrency", re.I)
_OPEN = re.compile(r"poisson|open[- ]loop", re.I)
_POISSON = re.compile(r"poisson", re.I)
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_HF_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
_LENGTH = r"\s*(?:of|=|:)?\s*(\d+)(k?)\b"
_ISL = re.compile(r"\b(?:isl|input lengths?|input sequence lengths?)" + _LENGTH, re.I)
_OSL = re.compile(r"\b(?:osl|output lengths?|output sequence lengths?)" + _LENGTH, re.I)
_DAY = dt.timedelta(days=1)  # a run date and a file's timestamp may sit in different time zones


@dataclass(frozen=True)
class Stated:
    """One value a run file states that the spec's answer does not allow."""

    value: str
    path: str


def _values(lists: Iterable[str]) -> tuple[set[float], list[tuple[float, float]]]:
    """The numbers and `a-b` ranges of `4, 8 and 16` or `1-64`."""
    values: set[float] = set()
    ranges: list[tuple[float, float]] = []
    for text in lists:
        for lo, hi in re.findall(rf"({_NUM})(?:\s*(?:-|–|to)\s*({_NUM}))?", text):
            a = float(lo.replace(",", ""))
            if hi:
                b = float(hi.replace(",", ""))
                ranges.append((min(a, b), max(a, b)))
            else:
                values.add(a)
    return values, ranges


def _allows(x: float, allowed: tuple[set[float], list[tuple[float, float]]]) -> bool:
    values, ranges = allowed
    return any(math.isclose(x, v) for v in values) or any(lo <= x <= hi for lo, hi in ranges)


def _requests(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    stated = {int(x) for x in re.findall(r"\d+", said.replace(",", ""))}
    if not stated:
        return []
    return [
        Stated(f"{int(n)} prompts", r.path)
        for r in runs
        if (n := number(r.fields.get("num_prompts"))) is not None and int(n) not in stated
    ]


def _load(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    conc = _values(_CONCURRENCY.findall(said))
    rates = _values(_RATE_BEFORE.findall(said) + _RATE_AFTER.findall(said))
    infinite = bool(_INFINITE.search(said))
    out: list[Stated] = []
    for r in runs:
        rate = number(r.fields.get("request_rate"))
        finite = rate if rate is not None and not math.isinf(rate) else None
        if r.concurrency is not None and (conc[0] or conc[1]) and not _allows(r.concurrency, conc):
            out.append(Stated(f"concurrency {plain(r.concurrency)}", r.path))
        if finite is not None and (rates[0] or rates[1]) and not _allows(finite, rates):
            out.append(Stated(f"request rate {plain(finite)} req/s", r.path))
        if rate is not None and finite is None and (rates[0] or rates[1]) and not infinite:
            out.append(Stated("request rate inf (all requests at once)", r.path))
        burst = number(r.fields.get("burstiness"))
        if _POISSON.search(said) and finite is not None and burst is not None and burst != 1:
            out.append(Stated(f"burstiness {plain(burst)} (not Poisson arrivals)", r.path))
        if _CLOSED.search(said) and finite is not None and r.concurrency is None:
            out.append(Stated(f"request rate {plain(finite)} req/s, open loop", r.path))
        if _OPEN.search(said) and rate is None and r.concurrency is not None:
            out.append(Stated(f"concurrency {plain(r.concurrency)}, closed loop", r.path))
    return out


def _days(said: str) -> list[dt.date]:
    days = []
    for y, m, d in _DATE.findall(said):
        try:
            days.append(dt.date(int(y), int(m), int(d)))
        except ValueError:
            continue
    return days


def _dates(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    days = _days(said)
    if not days:
        return []
    lo, hi = min(days) - _DAY, max(days) + _DAY
    out = []
    for r in runs:
        stamp = run_date(r.fields.get("date"))
        day = _days(stamp)
        if day and not lo <= day[0] <= hi:
            out.append(Stated(f"run date {stamp}", r.path))
    return out


def _squashed(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def same_name(a: str, b: str) -> bool:
    """One name inside the other, so `Llama-3.3-70B` and `meta-llama/Llama-3.3-70B` agree."""
    a, b = _squashed(a), _squashed(b)
    return a in b or b in a


def _named(said: str, names: Iterable[tuple[str, str]], what: str) -> list[Stated]:
    """Names (`org/model` ids) the answer gives, against those the files state."""
    ids = _HF_ID.findall(said)
    if not ids:
        return []
    return [
        Stated(f"{what} {name}", path)
        for name, path in names
        if not any(same_name(i, name) for i in ids)
    ]


def _models(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    return _named(said, ((str(m), r.path) for r in runs if (m := r.fields.get("model"))), "model")


def _tokenizers(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    return _named(said, ((t, r.path) for r in runs for t in tokenizers_of(r)), "tokenizer")


def _length(pattern: re.Pattern[str], said: str) -> set[int]:
    return {int(n) * (1024 if k else 1) for n, k in pattern.findall(said)}


def _lengths(said: str, runs: tuple[RunPoint, ...]) -> list[Stated]:
    isl, osl = _length(_ISL, said), _length(_OSL, said)
    out = []
    for r in runs:
        lengths = lengths_of(r)
        if lengths is None:
            continue
        i, o = lengths
        if (isl and i not in isl) or (osl and o not in osl):
            out.append(Stated(f"input/output lengths {i}/{o} tokens", r.path))
    return out


# each checklist key the run files fill, and how its answer is held against them
ANSWERS: dict[str, Callable[[str, tuple[RunPoint, ...]], list[Stated]]] = {
    "num_requests": _requests,
    "load_conditions": _load,
    "load_mode": _load,
    "measured_at": _dates,
    "model_revision": _models,
    "tokenizer": _tokenizers,
    "dataset": _lengths,
}


def disagreements(c: ir.Comparison, data: Mapping[str, SystemData]) -> list[Diagnostic]:
    """W440 where the spec says one thing and the run files another (the spec's answer wins)."""
    out: list[Diagnostic] = []
    answers = dict(c.disclosure)
    sources = {s.name: s for s in c.sources}
    for s in c.systems:
        if s.name not in data:
            continue
        runs = runs_of(data[s.name])
        if s.model:
            models = [(str(m), r.path) for r in runs if (m := r.fields.get("model"))]
            found = [Stated(name, p) for name, p in models if not same_name(s.model, name)]
            if found:
                out.append(_w440(c, s.name, "model", f"`{s.model}`", found))
        for key, check in ANSWERS.items():
            if (said := answers.get(key)) and (found := check(said, runs)):
                out.append(_w440(c, s.name, key, f'"{said}"', found))
        source = sources.get(s.runs.source) if s.runs and s.runs.source else None
        if source is not None and source.run_date and "measured_at" not in answers:
            out += _source_date(c, s.name, source, runs)
    return out


def _source_date(
    c: ir.Comparison, system: str, source: ir.Source, runs: tuple[RunPoint, ...]
) -> list[Diagnostic]:
    """The run source's `run_date` against the dates the files stamp."""
    said = f"run_date {source.run_date} (source `{source.name}`)"
    found = _dates(str(source.run_date), runs)
    return [_w440(c, system, "measured_at", said, found)] if found else []


def _w440(c: ir.Comparison, system: str, key: str, spec: str, found: list[Stated]) -> Diagnostic:
    values = sorted({f.value for f in found}, key=lambda v: (len(v), v))
    files = sorted({f.path for f in found})
    where = files[0] + (f" and {len(files) - 1} more" if len(files) > 1 else "")
    return warning(
        "W440",
        f"system `{system}`: the spec's {key} {spec} disagrees with the run files "
        f"({', '.join(values)} in {where})",
        notes=("the report shows the spec's answer; the run files' facts are not used for it",),
        file=c.file,
        help="correct the spec, or check that the run glob reads the runs you mean",
    )
