"""SVG figures (drawn by cmpc.report.svg) and figures.csv: deterministic, byte for byte."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from cmpc import lazy

if TYPE_CHECKING:
    import textwrap

    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13
else:  # only bar charts wrap their category labels: not every report draws one
    textwrap = lazy.module("textwrap")

from cmpc.analysis.stage import recall_exact
from cmpc.compute.frontier import Method, Point, by_latency, read_at, steffen_curve
from cmpc.jsontypes import JsonObject
from cmpc.report import svg
from cmpc.report.latency_unit import MS, LatencyUnit, along_latency, latency_unit
from cmpc.report.text import Md, csv_value, number, ratio, usd
from cmpc.report.words import METRIC_NAMES, PER, latency_name, statistic_name, token_phrase
from cmpc.safe_text import csv_cell

COLORS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def _finite(x: object) -> TypeIs[float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _text(label: object) -> str:
    """Spec text for a plot: one line."""
    return " ".join(str(label).split())


def _wrap(label: object, width: int = 16) -> str:
    return textwrap.fill(_text(label), width)


def has_sweep(results: JsonObject) -> bool:
    return any((s or {}).get("points") for s in (results.get("systems") or {}).values())


def one_run_each(results: JsonObject) -> bool:
    """Every system with points has exactly one: a frontier would be a lone dot per system."""
    counts = [len(s.get("points") or []) for s in (results.get("systems") or {}).values() if s]
    return bool(counts) and max(counts) == 1


def figure_conditions(results: JsonObject) -> tuple[str, ...]:
    """What every plotted number holds under, as phrases for the figure's conditions line:
    model, latency metric and statistic, tokens counted, normalization, source and date."""
    cond = results.get("conditions") or {}
    ir_systems = (results.get("ir") or {}).get("systems") or []
    phrases: list[str] = []
    models = sorted({_text(s["model"]) for s in ir_systems if s.get("model")})
    if models:
        phrases.append("model " + ", ".join(models))
    lat = cond.get("latency") or {}
    if lat:
        metric = METRIC_NAMES.get(lat.get("metric") or "tpot", lat.get("metric") or "tpot")
        text = f"{statistic_name(lat.get('statistic'))} {metric}, TTFT {lat.get('ttft') or 'n/a'}"
        target = lat.get("target") or {}
        if target.get("given_as") == "interactivity" and _finite(target.get("value")):
            text += f", target {number(target['value'])} tok/s/user"
        elif _finite(target.get("value")):  # a duration: as the spec gave it (`1 s`, `250 ms`)
            text += f", target {number(target['value'])} {target.get('unit') or 'ms'}"
        phrases.append(text)
    tok = cond.get("tokens") or {}
    if tok.get("count"):
        phrases.append(
            token_phrase(tok["count"]) + (f", reused {tok['reused']}" if tok.get("reused") else "")
        )
    per = ((cond.get("normalize") or {}).get("per")) or "gpu"
    phrases.append("throughput " + PER.get(per, per))
    phrases.extend(_source_phrases(results))
    return tuple(phrases)


def _source_phrases(results: JsonObject) -> list[str]:
    sources = {s.get("name"): s for s in results.get("sources") or []}
    used: list[str] = []
    runs = False
    for s in (results.get("systems") or {}).values():
        runs = runs or s.get("data") == "runs"
        if s.get("source") and s["source"] not in used:
            used.append(s["source"])
    for irs in (results.get("ir") or {}).get("systems") or []:
        src = (irs.get("runs") or {}).get("source")
        if src and src not in used:
            used.append(src)
    out = []
    for name in used:
        src = sources.get(name) or {}
        text = _text(src.get("title") or name)
        dates = [f"{k.replace('_', ' ')} {src[k]}" for k in ("snapshot", "run_date") if src.get(k)]
        out.append(f"source {text}" + (f", {', '.join(dates)}" if dates else ""))
    if runs:
        out.append("runs read by cmpc")
    return out


def _load_text(point: JsonObject) -> str:
    """A point's load as its label: `c64`, `4 req/s`, `sync`, `all at once`, or empty."""
    if point.get("load"):
        return _text(point["load"])
    rate = point.get("request_rate")
    if _finite(rate):
        return f"{rate:g} req/s"
    conc = point.get("concurrency")
    return f"c{conc:g}" if _finite(conc) else ""


