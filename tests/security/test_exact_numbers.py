"""Decimal literals convert exactly: one rounding to the nearest double (`70%` is 0.7)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from cmpc.compile import compile_with_overrides
from cmpc.language import units
from cmpc.source import SourceFile

from .helpers import REPO, copy_spec, run_cli

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"  # declares `utilization 70%`
SOURCE = SourceFile(SWEEP.name, SWEEP.read_text(encoding="utf-8"))

# Percentages in (0, 100] with up to six decimals, written as an author would.
PERCENT = hs.builds(
    lambda millionths: str(Decimal(millionths).scaleb(-6).normalize()),
    hs.integers(min_value=1, max_value=100_000_000),
).map(lambda text: text if "E" not in text else f"{Decimal(text):f}")


def _compiled(*sets: str):
    comparison, diagnostics, _, _ = compile_with_overrides(SOURCE, sets)
    assert comparison is not None and not diagnostics, diagnostics
    return comparison


@settings(max_examples=60, deadline=None)
@given(PERCENT)
def test_a_percentage_is_stored_as_its_nearest_double(percent):
    """Through the spec's own literal rules (`--set` values are parsed as spec text)."""
    comparison = _compiled(f"cost.utilization={percent}%")
    assert comparison.cost.utilization == float(Decimal(percent) / 100)


@settings(max_examples=300, deadline=None)
@given(
    hs.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=6).filter(
        lambda d: d.is_finite()
    ),
    hs.sampled_from(sorted(units.UNITS)),
)
def test_every_unit_converts_with_one_rounding(number, unit):
    text = f"{number:f}"
    factor = units.UNITS[unit][1]
    assert units.convert(text, factor) == float(Fraction(Decimal(text)) * factor)


def test_the_familiar_cases_are_exact():
    percent, millis = units.UNITS["%"][1], units.UNITS["ms"][1]
    assert units.convert("70", percent) == 0.7  # 70 * 0.01 is 0.7000000000000001
    assert units.convert("7", millis) == 0.007
    assert units.convert("1.001", units.UNITS["s"][1] * 1000) == 1001.0  # 1.001 s in ms
    assert units.convert("1." + "0" * 5000 + "1", percent) == 0.01  # long text: still correct
    assert units.convert("1e999999", units.UNITS["GB"][1]) == float("inf")  # E124 rejects it
    assert units.convert("1" + "0" * 400, percent) == float("inf")  # not an OverflowError
    assert units.convert("-1e300", units.UNITS["GB"][1]) == float("-inf")


@pytest.mark.parametrize(
    ("target", "ms"),
    [("1.001 s", 1001.0), ("1.3 ms", 1.3)],  # 1.001 * 1000.0 and 1.3 * 1e-3 * 1000.0 are not
)
def test_a_latency_target_is_its_exact_milliseconds(target, ms):
    comparison = _compiled(f"latency.target={target}")
    assert comparison.latency.target is not None
    assert comparison.latency.target.latency_ms == ms


def test_results_and_figures_store_70_percent_as_0_7(tmp_path, capsys):
    spec = copy_spec(SWEEP, tmp_path / "s")
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--no-cache"])
    assert code == 0, err[-2000:]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert '"utilization": 0.7\n' in (out / "results.json").read_text(encoding="utf-8")
    assert "0.7000000000000001" not in json.dumps(results)
    with (out / "figures.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row[0]: row for row in csv.reader(handle)}
    assert rows["cost.utilization"][3] == "0.7"
