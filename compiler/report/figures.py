"""SVG figures (matplotlib, imported lazily) and figures.csv: deterministic, byte for byte."""

from __future__ import annotations

import csv
import io
import math
import textwrap

from cmpc.report.text import csv_value, number, ratio

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
RC = {
    "svg.hashsalt": "cmpc",
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "path.simplify": False,
}
METADATA = {"Date": None, "Creator": None}


def _finite(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _text(label: object) -> str:
    """Spec text for a plot: one line; a leading `_` would hide a legend entry."""
    text = " ".join(str(label).split())
    return "\u200b" + text if text.startswith("_") else text


def _legend_below(fig, ax, ncol: int) -> None:
    """The legend under the axes, the figure grown to hold it, so it never covers data."""
    handles, names = ax.get_legend_handles_labels()
    if not handles:
        fig.tight_layout()
        return
    ncol = max(1, min(ncol, len(handles)))
    rows = math.ceil(len(handles) / ncol)
    width, height = fig.get_size_inches()
    extra = 0.2 + 0.17 * rows
    fig.set_size_inches(width, height + extra)
    fig.legend(handles, names, loc="lower center", ncol=ncol, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, extra / (height + extra), 1, 1))


def _wrap(label: object, width: int = 16) -> str:
    return textwrap.fill(_text(label), width)


def _svg(draw) -> str:
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(7.5, 4.2))
        FigureCanvasSVG(fig)
        draw(fig)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata=METADATA)
    return buffer.getvalue()


def has_sweep(results: dict) -> bool:
    return any((s or {}).get("points") for s in (results.get("systems") or {}).values())


def _scale(results: dict) -> tuple[dict, str]:
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


def frontier_svg(results: dict, order: list[str], labels: dict[str, str]) -> str:
    """Throughput per unit against interactivity: points, frontier as read, target, reads."""
    import numpy as np

    from cmpc.frontier import Point, read_at

    systems = results.get("systems") or {}
    latency = (results.get("conditions") or {}).get("latency") or {}
    method = latency.get("read") or "steffen"
    target = (latency.get("target") or {}).get("interactivity_tok_s_user")
    scales, unit = _scale(results)

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        unreachable = []
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
            xs = [p["interactivity_tok_s_user"] for p in points]
            ys = [p["throughput_per_gpu"] * k for p in points]
            ax.scatter(
                xs,
                ys,
                s=18,
                color=color,
                alpha=0.55,
                linewidths=0,
                label=f"{label}: {origin} points",
            )
            front = [
                Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
                for p in s.get("frontier") or []
            ]
            if len(front) >= 2:
                grid = np.linspace(front[0].interactivity, front[-1].interactivity, 161)
                curve = [read_at(front, float(x), method).value for x in grid]
                ax.plot(
                    grid,
                    [c * k for c in curve],
                    color=color,
                    linewidth=1.6,
                    label=f"{label}: frontier ({method})",
                )
            elif front:
                ax.plot(
                    [front[0].interactivity],
                    [front[0].throughput * k],
                    color=color,
                    marker="s",
                    linestyle="none",
                    label=f"{label}: frontier (one point)",
                )
            at = s.get("at_target") or {}
            value = at.get("throughput_per_gpu")
            if _finite(value) and _finite(target):
                ax.plot(
                    [target],
                    [value * k],
                    marker="D",
                    markersize=7,
                    color=color,
                    markeredgecolor="black",
                    linestyle="none",
                    label=f"{label}: read at target",
                )
            elif at.get("reachable") is False:
                unreachable.append((name, color))
        if _finite(target):
            ax.axvline(
                target,
                color="black",
                linestyle="--",
                linewidth=1.0,
                label=f"target {target:g} tok/s/user",
            )
            for j, (name, color) in enumerate(unreachable):
                ax.annotate(
                    f"{_text(labels[name])}: unreachable",
                    xy=(target, 0),
                    xycoords=("data", "axes fraction"),
                    xytext=(4, 6 + 12 * j),
                    textcoords="offset points",
                    color=color,
                    fontsize=8,
                )
                ax.plot(
                    [target],
                    [0.02],
                    marker="x",
                    color=color,
                    markersize=8,
                    transform=ax.get_xaxis_transform(),
                    linestyle="none",
                )
        ax.set_xlabel("interactivity (tok/s/user)")
        ax.set_ylabel(f"throughput ({unit})")
        ax.set_ylim(bottom=0)
        ax.grid(True, linewidth=0.4, alpha=0.5)
        _legend_below(fig, ax, 3)

    return _svg(draw)