def _cost_at(results: JsonObject, name: str, per_gpu: object) -> str:
    """Cost per million tokens at one point, when the cost's tokens are the counted ones."""
    s = (results.get("systems") or {}).get(name) or {}
    cond = results.get("conditions") or {}
    price = (s.get("cost") or {}).get("usd_per_gpu_hour")
    util = (cond.get("cost") or {}).get("utilization")
    basis = (cond.get("cost") or {}).get("per_million") or "total"
    counted = sorted((cond.get("tokens") or {}).get("count") or [])
    same = (basis == "total" and counted == ["input", "output"]) or (
        basis == "output" and counted == ["output"]
    )
    if not (same and _finite(price) and _finite(util) and _finite(per_gpu) and per_gpu > 0):
        return "n/a"
    return f"{usd(price / (per_gpu * 3600 * util) * 1e6)} per million {basis} tokens"


def _tip(
    results: JsonObject,
    name: str,
    label: str,
    point: JsonObject,
    unit: str,
    k: float,
    load: str = "",
) -> str:
    """A point's hover text: system, load, interactivity (or the latency, for a duration
    target, in its unit), throughput, cost and run file."""
    per_gpu = point.get("throughput_per_gpu")
    load = _load_text(point) or load or "n/a"
    lines = [
        f"system: {label}",
        f"load: {load}",
        _axis_text(results, point),
        f"throughput: {number(_times(per_gpu, k))} {_text(unit)}",
        f"cost: {_cost_at(results, name, per_gpu)}",
        f"run: {_text(point.get('label') or 'n/a')}",
    ]
    return "\n".join(lines)


def _axis_text(results: JsonObject, point: JsonObject) -> str:
    """`interactivity: 36.19 tok/s/user`, or `P90 TTFT: 0.339 s` when read along latency."""
    x = point.get("interactivity_tok_s_user")
    latency = (results.get("conditions") or {}).get("latency") or {}
    if read_axis_word(results) == "latency":
        unit = latency_unit(latency)
        return f"{latency_name(latency)}: {number(unit.of_interactivity(x))} {unit.symbol}"
    return f"interactivity: {number(x)} tok/s/user"


def _scale(results: JsonObject) -> tuple[dict, str]:
    """Per-system factor from tok/s/gpu to the normalization unit, and the unit plotted."""
    unit = ((results.get("conditions") or {}).get("normalize") or {}).get("unit") or "tok/s/gpu"
    systems = results.get("systems") or {}
    if unit == "tok/s/gpu":
        return {n: 1.0 for n in systems}, unit
    scales = {}
    for name, s in systems.items():
        at = (s or {}).get("at_target") or {}
        per_unit, per_gpu = at.get("throughput_per_unit"), at.get("throughput_per_gpu")
        if not (_finite(per_unit) and _finite(per_gpu) and per_gpu):
            if s.get("points"):
                return {n: 1.0 for n in systems}, "tok/s/gpu"
            continue
        scales[name] = per_unit / per_gpu
    return scales, unit


def read_axis_word(results: JsonObject) -> str:
    """`latency` when a duration target is read along latency, else `interactivity`."""
    latency = (results.get("conditions") or {}).get("latency") or {}
    return "latency" if along_latency(latency) else "interactivity"


