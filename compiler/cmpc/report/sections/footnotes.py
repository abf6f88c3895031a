"""The footnotes: the conditions behind every number (latency, tokens, units, price, source)."""

from __future__ import annotations

from cmpc.report.context import Context, get_in, is_number
from cmpc.report.sections.headline import hit_rate_gap
from cmpc.report.text import (
    DASH,
    Md,
    escape,
    link,
    number,
    percent,
    ratio,
)
from cmpc.report.words import (
    METRIC_NAMES,
    METRICS,
    PER,
    READS,
    ROLES,
    statistic_name,
    token_phrase,
)


def footnotes(ctx: Context) -> dict[str, Md]:
    notes = {
        "latency": _fn_latency(ctx),
        "tokens": _fn_tokens(ctx),
        "norm": _fn_norm(ctx),
        "price": _fn_price(ctx),
        "source": _fn_source(ctx),
    }
    if ctx.synthetic:
        notes["synthetic"] = Md(
            "The comparison is built from synthetic data (a source with "
            "role `synthetic`): it illustrates the method and says "
            "nothing about the hardware."
        )
    return notes


def _fn_latency(ctx: Context) -> Md:
    lat = ctx.conditions.get("latency") or {}
    metric = lat.get("metric") or "tpot"
    stat = statistic_name(lat.get("statistic"))
    t = ctx.target()
    parts = [
        f"Latency constraint: the {stat} over requests of "
        f"{escape(METRICS.get(metric, metric))}; TTFT {escape(lat.get('ttft') or DASH)}."
    ]
    if t and is_number(t.get("interactivity_tok_s_user")) and t["interactivity_tok_s_user"] > 0:
        parts.append(
            f"Interactivity = 1 / {stat}({escape(METRIC_NAMES.get(metric, metric))}) in "
            "tokens per second per user: the statistic of the latency, inverted (never the "
            f"statistic of 1/latency). The target {number(t['interactivity_tok_s_user'])} "
            f"tok/s/user is a {stat} {escape(METRIC_NAMES.get(metric, metric))} of "
            f"{number(t.get('latency_ms'))} ms."
        )
    elif t:
        parts.append(f"The target is a {stat} of {number(t.get('latency_ms'))} ms.")
    method = lat.get("percentile_method") or "linear"
    parts.append(
        f"Percentiles: numpy's `{escape(method)}` method over per-request values"
        + (" (Hyndman\u2013Fan type 7)." if method == "linear" else ".")
    )
    read = lat.get("read") or "steffen"
    parts.append(
        f"Read: {READS.get(read, escape(read))}; a target outside a frontier is "
        "unreachable and never extrapolated."
    )
    reported = [n for n in ctx.order if get_in(ctx.systems, n, "data") == "reported"]
    if reported:
        stats = {ctx.ir_systems.get(n, {}).get("reported", {}).get("statistic") for n in reported}
        stats.discard(None)
        who = ", ".join(str(ctx.label(n)) for n in reported)
        text = f"Reported figures ({who}) are used as published"
        if stats:
            text += " at " + ", ".join(statistic_name(s) for s in sorted(stats))
        parts.append(text + "; cmpc did not recompute them.")
    return Md(" ".join(parts))


def _fn_tokens(ctx: Context) -> Md:
    tok = ctx.conditions.get("tokens") or {}
    count = tok.get("count") or []
    parts = [
        f"Counted tokens: {escape(' + '.join(count) or DASH)} "
        f"({escape(token_phrase(count))}); reused (prefix-cached) input tokens "
        f"{escape(tok.get('reused') or DASH)}. Throughput is counted tokens per second "
        f"of a run, {escape(PER.get(ctx.per(), ctx.per()))}."
    ]
    rates = []
    unknown = False
    for n in ctx.order:
        s = ctx.systems.get(n) or {}
        if is_number(s.get("hit_rate")):
            rates.append(
                f"{ctx.label(n)} {percent(s['hit_rate'])} "
                f"({escape(s.get('hit_rate_basis') or 'declared')})"
            )
        else:
            unknown = True
            rates.append(f"{ctx.label(n)} unknown")
    parts.append("Prefix-cache hit rates (token-weighted): " + "; ".join(rates) + ".")
    counts_reused = tok.get("reused") == "included" and any(
        k in ("input", "cached_input") for k in count
    )
    if counts_reused and unknown:
        parts.append(
            "Reused input counts as throughput here, so a side with a higher hit "
            "rate looks faster for a reason unrelated to the hardware; with a hit "
            "rate unknown that cannot be checked."
        )
    elif counts_reused and is_number(tok.get("hit_rate_margin")):
        gap = hit_rate_gap(ctx)
        if gap is not None:
            parts.append(Md(gap[:1].upper() + gap[1:]))
        else:
            parts.append(
                f"The sides may differ by at most {number(tok['hit_rate_margin'] * 100)} "
                "percentage points before cmpc warns; they do not."
            )
    return Md(" ".join(parts))


