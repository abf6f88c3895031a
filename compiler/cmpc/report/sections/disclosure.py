"""The disclosure section: one table of what is disclosed, with the answers; the rest once."""

from __future__ import annotations

import math
from collections.abc import Callable

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    number,
    percent,
)
from cmpc.report.words import METRIC_NAMES, METRICS, PER, ROLES, statistic_name, token_phrase

# Checklist keys answered by one row of the systems table (its label), shown per system.
ROWS = {
    "accelerator_model": "Accelerator",
    "accelerator_count": "GPUs (the per-GPU denominator)",
    "parallelism": "GPUs (the per-GPU denominator)",
    "memory": "Memory",
    "interconnect": "Interconnect",
    "engine_version": "Engine",
    "precision": "Precision",
    "speculative_decoding": "Speculative decoding",
    "scheduler": "Scheduler",
    "prefix_cache": "Prefix-cache hit rate",
    "power_basis": "Power",
}


# the spec values behind each item the spec answers, so a `--set` of one is marked there
SET_BY: dict[str, tuple[str, ...]] = {
    "latency_metric": ("latency.metric", "latency.statistic", "latency.target", "latency.ttft"),
    "token_accounting": ("tokens", "system.*.cache_hit_rate"),
    "normalization": ("normalize", "system.*.price", "system.*.tco"),
    "measured_by": ("source",),
    "measured_at": ("source",),
    "source": ("source",),
    "verification": ("source",),
    "accelerator_model": ("system.*.accelerator",),
    "accelerator_count": ("system.*.accelerator", "system.*.parallel", "system.*.nodes"),
    "memory": ("system.*.memory",),
    "interconnect": ("system.*.interconnect",),
    "engine_version": ("system.*.engine", "system.*.image"),
    "precision": ("system.*.precision",),
    "parallelism": ("system.*.parallel",),
    "speculative_decoding": ("system.*.speculative",),
    "scheduler": ("system.*.scheduler",),
    "prefix_cache": ("system.*.cache_hit_rate",),
    "utilization": ("cost.utilization",),
    "cost_token_basis": ("cost.per_million",),
    "power_basis": ("system.*.power",),
    "slo": ("latency.slo",),
}


def disclosure(ctx: Context, views: list[JsonObject] | None = None) -> JsonObject | None:
    d = ctx.results.get("disclosure")
    if not isinstance(d, dict):
        return None
    by_row = _rows_by_label(views or [])
    items = []
    for item in d.get("items") or []:
        key = item.get("key") or "?"
        files = escape(item["from_files"]) if item.get("from_files") else None
        if item.get("answer"):
            shown = escape(item["answer"])
            if files:
                shown += Md(" (the spec's answer; {})").format(files)
        elif item.get("from") == "files" and files:
            shown = files
        elif item.get("answered"):
            stated = _stated(ctx, key, by_row)
            shown = Md("stated in the spec") + (Md(": {}").format(stated) if stated else Md(""))
            if mark := ctx.set_mark(*SET_BY.get(key, ())):
                shown = Md("set on the command line{}, not as the spec states it").format(mark) + (
                    Md(": {}").format(stated) if stated else Md("")
                )
            if files:
                shown += Md("; {}").format(files)
        else:
            shown = None
        items.append(
            {
                "key": code(key),
                "question": escape(item.get("question") or ""),
                "answered": shown is not None,
                "status": shown if shown is not None else Md("**not disclosed**"),
                "five": bool(item.get("five_questions")),
            }
        )
    score, total = d.get("score"), d.get("total")
    half = math.ceil(total / 2) if is_number(total) else None
    disclosed = [i for i in items if i["answered"]]
    return {
        "rows": sorted(disclosed, key=lambda i: not i["five"]),
        "five": [i for i in items if i["five"]],
        "rest": [i for i in items if not i["five"]],
        "missing": [i for i in items if not i["answered"]],
        "score": ctx.fig.add(
            "disclosure.score",
            "disclosure items answered",
            score,
            "items",
            number(score),
            source="cmpc",
        ),
        "total": ctx.n("disclosure.total", "checklist items", total, "items"),
        "half": number(half),
        "five_answered": ctx.n(
            "disclosure.five_answered",
            "five questions answered",
            d.get("five_answered"),
            "items",
        ),
        "five_total": number(d.get("five_total")),
        "verdict": escape(d.get("verdict") or DASH),
        "comparable": d.get("verdict") == "comparable",
    }


def _rows_by_label(views: list[JsonObject]) -> dict[str, list[tuple[Md, Md]]]:
    """{row label: [(system label, value), ...]} over the system views."""
    out: dict[str, list[tuple[Md, Md]]] = {}
    for v in views:
        for label, value in v.get("rows") or []:
            out.setdefault(str(label), []).append((v["label"], value))
    return out


