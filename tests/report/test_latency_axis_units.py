"""A TTFT or e2el axis is shown in the unit of the spec's target: `target 2 s` reads in s.

Metamorphic: the same target given in s and in ms is the same comparison (results.json keeps ms
either way), and every latency the report, the figures and figures.csv show in s is the ms
variant's divided by 1000.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

REPO = Path(__file__).resolve().parents[2]
SWEEP = (REPO / "specs" / "synthetic-sweep.cmp").read_text()


def variant(metric: str, target: str) -> str:
    """The synthetic sweep constrained on `metric` at `target`, without intervals."""
    text = SWEEP.replace("metric tpot", f"metric {metric}")
    text = text.replace("target 30 tok/s/user", f"target {target}")
    return text.replace("  disclosure {", "  uncertainty off\n\n  disclosure {")


# (metric, target in s, the same target in ms): 200 ms lies inside both TTFT frontiers
# (12.7-339 ms); 5 s inside both e2el frontiers (1.14-12.2 s)
PAIRS = [("ttft", "0.2 s", "200 ms"), ("e2el", "5 s", "5000 ms")]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each variant's results.json, figures.csv rows by id, report.md and frontier.svg."""
    out: dict[str, dict[str, Any]] = {}
    root = tmp_path_factory.mktemp("axis")
    for metric, *targets in [*PAIRS, ("tpot", "30 tok/s/user")]:
        for target in targets:
            folder = root / f"{metric}-{target.replace(' ', '').replace('/', '_')}"
            outcome = build_spec(
                str(REPO / "specs" / "axis.cmp"), out_dir=str(folder), text=variant(metric, target)
            )
            assert not has_errors(outcome.diagnostics), outcome.diagnostics
            rows = csv.DictReader(io.StringIO((folder / "figures.csv").read_text()))
            out[f"{metric} {target}"] = {
                "results": json.loads((folder / "results.json").read_text()),
                "csv": {r["id"]: r for r in rows},
                "report": (folder / "report.md").read_text(),
                "svg": (folder / "figures" / "frontier.svg").read_text(),
                "cdf": (folder / "figures" / "latency.svg").read_text(),
            }
    return out


@pytest.mark.parametrize(("metric", "in_s", "in_ms"), PAIRS)
def test_results_json_keeps_ms_whichever_unit_the_target_is_given_in(
    built: dict[str, dict[str, Any]], metric: str, in_s: str, in_ms: str
) -> None:
    s, ms = built[f"{metric} {in_s}"]["results"], built[f"{metric} {in_ms}"]["results"]
    assert s["conditions"]["latency"]["target"]["latency_ms"] == float(in_ms.split()[0])
    assert s["systems"] == ms["systems"]
    assert s["headline"] == ms["headline"]


@pytest.mark.parametrize(("metric", "in_s", "in_ms"), PAIRS)
def test_figures_csv_latencies_are_in_s_for_a_target_in_s(
    built: dict[str, dict[str, Any]], metric: str, in_s: str, in_ms: str
) -> None:
    s, ms = built[f"{metric} {in_s}"]["csv"], built[f"{metric} {in_ms}"]["csv"]
    latency_rows = [i for i in s if i == "target.latency" or (".point" in i and "latency" in i)]
    assert "target.latency" in latency_rows and len(latency_rows) > 10
    assert latency_rows == [i for i in ms if i in latency_rows]
    for row_id in latency_rows:
        assert (s[row_id]["unit"], ms[row_id]["unit"]) == ("s", "ms"), row_id
        assert math.isclose(float(s[row_id]["value"]) * 1000, float(ms[row_id]["value"]))
    cdf = [i for i in s if re.fullmatch(rf"\w+\.{metric}\.cdf\.p\d+", i)]
    assert all(s[i]["unit"] == "s" for i in cdf)
    # the tok/s/user spec reads along interactivity: its points stay interactivities
    tpot = built["tpot 30 tok/s/user"]["csv"]
    assert "alpha.point0.interactivity" in tpot and "alpha.point0.latency" not in tpot


@pytest.mark.parametrize(("metric", "in_s", "in_ms"), PAIRS)
def test_the_report_and_figure_say_the_targets_unit(
    built: dict[str, dict[str, Any]], metric: str, in_s: str, in_ms: str
) -> None:
    name = {"ttft": "TTFT", "e2el": "end-to-end latency"}[metric]
    for target, unit in ((in_s, "s"), (in_ms, "ms")):
        report, svg = built[f"{metric} {target}"]["report"], built[f"{metric} {target}"]["svg"]
        assert f"of at most {target.replace('5000', '5,000')}" in report
        assert f"| P90 {name} ({unit}) |" in report  # points and equal-latency tables
        assert "### At equal latency" in report
        assert f"target {target}" in svg
        short = name  # the figure names the metric as the report's tables do
        assert f"P90 {short} ({unit})" in svg  # the x axis
        assert re.search(rf"P90 {short}: [\d.,]+ {unit}&#10;", svg)  # each point's hover text
        assert f"latency (P90 {short} in {unit}, lower is better)" in report
        if metric == "ttft":  # the CDF figure's TTFT panel is the axis's own metric
            assert f"TTFT ({unit})" in built[f"{metric} {target}"]["cdf"]
        assert f"The target is a P90 of {target.replace('5000', '5,000')}." in report
        # the read's knots, on the axis in the target's unit
        assert re.search(rf"read steffen between [\d.,]+ {unit} and [\d.,]+ {unit}\)", report)


def test_a_tok_s_user_target_keeps_interactivity(built: dict[str, dict[str, Any]]) -> None:
    report = built["tpot 30 tok/s/user"]["report"]
    assert "| Interactivity (tok/s/user) |" in report
    assert "### At equal interactivity" in report
    assert "interactivity (tok/s/user)" in built["tpot 30 tok/s/user"]["svg"]