def frontier_svg(results: JsonObject, order: list[str], labels: dict[str, str]) -> str:
    """Throughput per unit against interactivity: points, frontier as read, target, reads."""
    systems = results.get("systems") or {}
    latency = (results.get("conditions") or {}).get("latency") or {}
    method = latency.get("read") or "steffen"
    target = (latency.get("target") or {}).get("interactivity_tok_s_user")
    # a duration target is read along latency (lower is better): x is the latency, in the
    # target's unit (ms or s)
    along = along_latency(latency)
    unit = latency_unit(latency)
    if along:
        target = unit.of_ms((latency.get("target") or {}).get("latency_ms"))
    x_of = unit.of_interactivity if along else _same
    scales, per_unit = _scale(results)

    marks: list[svg.Points | svg.Line | svg.VLine | svg.Flag] = []
    unreachable: list[tuple[str, str]] = []
    for i, name in enumerate(order):
        s = systems.get(name) or {}
        points = s.get("points") or []
        if not points:
            continue
        k = scales.get(name, 1.0)
        origin = "measured" if s.get("data") == "runs" else "reported"
        origin = "synthetic" if results.get("synthetic") else origin
        color = COLORS[i % len(COLORS)]
        label = _text(labels[name])
        xs = tuple(x_of(p.get("interactivity_tok_s_user")) for p in points)
        ys = tuple(_times(p.get("throughput_per_gpu"), k) for p in points)
        on_front = {
            (p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu"))
            for p in s.get("frontier") or []
        }
        notes = tuple(
            _load_text(p)
            if (p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu")) in on_front
            else ""
            for p in points
        )
        tips = tuple(_tip(results, name, label, p, per_unit, k) for p in points)
        marks.append(
            svg.Points(
                xs,
                ys,
                color,
                f"{label}: {origin} points",
                size=3.5,
                opacity=0.55,
                notes=notes,
                tips=tips,
                series=i,
            )
        )
        front = [
            Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
            for p in s.get("frontier") or []
        ]
        if along:
            front = list(by_latency(front))  # x = -latency: the read's own axis
        if len(front) >= 2:
            grid, curve = _frontier_curve(front, method)
            ys = tuple(_times(c, k) for c in curve)
            gx = tuple(-float(x) / unit.ms_per_unit if along else float(x) for x in grid)
            marks.append(svg.Line(gx, ys, color, f"{label}: frontier ({method})", series=i))
        elif front:
            marks.append(
                svg.Points(
                    (
                        -front[0].interactivity / unit.ms_per_unit
                        if along
                        else front[0].interactivity,
                    ),
                    (_times(front[0].throughput, k),),
                    color,
                    f"{label}: frontier (one point)",
                    shape="square",
                    size=4.5,
                    series=i,
                )
            )
        at = s.get("at_target") or {}
        value = at.get("throughput_per_gpu")
        bound_at = at.get(
            "measured_at_latency_ms" if along else "measured_at_interactivity_tok_s_user"
        )
        if along:
            bound_at = unit.of_ms(bound_at)
        lower = _finite(bound_at)  # a lower bound sits where it was measured, not at the target
        if _finite(value) and (lower or _finite(target)):
            marks.append(
                svg.Points(
                    (bound_at if lower else target,),
                    (value * k,),
                    color,
                    f"{label}: {'lower bound' if lower else 'read at target'}",
                    shape="triangle" if lower else "diamond",
                    size=6.5,
                    edge="black",
                    series=i,
                )
            )
        elif at.get("reachable") is False:
            unreachable.append((name, color))
    if _finite(target):
        target_label = (
            f"target {target:g} {unit.symbol}" if along else f"target {target:g} tok/s/user"
        )
        marks.append(svg.VLine(target, "black", target_label))
        for j, (name, color) in enumerate(unreachable):
            marks.append(svg.Flag(target, f"{_text(labels[name])}: unreachable", color, j))
    axes = svg.Axes(
        tuple(marks),
        xlabel=_latency_label(latency) if along else "interactivity (tok/s/user)",
        ylabel=f"throughput ({_text(per_unit)})",
    )
    return svg.render(
        svg.Chart(
            (axes,),
            f"Throughput {_per(results)} against {'latency' if along else 'interactivity'}",
            columns=3,
            conditions=figure_conditions(results),
            synthetic=bool(results.get("synthetic")),
        )
    )


def _per(results: JsonObject) -> str:
    per = (((results.get("conditions") or {}).get("normalize") or {}).get("per")) or "gpu"
    return PER.get(per, per)


def runs_svg(results: JsonObject, order: list[str], labels: dict[str, str]) -> str:
    """One run per system: a bar of throughput at the measured point, its load and
    interactivity under it (a frontier of one dot per system would show an empty plane)."""
    systems = results.get("systems") or {}
    scales, unit = _scale(results)
    names = [n for n in order if (systems.get(n) or {}).get("points")]
    bars = []
    categories = []
    for i, name in enumerate(names):
        s = systems[name]
        point = s["points"][0]
        k = scales.get(name, 1.0)
        value = _times(point.get("throughput_per_gpu"), k)
        label = _text(labels[name])
        load = _load_text(point) or "; ".join(
            _text(t) for t in ((results.get("load") or {}).get("systems") or {}).get(name) or []
        )
        x = point.get("interactivity_tok_s_user")
        under = _axis_text(results, point).split(": ", 1)[1] if _finite(x) else ""
        categories.append("\n".join(t for t in (label, load, under) if t))
        tip = _tip(results, name, label, point, unit, k, load=load)
        bars.append(
            svg.Bars(
                (float(i),),
                (value if _finite(value) else 0.0,),
                COLORS[order.index(name) % len(COLORS)],
                0.6,
                label=label,
                notes=(str(number(value)) if _finite(value) else "n/a",),
                tips=(tip,),
                series=i,
            )
        )
    axes = svg.Axes(
        tuple(bars),
        ylabel=f"throughput ({_text(unit)})",
        title="one measured run per system",
        categories=tuple(categories),
        ytop=_headroom([b.heights[0] for b in bars]),
    )
    return svg.render(
        svg.Chart(
            (axes,),
            f"Throughput {_per(results)} at the measured point",
            columns=3,
            conditions=figure_conditions(results),
            synthetic=bool(results.get("synthetic")),
        )
    )


def runs_axis(results: JsonObject) -> Md:
    """What the runs figure states under each bar besides the load: `interactivity`, or the
    latency (`P90 TTFT`) when the read goes along latency."""
    latency = (results.get("conditions") or {}).get("latency") or {}
    return Md(latency_name(latency)) if along_latency(latency) else Md("interactivity")


def frontier_caption(results: JsonObject) -> tuple[Md, Md]:
    """The frontier figure's x axis and a caption naming only the marks the figure holds."""
    systems = [s or {} for s in (results.get("systems") or {}).values()]
    target = ((results.get("conditions") or {}).get("latency") or {}).get("target") or {}
    along = along_latency((results.get("conditions") or {}).get("latency") or {})
    fronts = [len(s.get("frontier") or []) for s in systems if s.get("points")]
    ats = [s.get("at_target") or {} for s in systems if s.get("points")]
    parts = [Md("Dots: runs (measured, or as a source reported them)")]
    if any(n >= 2 for n in fronts):
        parts.append(
            Md("lines: each system's Pareto frontier read with the spec's method[^latency]")
        )
    if any(n == 1 for n in fronts):
        parts.append(Md("squares: a frontier of one point"))
    if target:
        parts.append(Md("dashed line: the target"))
    if target and any(_finite(a.get("throughput_per_gpu")) and not a.get("bound") for a in ats):
        parts.append(Md("diamonds: the values read at the target"))
    if any(a.get("bound") == "lower" for a in ats):
        parts.append(
            Md(
                "triangles: lower bounds, the best throughput measured beyond the target, "
                "drawn where it was measured"
            )
        )
    if target and any(a.get("reachable") is False for a in ats):
        parts.append(Md("crosses: systems that do not reach it"))
    latency = (results.get("conditions") or {}).get("latency") or {}
    axis = (
        Md("latency ({} in {}, lower is better)").format(
            latency_name(latency), latency_unit(latency).symbol
        )
        if along
        else Md("interactivity")
    )
    return axis, Md("; ").join(parts) + Md(".")


def _same(x: object) -> object:
    return x


def _latency_label(latency: JsonObject) -> str:
    """The latency axis's label, in the target's unit: `P90 TTFT (s)`."""
    return f"{latency_name(latency)} ({latency_unit(latency).symbol})"


def summary_svg(
    view: JsonObject, results: JsonObject, order: list[str], labels: dict[str, str]
) -> str:
    """Reported figures only: throughput relative to the baseline, and relative cost per token
    under equal prices and each declared price scenario."""
    baseline = str(results.get("baseline"))  # the checker requires one
    systems = results.get("systems") or {}
    absolute: dict[str, Any] = {
        n: ((systems.get(n) or {}).get("at_target") or {}).get("throughput_per_unit") for n in order
    }
    unit = ((results.get("conditions") or {}).get("normalize") or {}).get("unit") or ""
    if all(_finite(v) for v in absolute.values()):
        has_target = bool(((results.get("conditions") or {}).get("latency") or {}).get("target"))
        where = "at the target" if has_target else "as reported"
        tput, tput_label = absolute, f"throughput {where} ({unit})"
    else:
        ratios: dict[str, Any] = {baseline: 1.0}
        for c in results.get("comparisons") or []:
            ratios[c.get("system")] = c.get("throughput_ratio")
        tput = {n: ratios.get(n) for n in order}
        tput_label = f"throughput {unit} relative to {_text(labels.get(baseline, baseline))}"
    scenarios = view["cost"]["scenarios"]

    xs = tuple(float(i) for i in range(len(order)))
    is_absolute = tput is absolute
    left = [
        svg.Bars(
            (x,),
            (tput[n] if _finite(tput[n]) else 0.0,),
            COLORS[i % len(COLORS)],
            0.6,
            notes=(_shown(tput[n], absolute=is_absolute),),
            tips=(f"system: {_text(labels[n])}\n{tput_label}: {_shown(tput[n], is_absolute)}",),
            series=i,
        )
        for i, (x, n) in enumerate(zip(xs, order, strict=True))
    ]
    width = 0.8 / max(len(order), 1)
    right = []
    for i, n in enumerate(order):
        gx = tuple(g + (i - (len(order) - 1) / 2) * width for g in range(len(scenarios)))
        vals = [row["values"].get(n) for row in scenarios]
        right.append(
            svg.Bars(
                gx,
                tuple(v if _finite(v) else 0.0 for v in vals),
                COLORS[i % len(COLORS)],
                width * 0.95,
                label=_text(labels[n]),
                notes=tuple(_shown(v) for v in vals),
                note_size=9.5,
                tips=tuple(
                    f"system: {_text(labels[n])}\nscenario: {_text(row['scenario'])}\n"
                    f"cost per token relative to the baseline: {_shown(v)}"
                    for row, v in zip(scenarios, vals, strict=True)
                ),
                series=i,
            )
        )
    tops = [v for row in scenarios for v in row["values"].values() if _finite(v)]
    baseline_label = _text(labels.get(baseline, baseline))
    panels = (
        svg.Axes(
            tuple(left),
            ylabel=tput_label,
            title="throughput",
            categories=tuple(_wrap(labels[n]) for n in order),
            ytop=_headroom([tput[n] for n in order]),
        ),
        svg.Axes(
            tuple(right),
            ylabel=f"cost per token relative to {baseline_label}",
            title="cost per token by price scenario",
            categories=tuple(_wrap(r["scenario"], 12) for r in scenarios),
            ytop=max(tops, default=1.0) * 1.3,
        ),
    )
    return svg.render(
        svg.Chart(
            panels,
            "Throughput and cost per token",
            columns=3,
            conditions=figure_conditions(results),
            synthetic=bool(results.get("synthetic")),
        )
    )


def has_latency_cdf(results: JsonObject) -> bool:
    return any((s or {}).get("latency_cdf") for s in (results.get("systems") or {}).values())


def latency_cdf_points(
    results: JsonObject, order: list[str]
) -> list[tuple[str, str, float, float, str]]:
    """(system, metric, percentile, value, unit) of every plotted CDF point, for figures.csv."""
    rows = []
    latency = (results.get("conditions") or {}).get("latency") or {}
    for name in order:
        cdf = ((results.get("systems") or {}).get(name) or {}).get("latency_cdf")
        if not cdf:
            continue
        for metric in ("ttft", "tpot"):
            unit = _panel_unit(latency, metric)
            for q, v in zip(cdf["percentiles"], cdf[f"{metric}_s"], strict=True):
                rows.append((name, metric, float(q), _of_s(v, unit), unit.symbol))
    return rows


def _panel_unit(latency: JsonObject, metric: str) -> LatencyUnit:
    """A CDF panel's unit: the latency axis's for the constrained metric, else ms."""
    return latency_unit(latency) if metric == (latency.get("metric") or "tpot") else MS


def _of_s(seconds: float, unit: LatencyUnit) -> float:
    """Seconds in `unit`: s as they are, ms times 1000 (as figures.csv gave them before)."""
    return float(seconds) if unit.symbol == "s" else float(seconds) * 1000


def latency_svg(results: JsonObject, order: list[str], labels: dict[str, str]) -> str:
    """CDFs of per-request TTFT and TPOT per system (the run nearest the target), with the
    target and the SLOs marked, as AIPerf users read a run first."""
    systems = results.get("systems") or {}
    latency = (results.get("conditions") or {}).get("latency") or {}
    stat = latency.get("statistic") or "p90"
    panels = []
    for metric, title in (("ttft", "TTFT"), ("tpot", "TPOT")):
        unit = _panel_unit(latency, metric)
        marks: list[Any] = []
        for i, name in enumerate(order):
            cdf = (systems.get(name) or {}).get("latency_cdf")
            if not cdf:
                continue
            color = COLORS[i % len(COLORS)]
            label = _text(labels[name])
            run = _text(cdf["label"]).rsplit("/", 1)[-1]
            load = f", c{cdf['concurrency']:g}" if _finite(cdf.get("concurrency")) else ""
            xs = tuple(_of_s(v, unit) for v in cdf[f"{metric}_s"])
            ys = tuple(q / 100 for q in cdf["percentiles"])
            marks.append(svg.Line(xs, ys, color, f"{label}: {run}{load}", series=i))
            picks = [j for j, q in enumerate(cdf["percentiles"]) if q in (50.0, 90.0)]
            marks.append(
                svg.Points(
                    tuple(xs[j] for j in picks),
                    tuple(ys[j] for j in picks),
                    color,
                    size=3.0,
                    tips=tuple(
                        f"system: {label}\nrun: {_text(cdf['label'])}{load}\n"
                        f"{title} P{cdf['percentiles'][j]:g}: {number(xs[j])} {unit.symbol}"
                        for j in picks
                    ),
                    series=i,
                )
            )
        target = unit.of_ms((latency.get("target") or {}).get("latency_ms"))
        if metric == (latency.get("metric") or "tpot") and _finite(target):
            marks.append(
                svg.VLine(
                    target,
                    "black",
                    f"target {statistic_name(stat)} {title} {target:.3g} {unit.symbol}",
                )
            )
        for slo_metric, seconds in latency.get("slo") or []:
            if slo_metric == metric and _finite(seconds):
                at = _of_s(seconds, unit)
                marks.append(svg.VLine(at, "#7f7f7f", f"SLO {title} {at:g} {unit.symbol}"))
        panels.append(
            svg.Axes(
                tuple(marks),
                xlabel=f"{title} ({unit.symbol})",
                ylabel="share of requests at or below" if metric == "ttft" else "",
                title=f"{title} per request",
                ytop=1.0,
            )
        )
    return svg.render(
        svg.Chart(
            tuple(panels),
            "Latency per request: TTFT and TPOT distributions",
            columns=2,
            conditions=figure_conditions(results),
            synthetic=bool(results.get("synthetic")),
        )
    )


def _frontier_curve(front: list[Point], method: str) -> tuple[list[float], list[float | None]]:
    """161 grid points across the frontier and its read at each (remembered by the stage)."""
    inputs = [method, [[p.interactivity, p.throughput] for p in front]]

    def computed() -> list[float]:
        import numpy as np  # only here: a warm rebuild finds the curve in the stage

        grid = np.linspace(front[0].interactivity, front[-1].interactivity, 161)
        return [
            *map(float, grid),
            *(math.nan if v is None else v for v in _curve(front, grid, method)),
        ]

    both = recall_exact("frontier-curve", inputs, computed, 2 * 161)
    curve = both[161:]
    return both[:161], [None if math.isnan(v) else v for v in curve]


def _curve(front: list[Point], grid: Any, method: str) -> list[float | None]:
    """The frontier as read at each grid point: `read_at`'s values, in one pass for Steffen."""
    if Method(method) is Method.STEFFEN:  # read_at reads steffen_curve one target at a time
        return [float(v) for v in steffen_curve(front, grid)]
    return [read_at(front, float(x), method).value for x in grid]


def _shown(value: object, absolute: bool = False) -> str:
    if not _finite(value):
        return "n/a"
    return str(number(value)) if absolute else ratio(value)


def _headroom(values: list) -> float | None:
    """Room above the tallest bar for its value note."""
    tops = [v for v in values if _finite(v) and v > 0]
    return max(tops) * 1.12 if tops else None


def _times(value: object, k: float) -> float | None:
    return value * k if _finite(value) else None


def figures_csv(rows: list[JsonObject]) -> str:
    """Every figure the report displays: id, quantity, system, value, unit, displayed, source.

    Cells hold spec text, so each goes through `csv_cell`: none becomes a formula, numbers stay
    numbers.
    """
    lines = [csv_line(["id", "quantity", "system", "value", "unit", "displayed", "source"])]
    for row in rows:
        cells = [row["id"], row["quantity"], row["system"], csv_value(row["value"])]
        cells += [row["unit"], row["displayed"], row["source"]]
        lines.append(csv_line(["" if c is None else csv_cell(str(c)) for c in cells]))
    return "".join(lines)


def csv_line(cells: list[str]) -> str:
    """One row as `csv.writer(out, lineterminator="\\n")` writes it (tests/report compare the
    two): a cell holding a comma, a quote or a line feed is quoted, its quotes doubled, and a
    row of one empty cell is `""`. (The csv module is 1 ms of every build's imports.)"""
    if cells == [""]:
        return '""\n'
    line = ",".join(cells)
    # no cell to quote (the common row): its commas are the separators alone, and no quote or
    # line feed; one search of the row instead of one a cell
    if line.count(",") == len(cells) - 1 and not _QUOTE_OR_LF.search(line):
        return line + "\n"
    return ",".join(_quoted(c) if _QUOTED.search(c) else c for c in cells) + "\n"


_QUOTED = re.compile(r'[",\n]')
_QUOTE_OR_LF = re.compile(r'["\n]')


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'
