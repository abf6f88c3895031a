"""Figures keep their footnotes: a title and conditions line inside every SVG, a SYNTHETIC
mark on synthetic data, labelled frontier points, one legend entry per label, hover text per
point, and a bar chart when each system has one run (the real llama70b vLLM files)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from xml.etree import ElementTree

import pytest

from cmpc.report import svg

NS = "{http://www.w3.org/2000/svg}"
SPECS = sorted(Path(__file__).resolve().parents[2].glob("specs/*.cmp"))


def _svgs(out: Path) -> dict[str, ElementTree.Element]:
    return {p.name: ElementTree.fromstring(p.read_text()) for p in (out / "figures").glob("*.svg")}


def _classed(root: ElementTree.Element, name: str) -> list[str]:
    return [t.text or "" for t in root.iter(f"{NS}text") if t.get("class") == name]


@pytest.mark.parametrize("spec", [p for p in SPECS if "claims" not in p.stem], ids=lambda p: p.stem)
def test_every_figure_has_its_title_and_conditions(spec: Path, build):
    out, _ = build(f"specs/{spec.name}")
    figures = _svgs(out)
    assert figures, "a comparison of systems draws a figure"
    for name, root in figures.items():
        (title,) = _classed(root, "cmpc-title")
        assert title.startswith("Latency" if name == "latency.svg" else "Throughput"), name
        conditions = " · ".join(_classed(root, "cmpc-conditions"))
        assert "throughput per " in conditions and "total tokens" in conditions, conditions
        assert "TTFT" in conditions and "source " in conditions, conditions
        synthetic = _classed(root, "cmpc-synthetic")
        assert synthetic == (["SYNTHETIC DATA"] if "synthetic" in spec.stem else []), name


def test_the_conditions_name_model_metric_target_tokens_and_snapshot(build):
    out, _ = build("specs/mi355x-vs-b300.cmp")
    conditions = " · ".join(_classed(_svgs(out)["summary.svg"], "cmpc-conditions"))
    assert conditions == (
        "model Kimi K3 · P90 TPOT, TTFT excluded, target 50 tok/s/user · total tokens, reused "
        "included · throughput per GPU · source SemiAnalysis InferenceX, snapshot 2026-10-09"
    )


def test_frontier_points_carry_their_concurrency_and_a_hover_text(build):
    out, _ = build("specs/synthetic-sweep.cmp")
    root = _svgs(out)["frontier.svg"]
    labels = [t.text for t in root.iter(f"{NS}text") if t.get("font-size") == str(svg.POINT_NOTE)]
    # both systems' seven runs are all on their frontiers: concurrency 1..64 each
    assert sorted(labels) == sorted(["c1", "c2", "c4", "c8", "c16", "c32", "c64"] * 2)
    tips = [e.get("data-tip") for e in root.iter() if e.get("class") == "cmpc-point"]
    assert len(tips) == 14
    alpha64 = next(t for t in tips if "conc-64" in t and "alpha" in t)
    assert alpha64.split("\n") == [
        "system: alpha (synthetic)",
        "load: c64",
        "interactivity: 18.52 tok/s/user",
        "throughput: 1,314 tok/s/gpu",
        # $2.00 / (1,314.0 tok/s × 3600 × 70%) × 10^6
        f"cost: ${2.0 / (1314.0097 * 3600 * 0.7) * 1e6:.3f} per million total tokens",
        "run: data/synthetic/alpha/conc-64.jsonl",
    ]
    series = {g.get("data-series") for g in root.iter(f"{NS}g") if g.get("class") == "cmpc-series"}
    assert series == {"0", "1"}


def test_one_run_per_system_is_a_bar_chart_of_the_measured_points(build):
    out, _ = build("specs/llama70b-a100-tp8-vs-tp4pp2.cmp")
    figures = _svgs(out)
    assert sorted(figures) == ["latency.svg", "runs.svg"]  # no frontier of two lone dots
    root = figures["runs.svg"]
    bars = [r for r in root.iter(f"{NS}rect") if r.get("class") == "cmpc-point"]
    assert len(bars) == 2
    heights = [float(r.get("height")) for r in bars]
    rows = list(csv.DictReader(io.StringIO((out / "figures.csv").read_text())))
    plotted = {
        r["system"]: float(r["value"]) for r in rows if r["quantity"] == "point throughput per GPU"
    }
    # the bars are the two runs' throughput per GPU, in proportion, and figures.csv holds them
    assert heights[1] / heights[0] == pytest.approx(plotted["tp4pp2"] / plotted["tp8"], rel=1e-3)
    assert plotted["tp8"] == pytest.approx(168.896, abs=1e-3)
    notes = {t.text for t in root.iter(f"{NS}text")}
    # the rate a point states labels it; a run with no finite rate names its load conditions
    assert {"168.9", "233.2", "4 req/s", "36.57 tok/s/user"} <= notes
    report = (out / "report.md").read_text()
    assert "](figures/runs.svg)" in report and "one run per system draws no frontier" in report


def test_the_legend_lists_each_label_once():
    bars = svg.Bars((0.0,), (1.0,), "#123456", 0.5, label="A", series=0)
    again = svg.Bars((0.0,), (2.0,), "#123456", 0.5, label="A", series=0)
    text = svg.render(svg.Chart((svg.Axes((bars,)), svg.Axes((again,))), "t"))
    root = ElementTree.fromstring(text)
    legend = [g for g in root.iter(f"{NS}g") if g.get("class") == "cmpc-legend"]
    assert len(legend) == 1


def test_hover_text_is_escaped_in_the_svg():
    hostile = '<script>alert("x")</script> & "q"'
    pts = svg.Points((1.0,), (2.0,), "#000", "p", tips=(hostile,), series=0)
    text = svg.render(svg.Chart((svg.Axes((pts,)),), hostile, conditions=(hostile,)))
    assert "<script>" not in text
    root = ElementTree.fromstring(text)
    (point,) = [e for e in root.iter() if e.get("class") == "cmpc-point"]
    assert point.get("data-tip") == hostile and point.find(f"{NS}title").text == hostile


def test_latency_cdfs_from_per_request_data_with_target_and_slos(build):
    import json

    out, _ = build("specs/synthetic-sweep.cmp")
    results = json.loads((out / "results.json").read_text())
    root = _svgs(out)["latency.svg"]
    texts = {t.text for t in root.iter(f"{NS}text")}
    assert {"TTFT per request", "TPOT per request"} <= texts
    assert {"target P90 TPOT 33.3 ms", "SLO TTFT 1000 ms", "SLO TPOT 50 ms"} <= texts
    assert "alpha (synthetic): conc-32.jsonl, c32" in texts  # the run nearest 30 tok/s/user
    for name in ("alpha", "beta"):
        system = results["systems"][name]
        cdf = system["latency_cdf"]
        point = next(p for p in system["points"] if p["label"] == cdf["label"])
        # the CDF's P90 is the constrained statistic itself: interactivity = 1 / P90(TPOT)
        p90 = cdf["tpot_s"][cdf["percentiles"].index(90.0)]
        assert 1 / p90 == pytest.approx(point["interactivity_tok_s_user"], rel=1e-12)
        assert cdf["ttft_s"] == sorted(cdf["ttft_s"]) and len(cdf["ttft_s"]) == 51
    rows = list(csv.DictReader(io.StringIO((out / "figures.csv").read_text())))
    cdf_rows = [r for r in rows if ".cdf." in r["id"]]
    assert len(cdf_rows) == 2 * 2 * 51  # every plotted CDF point, in ms
    alpha = results["systems"]["alpha"]["latency_cdf"]
    by_id = {r["id"]: r for r in cdf_rows}
    assert float(by_id["alpha.tpot.cdf.p90"]["value"]) == pytest.approx(alpha["tpot_s"][45] * 1e3)
    assert (out / "report.md").read_text().count("](figures/latency.svg)") == 1


def test_no_latency_figure_without_per_request_data(build):
    out, _ = build("specs/mi355x-vs-b300.cmp")  # reported figures only
    assert "latency.svg" not in _svgs(out)


def test_a_lower_bound_mark_belongs_to_its_system_series(build):
    """The legend toggle hides a system's lower-bound triangle with the rest of its marks."""
    out, _ = build("specs/synthetic-sweep.cmp", sets=["latency.target=10 tok/s/user"])
    root = _svgs(out)["frontier.svg"]
    groups = [g for g in root.iter(f"{NS}g") if g.get("class") == "cmpc-series"]
    # the triangles (paths) are drawn inside their systems' series groups, one each
    assert sorted(g.get("data-series") for g in groups if g.find(f"{NS}path") is not None) == [
        "0",
        "1",
    ]


def test_plottable_floats_take_the_short_path_with_the_same_answers():
    import math

    import numpy as np

    from cmpc.report.svg import LARGEST, plottable

    edge = math.nextafter(LARGEST, math.inf)
    floats = [0.0, -0.0, 1.5, -2.5e-300, LARGEST, -LARGEST, edge, -edge, math.inf, -math.inf]
    others = [math.nan, np.float64(2.0), np.float64("nan"), 3, -7, True, None, "1"]
    for x in [*floats, *others]:
        finite = isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
        assert plottable(x) == (finite and abs(x) <= LARGEST), x