def _fn_norm(ctx: Context) -> Md:
    per = ctx.per()
    gpus = []
    for n in ctx.order:
        irs = ctx.ir_systems.get(n) or {}
        g = get_in(ctx.systems, n, "gpus")
        gpus.append(f"{ctx.label(n)} {number(g)} GPUs{ctx.parallel_note(irs)}")
    parts = [f"Normalization {escape(PER.get(per, per))}"]
    if per == "gpu":
        parts[0] += (
            ": each system's throughput divided by its GPU count, counting every "
            "pool (tp \u00d7 pp \u00d7 pcp \u00d7 dp): " + "; ".join(gpus) + "."
        )
    elif per == "dollar":
        parts[0] += (
            ": tokens per dollar = throughput per GPU \u00d7 3600 \u00d7 "
            "utilization / price per GPU-hour. " + "; ".join(gpus) + "."
        )
    elif per in ("mw", "joule"):
        basis = get_in(ctx.conditions, "normalize", "power_basis")
        parts[0] += (
            ": throughput per GPU divided by power per GPU"
            + (f" ({escape(basis)})" if basis else "")
            + ". "
            + "; ".join(gpus)
            + "."
        )
    else:
        parts[0] += (
            ": throughput per GPU times the GPUs per " + escape(per) + ". " + "; ".join(gpus) + "."
        )
    return Md(" ".join(parts))


def _fn_price(ctx: Context) -> Md:
    cost = ctx.conditions.get("cost") or {}
    basis = cost.get("per_million") or "total"
    parts = [
        f"Cost per million {escape(basis)} tokens = price per GPU-hour / (throughput "
        "per GPU \u00d7 3600 s \u00d7 utilization) \u00d7 10^6, at utilization "
        f"{percent(cost.get('utilization'))}."
    ]
    prices = []
    for n in ctx.order:
        p = get_in(ctx.systems, n, "cost", "price", default={})
        if is_number(p.get("usd_per_gpu_hour")):
            bits = [f"{ctx.price_shown(n)} per GPU-hour", f"{escape(p.get('basis'))} basis"]
            if p.get("source"):
                bits.append(f"source {ctx.source_title(p['source'])}")
            if p.get("as_of"):
                bits.append(f"as of {escape(p['as_of'])}")
            prices.append(f"{ctx.label(n)} " + ", ".join(bits))
        else:
            prices.append(f"{ctx.label(n)} no price")
    parts.append("Prices: " + "; ".join(prices) + ".")
    h = ctx.results.get("headline") or {}
    pg = h.get("per_gpu_throughput_ratio")
    if is_number(pg):
        eq = 1 / pg
        parts.append(
            f"A throughput ratio r at equal prices is a cost ratio 1/r: "
            f"1 / {ratio(pg)} = {ratio(eq)}, "
            f"{percent(abs(eq - 1))} {'lower' if eq < 1 else 'higher'} cost per "
            "token."
        )
        cr, pr = h.get("cost_ratio"), h.get("price_ratio")
        if is_number(cr) and is_number(pr):
            parts.append(
                f"At the declared prices: {ratio(pr)} / {ratio(pg)} = {ratio(cr)}, "
                f"{percent(abs(cr - 1))} {'lower' if cr < 1 else 'higher'}."
            )
    parts.append("Prices are costs of GPU-hours, never token revenue.")
    return Md(" ".join(parts))


def _fn_source(ctx: Context) -> Md:
    groups: dict[tuple, list[str]] = {}
    for n in ctx.order:
        s = ctx.systems.get(n) or {}
        key = ("runs", n) if s.get("data") == "runs" else ("reported", s.get("source"))
        groups.setdefault(key, []).append(n)
    parts = []
    for (kind, ref), names in groups.items():
        who = " and ".join(str(ctx.label(n)) for n in names)
        origin = ctx.origin(names[0])
        if kind == "runs":
            runs = ctx.ir_systems.get(names[0], {}).get("runs") or {}
            text = f"{who}: {ctx.origin_text(names[0])}; file hashes under Data provenance."
            src = ctx.sources.get(runs.get("source")) or {}
            if src.get("url"):
                text += f" Source: {link(src.get('title') or runs['source'], src['url'])}."
            parts.append(text)
            continue
        src = ctx.sources.get(ref) or {}
        bits = [link(src.get("title") or ref or "unknown source", src.get("url"))]
        if src.get("publisher"):
            bits.append(f"publisher {escape(src['publisher'])}")
        if src.get("role"):
            bits.append(escape(ROLES.get(src["role"], src["role"])))
        for k in ("snapshot", "run_date", "retrieved"):
            if src.get(k):
                bits.append(f"{k.replace('_', ' ')} {escape(src[k])}")
        bits.append(escape((src.get("status") or "unverified").replace("_", "-")))
        if src.get("notes"):
            bits.append(escape(src["notes"]))
        text = f"{who}: {origin} by " + "; ".join(bits)
        for n in names:
            rep = ctx.ir_systems.get(n, {}).get("reported") or {}
            what = []
            if is_number(rep.get("ratio")) and rep.get("ratio_to") and rep["ratio_to"] != n:
                what.append(f"ratio {ratio(rep['ratio'])} to {ctx.label(rep['ratio_to'])}")
            if is_number(rep.get("throughput")):
                what.append(
                    f"{number(rep['throughput'])} "
                    f"{escape(rep.get('throughput_unit') or '')}".rstrip()
                )
            if rep.get("points"):
                what.append(f"{len(rep['points'])} sweep points")
            if rep.get("notes"):
                what.append(escape(rep["notes"]))
            if what:
                text += f". {ctx.label(n)}: " + ", ".join(what)
        parts.append(text + ". Not measured by cmpc.")
    return Md(" ".join(parts))