def _per_system(pairs: list[tuple[Md, Md]]) -> Md | None:
    """`both: X` when every system says the same, else `A: X; B: Y`."""
    if not pairs:
        return None
    values = {v for _, v in pairs}
    if len(values) == 1:
        every = "both" if len(pairs) == 2 else "all" if len(pairs) > 2 else pairs[0][0]
        return Md("{}: {}").format(every, pairs[0][1])
    return Md("; ").join(Md("{}: {}").format(s, v) for s, v in pairs)


def _stated(ctx: Context, key: str, by_row: dict[str, list[tuple[Md, Md]]]) -> Md | None:
    """What the spec's declarations say to one checklist question, in a few words."""
    if key in ROWS:
        return _per_system(by_row.get(ROWS[key], []))
    fact = _FACTS.get(key)
    return fact(ctx) if fact else None


def _latency(ctx: Context) -> Md | None:
    lat = ctx.conditions.get("latency") or {}
    metric = lat.get("metric") or "tpot"
    text = Md("{} {}, TTFT {}").format(
        statistic_name(lat.get("statistic")),
        METRIC_NAMES.get(metric, metric),
        lat.get("ttft") or DASH,
    )
    target = ctx.target()
    if target.get("given_as") == "interactivity" and is_number(target.get("value")):
        text += Md(", target {} tok/s/user").format(number(target["value"]))
    elif is_number(target.get("value")):  # a duration target, as the spec gave it
        text += Md(", target {} {}").format(number(target["value"]), target.get("unit") or "ms")
    return text


def _tokens(ctx: Context) -> Md | None:
    tok = ctx.conditions.get("tokens") or {}
    text = escape(token_phrase(tok.get("count")))
    if tok.get("reused"):
        text += Md(", reused input {}").format(tok["reused"])
    rates = [
        (ctx.label(n), percent(get_in(ctx.systems, n, "hit_rate")))
        for n in ctx.order
        if is_number(get_in(ctx.systems, n, "hit_rate"))
    ]
    if rates:
        text += Md("; hit rates {}").format(Md(", ").join(Md("{} {}").format(*r) for r in rates))
    return text


def _normalization(ctx: Context) -> Md | None:
    per = ctx.per()
    return escape(PER.get(per, per)) + Md(", at the declared prices")


def _sources(ctx: Context, keys: tuple[str, ...]) -> Md | None:
    bits = []
    for name, src in ctx.sources.items():
        facts = [escape(src.get(k)) for k in keys if src.get(k)]
        if "role" in keys and src.get("role"):
            facts = [escape(ROLES.get(src["role"], src["role"]))]
        if facts:
            bits.append(Md("{} ({})").format(ctx.source_title(name), Md(", ").join(facts)))
    return Md("; ").join(bits) if bits else None


def _source_dates(ctx: Context) -> Md | None:
    bits = []
    for name, src in ctx.sources.items():
        dates = [
            Md("{} {}").format(k.replace("_", " "), src[k])
            for k in ("snapshot", "run_date")
            if src.get(k)
        ]
        if dates:
            bits.append(Md("{}: {}").format(ctx.source_title(name), Md(", ").join(dates)))
    return Md("; ").join(bits) if bits else None


def _urls(ctx: Context) -> Md | None:
    urls = [code(src["url"]) for src in ctx.sources.values() if src.get("url")]
    return Md(", ").join(urls) if urls else None


def _verified(ctx: Context) -> Md | None:
    names = [ctx.source_title(n) for n, s in ctx.sources.items() if s.get("status") == "verified"]
    return Md("verified: {}").format(Md(", ").join(names)) if names else None


def _tpot(ctx: Context) -> Md | None:
    # the question is the per-token latency's definition, whatever metric the target is on
    return escape(METRICS["tpot"])


def _utilization(ctx: Context) -> Md | None:
    u = get_in(ctx.conditions, "cost", "utilization")
    return percent(u) if is_number(u) else None


def _cost_basis(ctx: Context) -> Md | None:
    basis = get_in(ctx.conditions, "cost", "per_million") or "total"
    return Md("per million {} tokens").format(basis)


def _revenue(ctx: Context) -> Md | None:
    return Md("infrastructure cost: prices of GPU-hours, never token revenue")


_FACTS: dict[str, Callable[[Context], Md | None]] = {
    "latency_metric": _latency,
    "token_accounting": _tokens,
    "normalization": _normalization,
    "measured_by": lambda ctx: _sources(ctx, ("role",)),
    "measured_at": _source_dates,
    "source": _urls,
    "verification": _verified,
    "tpot_definition": _tpot,
    "utilization": _utilization,
    "cost_token_basis": _cost_basis,
    "revenue_vs_cost": _revenue,
}
