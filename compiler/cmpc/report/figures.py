"""SVG figures (drawn by cmpc.report.svg) and figures.csv: deterministic, byte for byte."""

from __future__ import annotations

import csv
import io
import math
import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

from cmpc.compute.frontier import Method, Point, by_latency, read_at, steffen_curve
from cmpc.jsontypes import JsonObject
from cmpc.report import svg
from cmpc.report.text import Md, csv_value, number, ratio
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


def frontier_svg(results: JsonObject, order: list[str], labels: dict[str, str]) -> str:
    """Throughput per unit against interactivity: points, frontier as read, target, reads."""
    import numpy as np

    systems = results.get("systems") or {}
    latency = (results.get("conditions") or {}).get("latency") or {}
    method = latency.get("read") or "steffen"
    target = (latency.get("target") or {}).get("interactivity_tok_s_user")
    # a duration target is read along latency (lower is better): x is the latency in ms
    along_latency = (latency.get("target") or {}).get("given_as") == "latency"
    if along_latency:
        target = (latency.get("target") or {}).get("latency_ms")
    x_of = _latency_ms if along_latency else _same
    scales, unit = _scale(results)

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
        marks.append(svg.Points(xs, ys, color, f"{label}: {origin} points", size=3.5, opacity=0.55))
        front = [
            Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
            for p in s.get("frontier") or []
        ]
        if along_latency:
            front = list(by_latency(front))  # x = -latency: the read's own axis
        if len(front) >= 2:
            grid = np.linspace(front[0].interactivity, front[-1].interactivity, 161)
            curve = _curve(front, grid, method)
            ys = tuple(_times(c, k) for c in curve)
            gx = tuple(-float(x) if along_latency else float(x) for x in grid)
            marks.append(svg.Line(gx, ys, color, f"{label}: frontier ({method})"))
        elif front:
            marks.append(
                svg.Points(
                    (-front[0].interactivity if along_latency else front[0].interactivity,),
                    (_times(front[0].throughput, k),),
                    color,
                    f"{label}: frontier (one point)",
                    shape="square",
                    size=4.5,
                )
            )
        at = s.get("at_target") or {}
        value = at.get("throughput_per_gpu")
        bound_at = at.get(
            "measured_at_latency_ms" if along_latency else "measured_at_interactivity_tok_s_user"
        )
        if _finite(value) and _finite(bound_at):
            marks.append(
                svg.Points(
                    (bound_at,),
                    (value * k,),
                    color,
                    f"{label}: lower bound",
                    shape="triangle",
                    size=6.5,
                    edge="black",
                )
            )
        elif _finite(value) and _finite(target):
            marks.append(
                svg.Points(
                    (target,),
                    (value * k,),
                    color,
                    f"{label}: read at target",
                    shape="diamond",
                    size=6.5,
                    edge="black",
                )
            )
        elif at.get("reachable") is False:
            unreachable.append((name, color))
    if _finite(target):
        target_label = f"target {target:g} ms" if along_latency else f"target {target:g} tok/s/user"
        marks.append(svg.VLine(target, "black", target_label))
        for j, (name, color) in enumerate(unreachable):
            marks.append(svg.Flag(target, f"{_text(labels[name])}: unreachable", color, j))
    axes = svg.Axes(
        tuple(marks),
        xlabel=_latency_label(latency) if along_latency else "interactivity (tok/s/user)",
        ylabel=f"throughput ({_text(unit)})",
    )
    return svg.render(svg.Chart((axes,), "Throughput against interactivity", columns=3))


def frontier_caption(results: JsonObject) -> tuple[Md, Md]:
    """The frontier figure's x axis and a caption naming only the marks the figure holds."""
    systems = [s or {} for s in (results.get("systems") or {}).values()]
    target = ((results.get("conditions") or {}).get("latency") or {}).get("target") or {}
    along_latency = target.get("given_as") == "latency"
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
    axis = (
        Md("latency ({} ms, lower is better)").format(
            _latency_label(results.get("conditions", {}).get("latency") or {})[: -len(" (ms)")]
        )
        if along_latency
        else Md("interactivity")
    )
    return axis, Md("; ").join(parts) + Md(".")


def _same(x: object) -> object:
    return x


def _latency_ms(interactivity: object) -> float | None:
    """A point's latency in ms from its interactivity (1 / latency in s)."""
    return 1000.0 / interactivity if _finite(interactivity) and interactivity > 0 else None


def _latency_label(latency: JsonObject) -> str:
    stat = str(latency.get("statistic") or "")
    stat = "P" + stat[1:] if stat.startswith("p") else stat
    metric = str(latency.get("metric") or "latency")
    return f"{stat} {metric.upper() if metric in ('ttft', 'tpot') else metric} (ms)"


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
    left = [
        svg.Bars(
            (x,),
            (tput[n] if _finite(tput[n]) else 0.0,),
            COLORS[i % len(COLORS)],
            0.6,
            notes=(_shown(tput[n], absolute=tput is absolute),),
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
    return svg.render(svg.Chart(panels, "Throughput and cost per token", columns=3))


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
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "quantity", "system", "value", "unit", "displayed", "source"])
    for row in rows:
        cells = [row["id"], row["quantity"], row["system"], csv_value(row["value"])]
        cells += [row["unit"], row["displayed"], row["source"]]
        writer.writerow(["" if c is None else csv_cell(str(c)) for c in cells])
    return out.getvalue()
