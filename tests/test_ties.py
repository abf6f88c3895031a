"""Ties are ties: a ratio within the tie band of 1 is never a flipped winner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from cmpc.analysis.sensitivity import flips, is_tie
from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_source
from cmpc.ir.model import DEFAULT_TIE_BAND
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[1]
SWEEP = REPO / "specs" / "synthetic-sweep.cmp"


def _build(out: Path, *sets: str) -> tuple[dict, str]:
    outcome = build_spec(str(SWEEP), out_dir=str(out), sets=list(sets))
    assert outcome.code == 0, outcome.diagnostics
    return json.loads((out / "results.json").read_text()), (out / "report.md").read_text()


def _row(results: dict, parameter: str, alternative: str) -> dict:
    rows = results["sensitivity"]["rows"]
    return next(r for r in rows if (r["parameter"], r["alternative"]) == (parameter, alternative))


# The tie band alone, intervals off: with them on, the noise rule also unbolds rows (below).
NO_INTERVALS = "uncertainty=off"


def test_a_cost_ratio_of_1_0000793_is_a_tie_not_a_flip(tmp_path):
    results, report = _build(tmp_path / "out", NO_INTERVALS)
    median = _row(results, "statistic", "median")
    assert median["cost_ratio"] == pytest.approx(1.0000793, abs=1e-7)
    # the spec's own cost winner is alpha (0.993); the median's "winner" is beta by 0.008%
    assert results["headline"]["cost_winner"] == "alpha"
    assert median["cost_winner"] == "beta"
    assert median["cost_tie"] and not median["cost_flips"]
    assert results["sensitivity"]["tie_band"] == DEFAULT_TIE_BAND
    assert "| statistic | median | 0.800 | 1.000 | beta (synthetic) | tie |" in report
    assert "a ratio within 0.5% of 1 is a tie, never a flip" in report
    assert "**The winner flips under 3 of the 12 alternatives that could be read.**" in report


def test_with_a_zero_band_the_same_row_flips(tmp_path):
    """The band, not the data, is what made the median row a tie."""
    results, report = _build(tmp_path / "out", "sensitivity.tie=0%", NO_INTERVALS)
    median = _row(results, "statistic", "median")
    assert not median["cost_tie"] and median["cost_flips"]
    assert "**beta (synthetic) (flips)**" in report
    assert "**The winner flips under 5 of the 12 alternatives that could be read.**" in report


def test_a_headline_ratio_within_the_band_is_about_the_same(tmp_path):
    # 0.806 and 0.993 are both within 30% of 1
    _, report = _build(tmp_path / "out", "sensitivity.tie=30%")
    headline = next(line for line in report.splitlines() if line.startswith("**alpha"))
    assert headline.startswith("**alpha (synthetic) delivers about the same ")
    assert "about the same cost per token" in headline
    assert "more" not in headline and "fewer" not in headline and "lower" not in headline


RATIOS = hs.floats(min_value=1e-3, max_value=1e3, allow_nan=False)
BANDS = hs.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def _winner(r: float) -> str | None:
    """As analysis.comparisons.ratios names it: the system above 1, the baseline below."""
    return "system" if r > 1 else "baseline" if r < 1 else None


@given(RATIOS, RATIOS, BANDS)
def test_a_ratio_flips_only_outside_the_band_and_when_the_winner_changes(r, spec_r, band):
    flipped = flips(r, _winner(r), spec_r, _winner(spec_r), band)
    outside = abs(r - 1) > band and abs(spec_r - 1) > band
    assert flipped == (outside and _winner(r) != _winner(spec_r))
    if is_tie(r, band):
        assert not flipped


def _spec(sensitivity_body: str) -> str:
    text = SWEEP.read_text()
    assert "  sensitivity {\n" in text
    return text.replace("  sensitivity {\n", "  sensitivity {\n" + sensitivity_body, 1)


@pytest.mark.parametrize(
    ("entry", "band"), [("", DEFAULT_TIE_BAND), ("tie 1%\n", 0.01), ("tie 0%\n", 0.0)]
)
def test_the_tie_band_is_read_into_the_ir(entry, band):
    comparison, diagnostics = compile_source(SourceFile("t.cmp", _spec(entry)))
    assert comparison is not None, diagnostics
    assert comparison.tie_band == band
    assert comparison.to_json()["tie_band"] == band


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        ("tie 140%\n", "E111"),
        ("tie -1%\n", "E111"),
        ("tie 5 ms\n", "E108"),
        ("tie 1e-12%\n", "E124"),
    ],
)
def test_a_band_out_of_range_is_a_diagnostic(entry, code):
    comparison, diagnostics = compile_source(SourceFile("t.cmp", _spec(entry)))
    assert comparison is None
    assert code in {d.code for d in diagnostics}


def test_a_cost_lead_within_measurement_noise_is_never_a_flip(tmp_path):
    """With intervals on (the default), the headline's cost ratio (0.993) has an interval that
    holds 1: the cost lead is within noise, so no alternative's cost winner is a bold flip."""
    results, report = _build(tmp_path / "out", "sensitivity.tie=0%")
    head = results["headline"]
    low, high = head["cost_ratio_ci"]
    assert low < 1 < high and head["cost_within_noise"] is True
    assert not any(r["cost_flips"] for r in results["sensitivity"]["rows"])
    assert "the cost difference is within measurement noise" in report
    # the throughput lead (0.806, interval below 1) is not noise: its flips stay bold
    assert head["within_noise"] is False and head["throughput_ratio_ci"][1] < 1
