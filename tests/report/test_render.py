"""The report of real and test specs: headline, sections, figures, CSV, HTML, safety."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys

import pytest

from tests.report.conftest import read_tree

MAIN = "specs/mi355x-vs-b300.cmp"
SWEEP = "tests/report/specs/sweep.cmp"
HOSTILE = "tests/report/specs/hostile.cmp"


@pytest.fixture
def main_report(build):
    out, _ = build(MAIN)
    return out, (out / "report.md").read_text(encoding="utf-8")


def _headline(report: str) -> str:
    return next(line for line in report.splitlines() if line.startswith("**8x MI355X delivers"))


def test_build_writes_report_results_figure_and_csv(main_report):
    out, _ = main_report
    assert sorted(read_tree(out)) == [
        ".cmpc-build",  # the marker that lets the next build replace the folder
        "figures.csv",
        "figures/summary.svg",
        "report.md",
        "results.json",
    ]


def test_headline_carries_every_footnote_and_both_cost_consequences(main_report):
    _, report = main_report
    head = _headline(report)
    assert (
        "8x MI355X delivers 24.4% more total tokens per GPU[^tokens],[^norm] than HGX B300 at "
        "50 tok/s per user[^latency], which at equal prices is 19.6% lower cost per token[^price]"
    ) in head
    assert "24.4% more total tokens per GPU[^tokens],[^norm] than HGX B300" in head
    assert "at 50 tok/s per user[^latency]" in head
    assert "which at equal prices is 19.6% lower cost per token[^price]" in head
    assert "at the declared prices ($1.50 vs $2.26 per GPU-hour) it is 46.6% lower" in head
    assert head.endswith("[^source]")
    for key in ("latency", "tokens", "norm", "price", "source"):
        assert f"\n[^{key}]: " in report


def test_footnotes_state_definitions_exactly(main_report):
    _, report = main_report
    notes = dict(re.findall(r"^\[\^(\w+)\]: (.*)$", report, re.M))
    assert "(end-to-end latency \u2212 TTFT) / (output tokens \u2212 1)" in notes["latency"]
    assert "Interactivity = 1 / P90(TPOT)" in notes["latency"]
    assert "numpy's `linear` method" in notes["latency"]
    assert "Steffen (1990)" in notes["latency"]
    assert "20 ms" in notes["latency"]
    assert "reused (prefix-cached) input tokens included" in notes["tokens"]
    assert "unknown" in notes["tokens"]
    assert "8x MI355X 8 GPUs (tp 8)" in notes["norm"]
    assert "1 / 1.244 = 0.804, 19.6% lower" in notes["price"]
    assert "as of 2026-08-14" in notes["price"]
    assert "snapshot 2026-10-09" in notes["source"]
    assert "third party" in notes["source"] and "unverified" in notes["source"]
    assert "reported" in notes["source"] and "Not measured by cmpc" in notes["source"]


def test_reported_only_data_say_there_is_no_absolute_throughput(main_report):
    _, report = main_report
    assert "not reported in absolute terms: only a ratio of 1.244 to HGX B300" in report
    assert "no absolute throughput" in report


def test_cost_table_shows_the_arithmetic(main_report):
    _, report = main_report
    assert "At equal prices, cost per token scales by 1 / 1.244 = 0.804: 19.6% lower" in report
    assert "($1.50 / $2.26) / 1.244 = 0.664 / 1.244 = 0.534: 46.6% lower" in report


def test_disclosure_verdict_and_missing_items_as_questions(main_report):
    _, report = main_report
    assert "**Verdict: directional signal only.**" in report
    assert "18 of 38 checklist items are disclosed" in report
    assert "at least half the items, 19 of 38, are disclosed" in report and "1 short" in report
    section = report.split("so a reader should ask")[1].split("## ")[0]
    assert (
        "- ★ Under what load (concurrency or rate, sweep range) was it measured? "
        "(`load_conditions`)"
    ) in section
    assert "- Has anyone independent verified the figures? (`verification`)" in section
    # one table with the answers, and the undisclosed items listed once, not twice
    table = report.split("## Disclosure")[1].split("Not disclosed")[0]
    assert (
        "| `memory` | What is each accelerator's nominal and usable memory? | stated in the spec: "
        "8x MI355X: 288 GB per GPU; HGX B300: 288 GB per GPU (usable 270 GB) |"
    ) in table
    assert (
        "| `utilization` | What utilization does the cost assume? | stated in the spec: 100.0% |"
        in table
    )
    assert "not disclosed" not in table and report.count("(`verification`)") == 1


def test_provenance_holds_the_spec_hash_version_and_overrides(main_report, build):
    out, report = main_report
    import json

    results = json.loads((out / "results.json").read_text())
    assert results["spec"]["sha256"] in report
    assert f"cmpc {results['cmpc_version']}" in report
    assert "Overrides (`--set`): none" in report
    out2, _ = build(MAIN, sets=["cost.utilization=40%"])
    report2 = (out2 / "report.md").read_text()
    assert "`cost.utilization` = `40%`" in report2
    assert "at utilization 40.0%" in report2


def test_assumptions_table_lists_every_price_with_basis_source_and_date(main_report):
    _, report = main_report
    section = report.split("## Assumptions")[1].split("## ")[0]
    rows = [r for r in section.splitlines() if r.startswith("| 8x MI355X | price")]
    assert len(rows) == 3
    assert "| $1.50 per GPU-hour | owning |" in rows[0] and "| 2026-08-14 |" in rows[0]
    assert "| all | utilization | 100.0% |" in section


def test_sensitivity_is_rendered_with_flips_in_bold(build):
    out, _ = build("specs/synthetic-sweep.cmp")
    report = (out / "report.md").read_text()
    section = report.split("## Sensitivity")[1].split("## ")[0]
    assert "| token accounting | output | 1.578 |" in section
    assert "**alpha (synthetic) (flips)**" in section
    assert "**The winner flips under" in section
    assert "at 40%, alpha (synthetic) $1.10, beta (synthetic) $1.11" in section


def test_default_sensitivity_when_none_declared(build):
    out, _ = build(SWEEP)  # sweep.cmp declares no sensitivity
    report = (out / "report.md").read_text()
    assert "the default set is shown" in report
    # reported figures: no alternative can move a ratio, so each parameter folds into one line
    assert (
        "Folded out of the table, because no alternative of it changes a ratio: token accounting "
        "(output, input + output) leaves them at 1.148 and 0.697; statistic (p50, p90, p99) leaves "
        "them at 1.148 and 0.697; utilization (40%, 70%, 100%) leaves them at 1.148 and 0.697."
    ) in report
    table = report.split("## Sensitivity")[1].split("Folded")[0]
    assert "| as specified | (the spec) | 1.148 | 0.697 | System A | System A |" in table
    assert "| 40% |" not in table and "| p90 |" not in table


def test_synthetic_data_are_said_prominently(build):
    out, _ = build("specs/synthetic-sweep.cmp")
    report = (out / "report.md").read_text()
    assert report.splitlines()[2].startswith("> **SYNTHETIC DATA.**")
    assert "[^synthetic]: " in report


def test_sweep_gives_the_frontier_figure_with_target_reads_and_unreachable(build):
    out, _ = build(SWEEP)
    files = read_tree(out)
    assert "figures/frontier.svg" in files and "figures/summary.svg" not in files
    svg = files["figures/frontier.svg"].decode()
    assert "target 50 tok/s/user" in svg
    # System C's frontier spans 60-90 tok/s/user: every point beats the 50 tok/s/user target,
    # so its read is a lower bound at its slowest point (issue 14), drawn there, not unreachable
    assert "System C: unreachable" not in svg and "System C: lower bound" in svg
    assert "System A: read at target" in svg and "System A: frontier (steffen)" in svg
    report = files["report.md"].decode()
    assert "![" in report and "](figures/frontier.svg)" in report
    assert "| System C | $1.00 | \u2265 1,200.0 | \u2264 $0.231 |" in report
    assert "| System C | System B | \u2265 0.697 |" in report
    assert "\u2265 1,200.0 tok/s/gpu, measured at 60 tok/s/user: a lower bound" in report
    assert "triangles: lower bounds" in report and "crosses" not in report


def test_figures_csv_holds_every_displayed_figure_with_unit_and_source(build):
    out, _ = build(SWEEP)
    rows = list(csv.DictReader(io.StringIO((out / "figures.csv").read_text())))
    assert list(rows[0]) == ["id", "quantity", "system", "value", "unit", "displayed", "source"]
    by_id = {r["id"]: r for r in rows}
    read = by_id["a.throughput_at_target"]
    assert read["unit"] == "tok/s/gpu" and read["source"].startswith("reported: Example")
    assert by_id["a.point0.throughput"]["value"] == "3000.0"
    report = (out / "report.md").read_text()
    for r in rows:
        assert r["displayed"] in report, r["id"]


def test_html_preview_has_footnotes_and_inline_figures(build):
    out, _ = build(MAIN, html=True)
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert '<section class="footnotes">' in page
    assert page.count("<svg") == 1 and "<img" not in page
    assert "<?xml" not in page


def test_spec_text_cannot_break_markdown_or_html(build):
    out, _ = build(HOSTILE, html=True)
    report = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    assert "<script>" not in report
    from cmpc.report.html import script

    assert page.count("<script") == 1 and f"<script>{script()}</script>" in page  # cmpc's own
    assert "onerror=alert" not in page.replace("&lt;img src=x onerror=alert(1)&gt;", "")
    assert 'href="javascript' not in page
    assert '<img src="https://evil' not in page
    # every table keeps its column count: no spec text adds a cell
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(report)
    rows = [t for t in tokens if t.type == "tr_open"]
    assert rows
    # footnote definitions stay the six cmpc writes (`ci`: intervals), however spelt in the spec
    assert len(re.findall(r"^\[\^\w+\]: ", report, re.M)) == 6
    assert report.splitlines()[0].startswith("# Title \\| with pipes \\<script\\>")


def test_table_rows_have_as_many_cells_as_headers(build):
    out, _ = build(HOSTILE)
    lines = (out / "report.md").read_text().splitlines()
    cells = lambda line: len(re.findall(r"(?<!\\)\|", line)) - 1  # noqa: E731
    for i, line in enumerate(lines):
        if line.startswith("|---"):
            width = cells(line)
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                assert cells(lines[j]) == width, lines[j]
                j += 1


def test_check_does_not_import_the_report_and_no_build_imports_matplotlib(in_repo, tmp_path):
    code = (
        "import sys\n"
        "from cmpc.cli import main\n"
        "def run(args):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"run(['check', '{MAIN}'])\n"
        "assert 'cmpc.report' not in sys.modules, 'cmpc check imported the report'\n"
        f"run(['build', '{MAIN}', '-o', r'{tmp_path / 'summary'}'])\n"
        f"run(['build', '{SWEEP}', '-o', r'{tmp_path / 'sweep'}'])\n"
        "assert 'cmpc.report.svg' in sys.modules, 'no figure was drawn'\n"
        "assert 'matplotlib' not in sys.modules, 'a build imported matplotlib'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "summary/figures/summary.svg").is_file()
    assert (tmp_path / "sweep/figures/frontier.svg").is_file()


@pytest.mark.parametrize("spec", [MAIN, "specs/mi355x-vs-b300-per-dollar.cmp", SWEEP])
def test_every_amount_in_cost_and_assumptions_is_in_figures_csv(build, spec):
    out, _ = build(spec)
    report = (out / "report.md").read_text()
    shown = {r["displayed"] for r in csv.DictReader(io.StringIO((out / "figures.csv").read_text()))}
    section = report.split("## Cost")[1].split("## Sensitivity")[0]
    amounts = set(re.findall(r"\$[\d,]+(?:\.\d+)?|\b\d+(?:\.\d+)?%|\b\d\.\d{3}\b", section))
    assert amounts, "no amounts found"
    assert amounts - shown == set()


def test_html_headings_have_anchors_for_the_disclosure_link(build):
    out, _ = build(MAIN, html=True)
    page = (out / "report.html").read_text()
    assert 'href="#disclosure"' in page and 'id="disclosure"' in page


@pytest.mark.parametrize("spec", [MAIN, SWEEP])
def test_render_survives_missing_or_null_fields(build, spec, monkeypatch):
    """Specs gain fields faster than the report: any absent or null field still renders."""
    import copy
    import json
    from xml.etree import ElementTree

    from cmpc.report import environment, render_outputs

    env = environment.make_environment()  # compile cmpc's templates once for all variants
    monkeypatch.setattr(environment, "make_environment", lambda template_dir=None: env)

    out, _ = build(spec)
    results = json.loads((out / "results.json").read_text())
    variants = []
    for key in results:
        variants.append({k: v for k, v in results.items() if k != key})
        variants.append({**results, key: None})
    for name, system in results["systems"].items():
        for field in system:
            variant = copy.deepcopy(results)
            variant["systems"][name][field] = None
            variants.append(variant)
    for part in ("headline", "conditions", "disclosure", "sensitivity"):
        for field in results[part]:
            variant = copy.deepcopy(results)
            variant[part][field] = None
            variants.append(variant)
    for variant in variants:  # every variant draws its figure: drawing takes milliseconds
        files, problems = render_outputs(variant)
        assert problems == [] and files["report.md"].startswith("# ")
        for path in ("figures/frontier.svg", "figures/summary.svg"):
            if path in files:
                ElementTree.fromstring(files[path])


def test_an_unreachable_target_gives_no_headline_ratio_and_says_why(build):
    out, _ = build(SWEEP, sets=["latency.target=85 tok/s/user"])
    report = (out / "report.md").read_text()
    assert (
        "**No headline ratio at 85 tok/s per user[^set][^latency]: System A does not reach the "
        "target" in report
    )
    # the target came from the command line: the footnote gives the spec's own
    assert "`latency.target` = `85 tok/s/user` (was `50 tok/s/user` in the spec)" in report
    assert "cmpc never extrapolates" in report


def test_iso_interactivity_table_reads_both_frontiers_and_marks_reversals(build):
    import json

    out, _ = build("tests/report/specs/crossing.cmp")
    report = (out / "report.md").read_text()
    section = report.split("### At equal interactivity")[1].split("## ")[0]
    assert "**the lead reverses within this range**" in section
    assert "| **30** | **2,477.8** | **2,192.6** | **1.130** |" in section
    # one number of decimals per column: 1,500.0 beside 2,477.8, never 1,500
    assert "| 50 | 1,500.0 | 1,600.0 | 0.938 (reversed) |" in section
    assert "| 20 | 3,000.0 | 2,500.0 | 1.200 |" in section
    results = json.loads((out / "results.json").read_text())
    at = results["systems"]["a"]["at_target"]["throughput_per_gpu"]
    assert f"{at:,.1f}" == "2,477.8"  # the table's target row is the headline's own read


def test_no_iso_table_without_two_frontiers(main_report):
    _, report = main_report
    assert "At equal interactivity" not in report


def test_systems_side_by_side_with_the_rows_that_differ_first(main_report):
    _, report = main_report
    section = report.split("## Results")[1].split("## Figure")[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert lines[0] == "| Quantity | 8x MI355X | HGX B300 (baseline) |"
    assert "### 8x MI355X" not in report  # no table per system any more
    labels = [line.split(" | ")[0][2:] for line in lines[2:]]
    assert labels.index("Memory") < labels.index("Engine")  # 288 GB vs 288 GB (usable 270 GB)
    assert "| Memory | 288 GB per GPU | 288 GB per GPU (usable 270 GB) |" in lines
    assert "| Model | Kimi K3 | Kimi K3 |" in lines
    assert "| Relative to the baseline | 1.244× (to HGX B300) | 1.000× (the baseline) |" in lines
    assert "the 8 rows that differ first, then the 7 they share" in section


def test_the_side_by_side_throughput_row_has_one_number_of_decimals(build):
    out, _ = build(SWEEP)
    report = (out / "report.md").read_text()
    row = next(line for line in report.splitlines() if line.startswith("| Throughput at the"))
    cells = [c for c in row.split("|")[2:] if c.strip()]
    shown = [re.match(r"\s*[≥ ]*([\d,]+(?:\.(\d+))?)", c) for c in cells]
    assert len(shown) >= 2 and all(shown)
    decimals = {len(m.group(2) or "") for m in shown if m}
    assert len(decimals) == 1, row  # 1,263.0 beside 1,567.1, never 1,263
