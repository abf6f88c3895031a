"""The footnotes: the conditions behind every number (latency, tokens, units, price, source)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.readwords import axis_unit, by_latency
from cmpc.report.sections import uncertainty
from cmpc.report.sections.headline import hit_rate_gap
from cmpc.report.text import (
    DASH,
    Md,
    capitalized,
    code,
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
    PUE_FROM,
    READS,
    ROLES,
    statistic_name,
    token_phrase,
)

if TYPE_CHECKING:
    from cmpc.report.sections import fleet
else:  # only a spec with a `fleet` block has its footnote
    fleet = lazy.module("cmpc.report.sections.fleet")


def footnotes(ctx: Context) -> dict[str, Md]:
    notes = {
        "latency": _fn_latency(ctx),
        "tokens": _fn_tokens(ctx),
        "norm": _fn_norm(ctx),
        "price": _fn_price(ctx),
        "source": _fn_source(ctx),
    }
    ci = uncertainty.footnote(ctx) if ctx.systems else None
    if ci is not None:
        notes["ci"] = ci
    fleet_note = fleet.footnote(ctx) if ctx.results.get("fleet") else None
    if fleet_note is not None:
        notes["fleet"] = fleet_note
    if ctx.results.get("overrides"):
        notes["set"] = _fn_set(ctx)
    if ctx.synthetic:
        notes["synthetic"] = Md(
            "The comparison is built from synthetic data (a source with "
            "role `synthetic`): it illustrates the method and says "
            "nothing about the hardware."
        )
    return notes


def _fn_set(ctx: Context) -> Md:
    """What the command line changed, each with the value the reviewed spec file holds."""
    parts = []
    for o in ctx.results.get("overrides") or []:
        path, value, was = code(o.get("path"), False), o.get("value"), o.get("was")
        text = (
            Md("{} = {}").format(path, code(value, False))
            if value is not None
            else Md("{} removed (`--unset`)").format(path)
        )
        parts.append(
            text
            + (
                Md(" (was {} in the spec)").format(code(was, False))
                if was is not None
                else Md(" (not in the spec)")
            )
        )
    return Md(
        "Set on the command line, not in the reviewed spec file {}: {}. Every other value is "
        "the spec's."
    ).format(code(get_in(ctx.results, "spec", "file"), False), Md("; ").join(parts))


def _fn_latency(ctx: Context) -> Md:
    lat = ctx.conditions.get("latency") or {}
    metric = lat.get("metric") or "tpot"
    stat = statistic_name(lat.get("statistic"))
    t = ctx.target()
    parts = [
        Md("Latency constraint: the {}{} over requests of {}{}; TTFT {}.").format(
            stat,
            ctx.set_note("latency.statistic"),
            METRICS.get(metric, metric),
            ctx.set_note("latency.metric"),
            lat.get("ttft") or DASH,
        )
    ]
    if t and is_number(t.get("interactivity_tok_s_user")) and t["interactivity_tok_s_user"] > 0:
        parts.append(
            Md(
                "Interactivity = 1 / {stat}({metric}) in "
                "tokens per second per user: the statistic of the latency, inverted (never the "
                "statistic of 1/latency). The target {target} "
                "tok/s/user{set} is a {stat} {metric} of "
                "{at} {unit}."
            ).format(
                stat=stat,
                metric=METRIC_NAMES.get(metric, metric),
                target=number(t["interactivity_tok_s_user"]),
                set=ctx.set_note("latency.target"),
                at=number(axis_unit(ctx).of_ms(t.get("latency_ms"))),
                unit=axis_unit(ctx).symbol,
            )
        )
    elif t:
        unit = axis_unit(ctx)
        parts.append(
            Md("The target is a {} of {} {}{}.").format(
                stat,
                number(unit.of_ms(t.get("latency_ms"))),
                unit.symbol,
                ctx.set_note("latency.target"),
            )
        )
    elif by_latency(ctx):  # ttft or e2el with no target: peaks, placed by their latency
        parts.append(
            Md(
                "No target: each system is read at its peak throughput, placed by its {} {} "
                "in {}; 1 / {} is no per-user token rate, so no interactivity is shown."
            ).format(
                stat,
                METRIC_NAMES.get(metric, metric),
                axis_unit(ctx).symbol,
                METRIC_NAMES.get(metric, metric),
            )
        )
    method = lat.get("percentile_method") or "linear"
    sketch = ctx.conditions.get("percentile_sketch")
    if sketch:
        parts.append(
            Md(
                "Percentiles of {metric} (and the median): from a DDSketch of relative accuracy "
                "{alpha} per run (`--sketch`, library `{library}`), not exact: {bound}; means, "
                "throughputs and token counts are exact."
            ).format(
                metric=METRIC_NAMES.get(metric, metric),
                alpha=number(sketch.get("relative_accuracy")),
                library=sketch.get("library"),
                bound=sketch.get("bound"),
            )
        )
    else:
        parts.append(
            Md("Percentiles: numpy's `{}` method over per-request values").format(method)
            + (Md(" (Hyndman\u2013Fan type 7).") if method == "linear" else Md("."))
        )
    aggregate = [n for n in ctx.order if get_in(ctx.systems, n, "per_request") in ("some", "none")]
    if aggregate:
        parts.append(
            Md(
                "Runs without per-request data ({}) give the statistic their tool published, "
                "as it computed it."
            ).format(Md(", ").join(ctx.label(n) for n in aggregate))
        )
    pooled = _pooled(ctx, lat.get("statistic") or "median", metric)
    if pooled is not None:
        parts.append(pooled)
    read = lat.get("read") or "steffen"
    how = READS.get(read) or escape(read)
    if ctx.target():
        parts.append(
            Md(
                "Read: {}; nothing is extrapolated: a target harder than every measured point is "
                "unreachable, one easier than every point is met and read as a lower bound (the "
                "best throughput measured beyond it)."
            ).format(how)
        )
    else:
        parts.append(
            Md(
                "Read: with no target each system's figure is the highest throughput it "
                "measured (its frontier's peak; with one run, that run's); rows at equal {}, "
                "where shown, are read by {}, each row's value standing for the target, and "
                "only within the range both frontiers cover."
            ).format(Md("latency" if by_latency(ctx) else "interactivity"), how)
        )
    reported = [n for n in ctx.order if get_in(ctx.systems, n, "data") == "reported"]
    if reported:
        stats = {ctx.ir_systems.get(n, {}).get("reported", {}).get("statistic") for n in reported}
        stats.discard(None)
        who = Md(", ").join(ctx.label(n) for n in reported)
        text = Md("Reported figures ({}) are used as published").format(who)
        if stats:
            text += Md(" at ") + Md(", ").join(statistic_name(s) for s in sorted(stats))
        parts.append(text + Md("; cmpc did not recompute them."))
    return Md(" ").join(parts)


def _pooled(ctx: Context, statistic: str, metric: str) -> Md | None:
    """Repetitions pooled (results.json `systems.*.pooled`): the statistic over every request
    of the runs at one load, and how it was computed (exact, or merged sketches)."""
    shown: list[Md] = []
    methods: set[tuple[str, object]] = set()
    for name in ctx.order:
        for group in get_in(ctx.systems, name, "pooled") or ():
            value = (group.get("latency_s") or {}).get(statistic)
            if not is_number(value):
                continue
            pairs = sorted((group.get("load") or {}).items())
            load = ", ".join(f"{k} {v}" for k, v in pairs)
            runs = group.get("runs") or ()
            ms = ctx.fig.add(  # a displayed number: a row of figures.csv
                f"{name}.pooled.{'.'.join(f'{k}_{v}' for k, v in pairs)}.{statistic}",
                f"{statistic} {metric} over every request of the runs at {load} "
                f"({group.get('method')})",
                1000.0 * value,
                "ms",
                number(1000.0 * value),
                system=name,
                source="; ".join(str(r) for r in runs),
            )
            shown.append(
                Md("{} at {}: {} ms over {} requests of {} runs").format(
                    ctx.label(name), load, ms, number(group.get("values")), number(len(runs))
                )
            )
            methods.add((str(group.get("method")), group.get("relative_accuracy")))
    if not shown:
        return None
    if {m for m, _ in methods} == {"ddsketch"}:
        alphas = sorted({a for _, a in methods if is_number(a)})
        how = Md(
            "from the runs' DDSketches merged on the client (bins added, so any order gives the "
            "same sketch), not exact: each within ±{} (relative) of the pooled value of rank "
            "⌊q·(n−1)⌋"
        ).format(Md(", ").join(percent(a) for a in alphas))
    else:
        how = Md("exact, numpy's `{}` method over the pooled values").format(
            ", ".join(sorted(m for m, _ in methods))
        )
    return Md("Repetitions pooled (runs of one system at one load): the {} of {}, {}: {}.").format(
        statistic_name(statistic), METRIC_NAMES.get(metric, metric), how, Md("; ").join(shown)
    )


def _fn_tokens(ctx: Context) -> Md:
    tok = ctx.conditions.get("tokens") or {}
    count = tok.get("count") or []
    parts = [
        Md(
            "Counted tokens: {} ({}); reused (prefix-cached) input tokens {}. Throughput is "
            "counted tokens per second of a run, {}."
        ).format(
            " + ".join(count) or DASH,
            token_phrase(count),
            tok.get("reused") or DASH,
            PER.get(ctx.per(), ctx.per()),
        )
    ]
    rates = []
    unknown = False
    for n in ctx.order:
        s = ctx.systems.get(n) or {}
        if is_number(s.get("hit_rate")):
            rates.append(
                Md("{} {} ({})").format(
                    ctx.label(n), percent(s["hit_rate"]), s.get("hit_rate_basis") or "declared"
                )
            )
        else:
            unknown = True
            rates.append(Md("{} unknown").format(ctx.label(n)))
    parts.append(Md("Prefix-cache hit rates (token-weighted): {}.").format(Md("; ").join(rates)))
    counts_reused = tok.get("reused") == "included" and any(
        k in ("input", "cached_input") for k in count
    )
    if counts_reused and unknown:
        parts.append(
            Md(
                "Reused input counts as throughput here, so a side with a higher hit "
                "rate looks faster for a reason unrelated to the hardware; with a hit "
                "rate unknown that cannot be checked."
            )
        )
    elif counts_reused and is_number(tok.get("hit_rate_margin")):
        gap = hit_rate_gap(ctx)
        if gap is not None:
            parts.append(capitalized(gap))
        else:
            parts.append(
                Md(
                    "The sides may differ by at most {} percentage points before cmpc warns; "
                    "they do not."
                ).format(number(tok["hit_rate_margin"] * 100))
            )
    return Md(" ").join(parts)


def _fn_norm(ctx: Context) -> Md:
    per = ctx.per()
    gpus = Md("; ").join(
        Md("{} {} GPUs{}").format(
            ctx.label(n),
            number(get_in(ctx.systems, n, "gpus")),
            ctx.parallel_note(ctx.ir_systems.get(n) or {}),
        )
        for n in ctx.order
    )
    text = Md("Normalization {}").format(PER.get(per, per))
    if per == "gpu":
        text += Md(
            ": each system's throughput divided by its GPU count, counting every "
            "pool (tp \u00d7 pp \u00d7 pcp \u00d7 dp): {}."
        ).format(gpus)
    elif per == "dollar":
        text += Md(
            ": tokens per dollar = throughput per GPU \u00d7 3600 \u00d7 "
            "utilization / price per GPU-hour. {}."
        ).format(gpus)
    elif per == "mw":
        text += _fn_mw(ctx, gpus)
    elif per == "joule":
        basis = get_in(ctx.conditions, "normalize", "power_basis")
        text += Md(": throughput per GPU divided by power per GPU{}. {}.").format(
            Md(" ({})").format(basis) if basis else Md(""), gpus
        )
    elif per == "node":
        nodes = {n: (ctx.ir_systems.get(n) or {}).get("nodes", 1) for n in ctx.order}
        on_nodes = Md("; ").join(
            Md("{} {} GPUs{} on {} {}").format(
                ctx.label(n),
                number(get_in(ctx.systems, n, "gpus")),
                ctx.parallel_note(ctx.ir_systems.get(n) or {}),
                number(nodes[n]),
                "node" if nodes[n] == 1 else "nodes",
            )
            for n in ctx.order
        )
        text += Md(
            ": each system's throughput divided by its nodes (throughput per GPU times "
            "the GPUs per node): {}."
        ).format(on_nodes)
    else:
        text += Md(": throughput per GPU times the GPUs per {}. {}.").format(per, gpus)
    return text


def _fn_mw(ctx: Context, gpus: Md) -> Md:
    """Per MW: facility power is the GPU's power times the PUE where one is stated, else the
    megawatt is IT power and the note says no PUE was applied (InferenceX: facility W = IT W x
    PUE)."""
    basis = get_in(ctx.conditions, "normalize", "power_basis")
    energies = {n: get_in(ctx.systems, n, "energy", default=None) or {} for n in ctx.order}
    with_pue = [n for n, e in energies.items() if is_number(e.get("pue"))]
    watts = Md(" ({})").format(basis) if basis else Md("")
    if not with_pue:
        return Md(
            ": throughput per GPU \u00d7 10^6 / power per GPU{}, a megawatt of IT power: no "
            "PUE is declared, so none was applied (facility megawatts are IT power \u00d7 the "
            "PUE of the data centre). {}."
        ).format(watts, gpus)
    parts = []
    for n, e in energies.items():
        w = e.get("watts_per_gpu")
        if n in with_pue:
            parts.append(
                Md("{} {} W \u00d7 PUE {} ({}) = {} W").format(
                    ctx.label(n),
                    number(w),
                    number(e["pue"]),
                    Md(PUE_FROM.get(str(e.get("pue_from")), "stated")),
                    number(w * e["pue"]) if is_number(w) else number(None),
                )
            )
        else:
            parts.append(Md("{} {} W (no PUE declared: IT power)").format(ctx.label(n), number(w)))
    text = Md(
        ": throughput per GPU \u00d7 10^6 / facility power per GPU, the power per GPU{} "
        "\u00d7 the PUE where the system runs: {}."
    ).format(watts, Md("; ").join(parts))
    if len(with_pue) < len(energies):
        text += Md(
            " A ratio between a system with a PUE and one without compares facility megawatts "
            "with IT megawatts: declare the PUE where each system runs."
        )
    return text + Md(" {}.").format(gpus)


def _fn_price(ctx: Context) -> Md:
    cost = ctx.conditions.get("cost") or {}
    basis = cost.get("per_million") or "total"
    parts = [
        Md(
            "Cost per million {} tokens = price per GPU-hour / (throughput "
            "per GPU \u00d7 3600 s \u00d7 utilization) \u00d7 10^6, at utilization {}{}."
        ).format(
            basis,
            percent(cost.get("utilization")),
            ctx.set_note("cost.utilization"),
        )
    ]
    prices = []
    for n in ctx.order:
        p = get_in(ctx.systems, n, "cost", "price", default={})
        if is_number(p.get("usd_per_gpu_hour")):
            bits = [ctx.price_shown(n) + Md(" per GPU-hour"), Md("{} basis").format(p.get("basis"))]
            billing = ctx.billing(n)
            if billing is not None:
                bits.append(
                    Md("billed for {} GPUs, runs on {}: {}").format(
                        billing[0], billing[1], ctx.used_price_shown(n)
                    )
                )
            given = p.get("set_on_command_line") or []
            if "amount" in given:
                bits.append(ctx.set_text(f"system.{n}.price") or Md("set on the command line"))
            if p.get("source"):
                bits.append(Md("source {}").format(ctx.price_source_md(p)))
            if p.get("as_of"):
                bits.append(Md("as of {}").format(ctx.price_date_md(p)))
            prices.append(Md("{} {}").format(ctx.label(n), Md(", ").join(bits)))
        else:
            prices.append(Md("{} no price").format(ctx.label(n)))
    parts.append(Md("Prices: {}.").format(Md("; ").join(prices)))
    if any(ctx.billing(n) is not None for n in ctx.order):
        parts.append(
            Md(
                "A system billed for more GPUs than it runs on pays for all of them: its cost "
                "per token uses the price per used GPU-hour (price \u00d7 GPUs billed / GPUs "
                "used), its per-GPU throughput the GPUs used."
            )
        )
    h = ctx.results.get("headline") or {}
    pg = h.get("per_gpu_throughput_ratio")
    if is_number(pg):
        eq = 1 / pg
        parts.append(
            Md(
                "A throughput ratio r at equal prices is a cost ratio 1/r: "
                "1 / {} = {}, {} {} cost per token."
            ).format(ratio(pg), ratio(eq), percent(abs(eq - 1)), "lower" if eq < 1 else "higher")
        )
        cr, pr = h.get("cost_ratio"), h.get("price_ratio")
        if is_number(cr) and is_number(pr):
            parts.append(
                Md("At the declared prices: {} / {} = {}, {} {}.").format(
                    ratio(pr),
                    ratio(pg),
                    ratio(cr),
                    percent(abs(cr - 1)),
                    "lower" if cr < 1 else "higher",
                )
            )
    parts.append(Md("Prices are costs of GPU-hours, never token revenue."))
    return Md(" ").join(parts)


def _fn_source(ctx: Context) -> Md:
    groups: dict[tuple, list[str]] = {}
    for n in ctx.order:
        s = ctx.systems.get(n) or {}
        key = ("runs", n) if s.get("data") == "runs" else ("reported", s.get("source"))
        groups.setdefault(key, []).append(n)
    parts = []
    for (kind, ref), names in groups.items():
        who = Md(" and ").join(ctx.label(n) for n in names)
        if kind == "runs":
            runs = ctx.ir_systems.get(names[0], {}).get("runs") or {}
            text = Md("{}: {}; file hashes under Data provenance.").format(
                who, ctx.origin_text(names[0])
            )
            src = ctx.sources.get(runs.get("source")) or {}
            if src.get("url"):
                title = src.get("title") or runs["source"]
                text += Md(" Source: {}.").format(link(title, src["url"]))
            parts.append(text)
            continue
        src = ctx.sources.get(ref) or {}
        bits = [link(src.get("title") or ref or "unknown source", src.get("url"))]
        if src.get("publisher"):
            bits.append(Md("publisher {}").format(src["publisher"]))
        if src.get("role"):
            bits.append(escape(ROLES.get(src["role"], src["role"])))
        for k in ("snapshot", "run_date", "retrieved"):
            if src.get(k):
                bits.append(Md("{} {}").format(k.replace("_", " "), src[k]))
        bits.append(escape((src.get("status") or "unverified").replace("_", "-")))
        if src.get("notes"):
            bits.append(escape(src["notes"]))
        text = Md("{}: {} by {}").format(who, ctx.origin(names[0]), Md("; ").join(bits))
        for n in names:
            rep = ctx.ir_systems.get(n, {}).get("reported") or {}
            what = []
            if is_number(rep.get("ratio")) and rep.get("ratio_to") and rep["ratio_to"] != n:
                what.append(
                    Md("ratio {} to {}").format(ratio(rep["ratio"]), ctx.label(rep["ratio_to"]))
                )
            if is_number(rep.get("throughput")):
                unit = escape(rep.get("throughput_unit") or "")
                shown = number(rep["throughput"])
                what.append(shown + Md(" ") + unit if unit else shown)
            if rep.get("points"):
                what.append(Md("{} sweep points").format(len(rep["points"])))
            if rep.get("notes"):
                what.append(escape(rep["notes"]))
            if what:
                text += Md(". {}: {}").format(ctx.label(n), Md(", ").join(what))
        parts.append(text + Md(". Not measured by cmpc."))
    return Md(" ").join(parts)
