"""`--set` and `--unset`: every part of a price reachable, credited to the command line."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_spec
from cmpc.diagnostics import render_human
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[1]
SHOWCASE = REPO / "specs" / "mi355x-vs-b300.cmp"


def compiled(*sets: str, unsets: tuple[str, ...] = ()):
    source = SourceFile(SHOWCASE.name, SHOWCASE.read_text())
    return compile_spec(source, sets, unsets)


def prices(result, system: str):
    assert result.comparison is not None, result.diagnostics
    return {p.scenario: p for p in result.comparison.system(system).prices}


def test_a_new_amount_drops_the_specs_source_and_date():
    p = prices(compiled("system.mi355x.price=2.00 USD/gpu/h"), "mi355x")["owning"]
    assert (p.usd_per_gpu_hour, p.basis, p.source, p.as_of) == (2.0, "owning", None, None)
    assert p.set_on_command_line == ("amount",)


def test_each_part_of_a_price_and_a_named_scenario_is_reachable():
    result = compiled(
        "system.mi355x.price.retail=3.10 USD/gpu/h",
        'system.mi355x.price.retail.source="my quote"',
        "system.mi355x.price.retail.as_of=2026-10-01",
        "system.b300.price.basis=reserved",
    )
    assert [d.code for d in result.diagnostics] == []
    retail = prices(result, "mi355x")["retail"]
    assert (retail.usd_per_gpu_hour, retail.source, retail.as_of) == (3.1, "my quote", "2026-10-01")
    assert retail.set_on_command_line == ("amount", "source", "as_of")
    b300 = prices(result, "b300")
    assert b300["owning"].basis == "reserved" and b300["owning"].source == "semianalysis_tco"
    assert b300["owning"].set_on_command_line == ("basis",)


def test_a_scenario_can_be_renamed():
    result = compiled("system.b300.price.rental_3yr.scenario=reserved_3yr")
    # the sensitivity table names `rental_3yr`, which b300 no longer has: the rename took
    (d,) = [d for d in result.diagnostics if d.code == "E105"]
    assert d.message == "price scenario `rental_3yr` is missing on `b300`"


def test_a_source_given_before_the_amount_is_kept():
    p = prices(
        compiled('system.mi355x.price.source="my quote"', "system.mi355x.price=2.00 USD/gpu/h"),
        "mi355x",
    )["owning"]
    assert (p.source, p.as_of, p.set_on_command_line) == ("my quote", None, ("amount", "source"))


def test_unset_removes_a_key_and_an_option():
    result = compiled(unsets=("system.mi355x.price.rental_3yr.as_of", "capacity"))
    assert result.comparison is not None, result.diagnostics
    assert prices(result, "mi355x")["rental_3yr"].as_of is None
    assert result.comparison.capacity is None
    assert [(o.path, o.value) for o in result.overrides] == [
        ("system.mi355x.price.rental_3yr.as_of", None),
        ("capacity", None),
    ]


def test_an_unset_block_says_what_the_spec_had_not_an_empty_value():
    """`--unset sensitivity` removed a block: its `was` is `{ ... }`, never an empty string that
    a report prints as "(was `` in the spec)"."""
    result = compiled(unsets=("sensitivity", "system.mi355x.price.rental_3yr.as_of"))
    was = {o.path: o.was for o in result.overrides}
    assert was["sensitivity"] == "{ ... }"
    assert was["system.mi355x.price.rental_3yr.as_of"] not in (None, "", "{ ... }")


@pytest.mark.parametrize(
    ("sets", "unsets", "shown"),
    [
        (
            ("system.mi355x.price=2 USD/kWh",),
            (),
            " --> --set #1:1:27\n  |\n1 | --set system.mi355x.price=2 USD/kWh\n"
            "  |                           ^^^^^^^^^ this is an energy price (USD/kWh)\n",
        ),
        (
            ("system.nope.price=1 USD/gpu/h",),
            (),
            "1 | --set system.nope.price=1 USD/gpu/h\n  |       ^^^^^^^^^^^^^^^^^ this path\n",
        ),
        (
            ("cost.utilization",),
            (),
            "1 | --set cost.utilization\n  |       ^^^^^^^^^^^^^^^^ expected PATH=VALUE\n",
        ),
        (
            (),
            ("system.mi355x.gpus_per_rack",),
            "no `gpus_per_rack` in the spec to remove\n --> --unset #1:1:9\n",
        ),
    ],
)
def test_diagnostics_point_at_the_command_line_text(sets, unsets, shown):
    result = compiled(*sets, unsets=unsets)
    sources = {SHOWCASE.name: SourceFile(SHOWCASE.name, SHOWCASE.read_text()), **result.sources}
    first = [d for d in result.diagnostics if d.code in ("E108", "E501")]
    text = render_human(first, sources)
    assert shown in text, text
    assert "v 2" not in text and "-->  " not in text


def test_the_report_credits_the_command_line_everywhere(tmp_path):
    shutil.copy(SHOWCASE, tmp_path / SHOWCASE.name)
    shutil.copytree(REPO / "specs" / "data", tmp_path / "data")
    out = tmp_path / "out"
    outcome = build_spec(
        str(tmp_path / SHOWCASE.name),
        out_dir=str(out),
        sets=["system.mi355x.price=2.00 USD/gpu/h", "cost.utilization=40%"],
    )
    assert outcome.code == 0, outcome.diagnostics
    report = (out / "report.md").read_text()
    assert "SemiAnalysis priced" not in report
    row = next(
        line for line in report.splitlines() if line.startswith("| 8x MI355X | price (owning)")
    )
    assert row == (
        "| 8x MI355X | price (owning) | $2.00 per GPU-hour[^set] | owning "
        "| `--set` (command line) | n/a |"
    )
    utilization = (
        "| all | utilization | 40.0%[^set] | assumed: share of hours serving at the measured "
    )
    assert utilization + "throughput | `--set` |" in report
    footnote = next(line for line in report.splitlines() if line.startswith("[^price]:"))
    assert "at utilization 40.0% (set on the command line: was `100%` in the spec)" in footnote
    assert (
        "8x MI355X $2.00 per GPU-hour, owning basis, set on the command line: was "
        "`1.50 USD/gpu/h` in the spec;"
    ) in footnote
    rows = {r["id"]: r for r in csv.DictReader((out / "figures.csv").open())}
    assert rows["mi355x.price"]["source"] == "command line (--set)"
    assert rows["b300.price"]["source"].startswith("SemiAnalysis")
    results = json.loads((out / "results.json").read_text())
    price = results["systems"]["mi355x"]["cost"]["price"]
    assert (price["source"], price["as_of"], price["set_on_command_line"]) == (
        None,
        None,
        ["amount"],
    )
    assert results["ir"]["systems"][0]["prices"][0]["set_on_command_line"] == ["amount"]


def test_a_key_under_a_value_line_is_refused_not_ignored():
    """`--set normalize.per=mw` made a body under `normalize per gpu` the checker never read:
    the build said per GPU while the report listed the override. It is E501 now; setting the
    line whole (`normalize=mw`) normalizes per MW."""
    refused = compiled("normalize.per=mw")
    (problem,) = [d for d in refused.diagnostics if d.code == "E501"]
    assert problem.severity == "error"  # the build stops: exit 1
    assert "`normalize` is a value, not a block" in problem.message
    whole = compiled("normalize=mw")
    assert whole.comparison is not None and whole.comparison.normalize.per == "mw"


def test_an_unset_line_was_its_whole_value_basis_and_source_included():
    """`--unset system.mi355x.power` removes `power 2.09 kW basis provisioned source
    semianalysis_tco`: its `was` is that whole value, not `2.09 kW` without its basis."""
    result = compiled(unsets=("system.mi355x.power",))
    was = {o.path: o.was for o in result.overrides}
    assert was["system.mi355x.power"] == "2.09 kW basis provisioned source semianalysis_tco"