def summary_svg(view: dict, results: dict, order: list[str], labels: dict[str, str]) -> str:
    """Reported figures only: throughput relative to the baseline, and relative cost per token
    under equal prices and each declared price scenario."""
    baseline = results.get("baseline")
    systems = results.get("systems") or {}
    absolute = {
        n: ((systems.get(n) or {}).get("at_target") or {}).get("throughput_per_unit") for n in order
    }
    unit = ((results.get("conditions") or {}).get("normalize") or {}).get("unit") or ""
    if all(_finite(v) for v in absolute.values()):
        has_target = bool(((results.get("conditions") or {}).get("latency") or {}).get("target"))
        where = "at the target" if has_target else "as reported"
        tput, tput_label = absolute, f"throughput {where} ({unit})"
    else:
        tput = {baseline: 1.0}
        for c in results.get("comparisons") or []:
            tput[c.get("system")] = c.get("throughput_ratio")
        tput = {n: tput.get(n) for n in order}
        tput_label = f"throughput {unit} relative to {_text(labels.get(baseline, baseline))}"
    scenarios = view["cost"]["scenarios"]

    def draw(fig):
        left, right = fig.subplots(1, 2)
        xs = list(range(len(order)))
        heights = [tput[n] if _finite(tput[n]) else 0.0 for n in order]
        bars = left.bar(xs, heights, color=[COLORS[i % len(COLORS)] for i in xs], width=0.6)
        for bar, n in zip(bars, order, strict=True):
            shown = ratio(tput[n]) if tput is not absolute else str(number(tput[n]))
            left.annotate(
                shown if _finite(tput[n]) else "n/a",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                xytext=(0, 3),
                textcoords="offset points",
                ha="center",
                fontsize=8,
            )
        left.set_xticks(xs, [_wrap(labels[n]) for n in order], fontsize=7)
        left.set_ylabel(tput_label, fontsize=8)
        left.set_title("throughput", fontsize=9)
        width = 0.8 / max(len(order), 1)
        for i, n in enumerate(order):
            gx = [g + (i - (len(order) - 1) / 2) * width for g in range(len(scenarios))]
            vals = [row["values"].get(n) for row in scenarios]
            hs = [v if _finite(v) else 0.0 for v in vals]
            bars = right.bar(
                gx, hs, width=width * 0.95, color=COLORS[i % len(COLORS)], label=_text(labels[n])
            )
            for bar, v in zip(bars, vals, strict=True):
                right.annotate(
                    ratio(v) if _finite(v) else "n/a",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    xytext=(0, 3),
                    textcoords="offset points",
                    ha="center",
                    fontsize=7,
                )
        right.set_xticks(
            range(len(scenarios)), [_wrap(r["scenario"], 12) for r in scenarios], fontsize=7
        )
        right.set_ylabel(
            f"cost per token relative to {_text(labels.get(baseline, baseline))}", fontsize=8
        )
        right.set_title("cost per token by price scenario", fontsize=9)

        tops = [v for row in scenarios for v in row["values"].values() if _finite(v)]
        right.set_ylim(0, max(tops, default=1.0) * 1.3)
        for ax in (left, right):
            ax.set_ylim(bottom=0)
            ax.grid(True, axis="y", linewidth=0.4, alpha=0.5)
        _legend_below(fig, right, 3)

    return _svg(draw)


def figures_csv(rows: list[dict]) -> str:
    """Every figure the report displays: id, quantity, system, value, unit, displayed, source."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "quantity", "system", "value", "unit", "displayed", "source"])
    for row in rows:
        writer.writerow(
            [
                row["id"],
                row["quantity"],
                row["system"],
                csv_value(row["value"]),
                row["unit"],
                row["displayed"],
                row["source"],
            ]
        )
    return out.getvalue()
