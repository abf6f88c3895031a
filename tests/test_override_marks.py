"""`--set` values are marked where the report states them, with the spec's own value.

A reader of report.md must see, beside an overridden price, target, statistic, normalization
or utilization, that it is not the reviewed spec's (`[^set]`, whose footnote gives the spec's
value); results.json gives each override's `was`."""

from __future__ import annotations

import json
import re

import pytest

from cmpc.build.pipeline import build_spec

SHOWCASE = "specs/mi355x-vs-b300.cmp"  # prices 1.50 / 2.26 USD/gpu/h, utilization 100%
NEWCOMER = "specs/llama70b-newcomer.cmp"  # target 20 tok/s/user, p90, per gpu, utilization 70%


def _build(tmp_path, spec: str, sets=(), unsets=()):
    out = tmp_path / "out"
    outcome = build_spec(spec, out_dir=str(out), sets=list(sets), unsets=list(unsets))
    assert outcome.code == 0, outcome.diagnostics
    return (out / "report.md").read_text(), json.loads((out / "results.json").read_text())


def _line(report: str, start: str) -> str:
    return next(line for line in report.splitlines() if line.startswith(start))


def test_a_price_and_the_utilization_are_marked_where_stated(in_repo, tmp_path):
    sets = ["system.mi355x.price=2.00 USD/gpu/h", "cost.utilization=40%"]
    report, results = _build(tmp_path, SHOWCASE, sets)
    assert results["overrides"] == [
        {"path": "system.mi355x.price", "value": "2.00 USD/gpu/h", "was": "1.50 USD/gpu/h"},
        {"path": "cost.utilization", "value": "40%", "was": "100%"},
    ]
    assert "at the declared prices ($2.00[^set] vs $2.26 per GPU-hour)" in report  # headline
    assert _line(report, "| Price |") == (
        "| Price | $2.00 per GPU-hour (owning)[^set] | $2.26 per GPU-hour (owning) |"
    )
    assert "| 8x MI355X | $2.00[^set] |" in report  # the cost table
    assert "| HGX B300 | $2.26 |" in report  # the price nobody changed: no mark
    assert "at utilization 40.0%[^set].[^price]" in report
    assert _line(report, "[^set]:") == (
        "[^set]: Set on the command line, not in the reviewed spec file "
        "`specs/mi355x-vs-b300.cmp`: `system.mi355x.price` = `2.00 USD/gpu/h` (was "
        "`1.50 USD/gpu/h` in the spec); `cost.utilization` = `40%` (was `100%` in the spec). "
        "Every other value is the spec's."
    )
    # the checklist no longer claims the spec states the utilization
    assert (
        "| `utilization` | What utilization does the cost assume? | set on the command " in report
    )


def test_a_target_a_statistic_and_a_normalization_are_marked(in_repo, tmp_path):
    sets = ["latency.target=10 tok/s/user", "latency.statistic=median", "normalize=per node"]
    report, results = _build(tmp_path, NEWCOMER, sets)
    assert [o["was"] for o in results["overrides"]] == ["20 tok/s/user", "p90", "per gpu"]
    headline = _line(report, "**TP4")
    assert "total tokens per node[^set][^tokens]" in headline
    assert "at 10 tok/s per user[^set]" in headline
    # 31.0% fewer tokens per node yet cheaper: the equal prices are per GPU-hour (per GPU,
    # TP4 x PP2 serves 38.1% more, so 1 / 1.381 = 0.724)
    assert "which at equal prices per GPU-hour is 27.6% lower cost per token" in headline
    latency = _line(report, "[^latency]:")
    assert "the median (P50) (set on the command line: was `p90` in the spec) over" in latency
    assert (
        "The target 10 tok/s/user (set on the command line: was `20 tok/s/user` in the spec)"
        in latency
    )
    row = _line(report, "| `latency_metric` ★ |")
    assert "| set on the command line[^set], not as the spec states it: median (P50)" in row


def test_an_unset_key_and_a_key_the_spec_lacks(in_repo, tmp_path):
    report, results = _build(
        tmp_path,
        NEWCOMER,
        sets=["sensitivity.tokens=output"],
        unsets=["system.tp8.price.source"],
    )
    by_path = {o["path"]: o for o in results["overrides"]}
    assert by_path["sensitivity.tokens"]["was"] is None
    assert by_path["system.tp8.price.source"] == {
        "path": "system.tp8.price.source",
        "value": None,
        "was": '"made-up price for illustration, not a quote"',
    }
    note = _line(report, "[^set]:")
    assert "`sensitivity.tokens` = `output` (not in the spec)" in note
    assert "`system.tp8.price.source` removed (`--unset`) (was" in note


def test_a_path_set_twice_was_the_spec_value(in_repo, tmp_path):
    sets = ["cost.utilization=40%", "cost.utilization=50%"]
    _, results = _build(tmp_path, NEWCOMER, sets)
    assert [o["was"] for o in results["overrides"]] == ["70%", "70%"]


@pytest.mark.parametrize("second", ["comparison.cost.utilization", "cost.utilization"])
def test_a_path_set_twice_under_another_spelling_was_the_spec_value(in_repo, tmp_path, second):
    """`comparison.` is the same path: the spec's 70% is what both replaced, said once."""
    report, results = _build(tmp_path, NEWCOMER, ["cost.utilization=40%", f"{second}=50%"])
    assert [o["was"] for o in results["overrides"]] == ["70%", "70%"]
    assert "50%` in the spec" not in report and "`70%`, `70%`" not in report


@pytest.mark.parametrize("spec", [SHOWCASE, NEWCOMER])
def test_without_overrides_nothing_is_marked(in_repo, tmp_path, spec):
    report, results = _build(tmp_path, spec)
    assert results["overrides"] == []
    assert "[^set]" not in report and not re.search("set on the command line", report)
