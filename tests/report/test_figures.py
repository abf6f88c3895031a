"""The SVG chart writer and the two report figures: well-formed, deterministic, placed, escaped."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import re
from xml.etree import ElementTree

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.report import figures, svg
from cmpc.report.model import View

NS = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert("x")</script> & "co" \'q\''


def _parse(text: str) -> ElementTree.Element:
    root = ElementTree.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def _all(root, tag: str) -> list:
    return list(root.iter(f"{NS}{tag}"))


def _texts(root) -> dict[str, ElementTree.Element]:
    return {t.text: t for t in _all(root, "text")}


def _plot_bottom(root) -> float:
    grid = [float(g.get("y1")) for g in _all(root, "line") if g.get("stroke") == "#b0b0b0"]
    return max(grid)


def _sweep_results(target=30.0, **system_b) -> dict:
    def system(points, at=None, reachable=True):
        frontier = sorted(points)
        return {
            "data": "runs",
            "points": [{"interactivity_tok_s_user": x, "throughput_per_gpu": y} for x, y in points],
            "frontier": [
                {"interactivity_tok_s_user": x, "throughput_per_gpu": y} for x, y in frontier
            ],
            "at_target": {"throughput_per_gpu": at, "reachable": reachable},
        }

    b = {"points": [(60.0, 500.0), (90.0, 200.0)], "at": None, "reachable": False, **system_b}
    return {
        "conditions": {
            "latency": {"read": "linear", "target": {"interactivity_tok_s_user": target}},
            "normalize": {"unit": "tok/s/gpu"},
        },
        "systems": {
            "a": system([(20.0, 1000.0), (40.0, 600.0)], at=800.0),
            "b": system(b["points"], at=b["at"], reachable=b["reachable"]),
        },
    }


def _summary(values: dict, scenarios=(("equal prices", {"a": 1.5, "b": 1.0}),)):
    results = {
        "baseline": "b",
        "conditions": {"normalize": {"unit": "tok/s/gpu"}, "latency": {}},
        "systems": {n: {"at_target": {"throughput_per_unit": v}} for n, v in values.items()},
    }
    view = {"cost": {"scenarios": [{"scenario": s, "values": v} for s, v in scenarios]}}
    return view, results


# --- ticks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi", "expected"),
    [
        (0, 1900, ["0", "250", "500", "750", "1,000", "1,250", "1,500", "1,750"]),
        (8.3, 109.1, ["20", "40", "60", "80", "100"]),
        (0, 1.05, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]),
        (0, 0.33, ["0.00", "0.05", "0.10", "0.15", "0.20", "0.25", "0.30"]),
        (-5, 5, ["-4", "-2", "0", "2", "4"]),
        (0, 1.2e9, ["0.0G", "0.2G", "0.4G", "0.6G", "0.8G", "1.0G", "1.2G"]),
        (0, 3e-6, ["0.0µ", "0.5µ", "1.0µ", "1.5µ", "2.0µ", "2.5µ", "3.0µ"]),
        (0, 2.6e6, ["0.0M", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"]),
    ],
)
def test_ticks_are_nice_steps_with_tidy_labels(lo, hi, expected):
    values, step = svg.ticks(lo, hi)
    assert svg.tick_labels(values, step) == expected
    assert 2 <= len(values) <= svg.MAX_TICKS
    assert all(lo - 1e-9 * abs(hi) <= v <= hi + 1e-9 * abs(hi) for v in values)
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 9) in (1, 2, 2.5, 5)


def test_coordinates_have_two_decimals_and_no_negative_zero():
    assert [svg.num(v) for v in (1.0, 1.005, 2.499999, -0.001, 12.3456, -3.2)] == [
        "1",
        "1",
        "2.5",
        "0",
        "12.35",
        "-3.2",
    ]


# --- placement ---------------------------------------------------------------------------------


def test_a_point_lands_where_its_ticks_say():
    chart = svg.Chart(
        (svg.Axes((svg.Points((0.0, 10.0), (0.0, 100.0), "#123456"),), xgrid=False),), "t"
    )
    root = _parse(svg.render(chart))
    texts = _texts(root)
    circles = sorted(_all(root, "circle"), key=lambda c: float(c.get("cx")))
    x10 = float(texts["10"].get("x"))  # x tick labels are centred on their tick
    y100 = float(texts["100"].get("y")) - svg.SIZE * 0.35  # y tick labels sit on their tick
    assert float(circles[1].get("cx")) == pytest.approx(x10, abs=0.01)
    assert float(circles[1].get("cy")) == pytest.approx(y100, abs=0.01)
    zeros = [t for t in _all(root, "text") if t.text == "0"]  # an x tick and a y tick
    x0 = next(float(t.get("x")) for t in zeros if t.get("text-anchor") == "middle")
    assert float(circles[0].get("cx")) == pytest.approx(x0, abs=0.01)
    assert float(circles[0].get("cy")) == pytest.approx(_plot_bottom(root), abs=0.01)


def test_frontier_target_line_and_read_are_at_the_target():
    root = _parse(
        figures.frontier_svg(_sweep_results(target=30.0), ["a", "b"], {"a": "A", "b": "B"})
    )
    texts = _texts(root)
    x20, x40 = float(texts["20"].get("x")), float(texts["40"].get("x"))
    target_x = (x20 + x40) / 2
    dashed = [
        g for g in _all(root, "line") if g.get("stroke-dasharray") and g.get("y1") != g.get("y2")
    ]
    assert len(dashed) == 1 and float(dashed[0].get("x1")) == pytest.approx(target_x, abs=0.02)
    diamond = next(p for p in _all(root, "path") if p.get("stroke") == "black")
    xs = [float(v) for v in re.findall(r"[-\d.]+", diamond.get("d"))[0::2]]
    assert (min(xs) + max(xs)) / 2 == pytest.approx(target_x, abs=0.02)
    assert "target 30 tok/s/user" in texts and "B: unreachable" in texts
    assert "A: frontier (linear)" in texts and "A: read at target" in texts


def test_unreachable_notes_stack_and_stay_in_the_plot():
    results = _sweep_results(target=95.0)
    results["systems"]["a"]["at_target"] = {"throughput_per_gpu": None, "reachable": False}
    root = _parse(figures.frontier_svg(results, ["a", "b"], {"a": "A" * 200, "b": "B"}))
    notes = [t for t in _all(root, "text") if (t.text or "").endswith(("unreachable", "…"))]
    notes = [t for t in notes if t.get("font-size") == "10.5"]
    assert len(notes) == 2 and notes[0].get("y") != notes[1].get("y")
    width = float(root.get("width"))
    for t in notes:  # the target is at the right edge: the notes read leftwards, cut to fit
        assert t.get("text-anchor") == "end"
        assert svg.text_width(t.text, 10.5) <= float(t.get("x"))
        assert float(t.get("x")) < width


def test_bar_heights_are_proportional_to_values():
    view, results = _summary({"a": 1.0, "b": 2.0, "c": 4.0}, (("s", {"a": 1, "b": 2, "c": 4}),))
    root = _parse(
        figures.summary_svg(view, results, ["a", "b", "c"], {"a": "A", "b": "B", "c": "C"})
    )
    bottom = _plot_bottom(root)
    foot = lambda r: float(r.get("y")) + float(r.get("height"))  # noqa: E731
    colored = [r for r in _all(root, "rect") if r.get("fill") in figures.COLORS]
    bars = [r for r in colored if foot(r) < bottom + 1]  # not the legend's swatches
    assert len(bars) == 6 and len(colored) == 9
    left = sorted(bars, key=lambda r: float(r.get("x")))[:3]
    h = [float(r.get("height")) for r in left]
    assert h[1] / h[0] == pytest.approx(2, rel=1e-3) and h[2] / h[0] == pytest.approx(4, rel=1e-3)
    assert all(foot(r) == pytest.approx(bottom, abs=0.02) for r in bars)  # one shared baseline
    texts = _texts(root)
    notes = [t.text for t in _all(root, "text") if t.get("font-size") == "10.5"]
    assert notes == ["1", "2", "4"]  # absolute throughputs, as the report shows them
    plot = [t for t in _all(root, "text") if not t.get("class")]  # not title or conditions
    assert [t.text for t in plot if t.get("font-size") == "9.5"][3:6] == [
        "1.000",
        "2.000",
        "4.000",
    ]  # after the three system names: the ratios over the scenario's bars
    assert "throughput" in texts
    assert "cost per token relative to B" in texts and "cost per token by price scenario" in texts


def test_missing_values_are_na_bars_of_zero():
    view, results = _summary({"a": 2.0, "b": None}, (("s", {"a": float("nan"), "b": 1.0}),))
    root = _parse(figures.summary_svg(view, results, ["a", "b"], {"a": "A", "b": "B"}))
    assert sum(1 for t in _all(root, "text") if t.text == "n/a") >= 2
    assert "nan" not in svg.render(svg.Chart((), "x")).lower()


# --- robustness --------------------------------------------------------------------------------


def test_nan_none_and_inf_are_skipped():
    xs = (1.0, float("nan"), 3.0, None, float("inf"), 6.0)
    ys = (1.0, 2.0, None, 4.0, 5.0, float("-inf"))
    chart = svg.Chart(
        (svg.Axes((svg.Points(xs, ys, "#000", "p"), svg.Line(xs, ys, "#000", "l"))),), "t"
    )
    text = svg.render(chart)
    root = _parse(text)
    assert len(_all(root, "circle")) == 2  # (1, 1) and its legend swatch
    assert _all(root, "polyline") == []  # one finite point is no line
    assert not re.search(r"nan|inf", text, re.I)


def test_values_too_large_for_an_axis_are_left_out():
    ys = (-1e308, 1e308, 5.0)  # a margin on the range of the first two overflows a double
    chart = svg.Chart((svg.Axes((svg.Points((1.0, 2.0, 3.0), ys, "#000", "p"),)),), "t")
    root = _parse(svg.render(chart))
    assert len(_all(root, "circle")) == 2  # (3, 5) and its legend swatch


@pytest.mark.parametrize(
    "marks",
    [
        (),
        (svg.Points((5.0,), (7.0,), "#000", "one"),),
        (svg.Points((), (), "#000", "empty"),),
        (svg.Points((3.0, 3.0), (0.0, 0.0), "#000"),),
        (svg.VLine(2.0, "#000", "only a line"),),
        (svg.Bars((0.0,), (0.0,), "#000", 0.5, notes=("0",)),),
    ],
    ids=["nothing", "one point", "empty series", "all zero", "only a line", "zero bar"],
)
def test_degenerate_data_still_draw_axes_with_ticks(marks):
    root = _parse(svg.render(svg.Chart((svg.Axes(marks),), "t")))
    numbers = [t.text for t in _all(root, "text") if re.fullmatch(r"-?[\d,.]+", t.text or "")]
    assert len(numbers) >= 4  # both axes ticked


def test_one_point_frontier_is_a_square():
    results = _sweep_results(target=None, points=[(50.0, 300.0)])
    text = figures.frontier_svg(results, ["a", "b"], {"a": "A", "b": "B"})
    root = _parse(text)
    assert "B: frontier (one point)" in _texts(root)
    assert "target" not in text


def test_hostile_labels_are_escaped_text():
    view, results = _summary({"a": 1.0, "b": 1.0}, ((HOSTILE, {"a": 1.0, "b": 1.0}),))
    labels = {"a": HOSTILE, "b": "B\x00\x07\ud800"}
    for text in (
        figures.frontier_svg(_sweep_results(), ["a", "b"], labels),
        figures.summary_svg(view, results, ["a", "b"], labels),
    ):
        root = _parse(text)
        assert "<script" not in text and _all(root, "script") == []
        shown = " ".join(t.text or "" for t in _all(root, "text"))
        assert 'alert("x")' in shown and "&" in shown
        assert "\x00" not in text and "\x07" not in text
        text.encode("utf-8")  # no lone surrogate left


def test_legend_is_below_the_plot_and_grows_the_figure():
    n = 12
    results = _sweep_results()
    results["systems"] = {f"s{i}": results["systems"]["a"] for i in range(n)}
    labels = {f"s{i}": f"system {i} " + "very long name " * (i % 4) for i in range(n)}
    root = _parse(figures.frontier_svg(results, list(labels), labels))
    bottom, height = _plot_bottom(root), float(root.get("height"))
    assert height > 400 and root.get("viewBox") == f"0 0 720 {root.get('height')}"
    legend = [t for t in _all(root, "text") if (t.text or "").startswith("system ")]
    assert len(legend) == 3 * n
    for t in legend:
        y, x = float(t.get("y")), float(t.get("x"))
        assert bottom + svg.SIZE < y < height
        assert x >= 0 and x + svg.text_width(t.text, svg.SMALL) <= 720


def test_long_labels_never_leave_the_canvas():
    long = "x" * 400
    view, results = _summary({"a": 1e9, "b": 1.0}, ((long, {"a": 1.0, "b": 1.0}),))
    root = _parse(figures.summary_svg(view, results, ["a", "b"], {"a": long, "b": long}))
    width = float(root.get("width"))
    for t in _all(root, "text"):
        w = svg.text_width(t.text or "", float(t.get("font-size")))
        if t.get("transform"):
            assert w <= float(root.get("height"))
            continue
        x = float(t.get("x"))
        lo = {"start": x, "middle": x - w / 2, "end": x - w}[t.get("text-anchor")]
        assert lo >= -0.5 and lo + w <= width + 0.5, t.text


def test_renders_are_deterministic_and_valid_for_real_specs(build):
    for spec, name in (
        ("specs/synthetic-sweep.cmp", "frontier"),
        ("specs/mi355x-vs-b300-per-dollar.cmp", "summary"),
    ):
        out, _ = build(spec)
        drawn = (out / f"figures/{name}.svg").read_text(encoding="utf-8")
        root = _parse(drawn)
        assert root.find(f"{NS}title").text and root.get("viewBox")
        results = json.loads((out / "results.json").read_text())
        view = View(results)
        report = view.build()
        labels = {n: str(results["systems"][n].get("label") or n) for n in view.order}
        again = (
            figures.frontier_svg(results, view.order, labels)
            if name == "frontier"
            else figures.summary_svg(report, results, view.order, labels)
        )
        assert again == drawn


# --- property ----------------------------------------------------------------------------------

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
values = st.one_of(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False),
    st.floats(min_value=1e-6, max_value=1e-3),
)


def _inside(root) -> None:
    width, height = float(root.get("width")), float(root.get("height"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    for element in root.iter():
        for attr in ("x", "y", "cx", "cy", "x1", "x2", "y1", "y2", "points", "d"):
            numbers = [float(v) for v in _NUMBER.findall(element.get(attr) or "")]
            if attr in ("points", "d"):
                pairs = list(zip(numbers[0::2], numbers[1::2], strict=True))
            else:
                pairs = [(v, v) for v in numbers]
            for x, y in pairs:
                limit_x = width if attr not in ("y", "cy", "y1", "y2") else height
                limit_y = height if attr not in ("x", "cx", "x1", "x2") else width
                assert -0.01 <= x <= limit_x + 0.01 and -0.01 <= y <= limit_y + 0.01, (attr, x, y)


@settings(max_examples=60, deadline=None)
@given(
    points=st.lists(st.tuples(values, values), max_size=12),
    target=st.one_of(st.none(), values),
    bars=st.lists(values, min_size=1, max_size=4),
)
def test_any_finite_data_draws_well_formed_svg_inside_the_view_box(points, target, bars):
    xs, ys = tuple(p[0] for p in points), tuple(p[1] for p in points)
    marks = (
        svg.Points(xs, ys, "#1f77b4", "points", opacity=0.5),
        svg.Line(tuple(sorted(xs)), ys, "#d62728", "line"),
        svg.VLine(target, "black", "target") if target is not None else svg.Points((), (), "#000"),
        svg.Flag(target if target is not None else 0.0, "flag", "#2ca02c"),
    )
    bar = svg.Bars(
        tuple(float(i) for i in range(len(bars))), tuple(bars), "#000", 0.6, "bars",
        notes=tuple(f"{b:g}" for b in bars),
    )  # fmt: skip
    chart = svg.Chart(
        (svg.Axes(marks, "x", "y"), svg.Axes((bar,), categories=tuple("abcd"[: len(bars)]))), "t"
    )
    text = svg.render(chart)
    _inside(_parse(text))
    assert text == svg.render(chart)


def _csv_module_line(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()


def test_figures_csv_lines_are_the_csv_modules_lines():
    """Seeded rows of cells made of what a CSV writer treats specially, and of plain text."""
    pieces = ["", "a", "1.5", ",", '"', "\n", "\r", "\r\n", " ", "'", "=x", "µ", "\u202e", "\t"]
    rng = random.Random(19)
    rows = [[""], ["", ""], ['"'], [","], ["\n"], ["a", ""], [], ["\r"]]
    for _ in range(5000):
        width = rng.randint(1, 7)
        rows.append(["".join(rng.choices(pieces, k=rng.randint(0, 4))) for _ in range(width)])
    for row in rows:
        assert figures.csv_line(row) == _csv_module_line(row), row


def test_coordinates_are_written_as_rounding_to_two_decimals_first_writes_them():
    """`num` formats with `.2f` alone: the same text as round(v, 2) formatted, on ties (exact
    binary halves round to even), tiny negatives (never `-0`), and values of every scale."""

    def rounded_first(v: float) -> str:
        s = f"{round(v, 2) + 0.0:.2f}".rstrip("0").rstrip(".")
        return "0" if s == "-0" else s

    rng = np.random.default_rng(3)
    values = [0.125, 0.375, 2.675, 1.005, -0.005, -0.0049, -0.0, 0.0, 5e-324, -5e-324, 1e300]
    values += [k / 1000 for k in range(-3000, 3001)]  # every third decimal, halves included
    values += (rng.standard_normal(5000) * 10.0 ** rng.integers(-6, 16, 5000)).tolist()
    assert [svg.num(v) for v in values] == [rounded_first(v) for v in values]


def test_the_svg_specs_hold_evaluated_annotations_not_forward_references():
    """NamedTuple makes a string annotation a typing.ForwardRef, compiling its text: a third of
    the seven specs' class creation at every build's import (svg.py states real types)."""
    from typing import ForwardRef

    from cmpc.report import svg

    specs = [svg.Points, svg.Line, svg.VLine, svg.Flag, svg.Bars, svg.Axes, svg.Chart]
    held = {t for spec in specs for t in spec.__annotations__.values()}
    assert held and not {t for t in held if isinstance(t, (str, ForwardRef))}
    assert svg.Points(xs=(1.0,), ys=(2.0,), color="#000").shape == "circle"  # defaults kept
