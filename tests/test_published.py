"""Published intervals on reported figures: carried as declared, propagated only as stated.

The figures here are synthetic (made up for the arithmetic, no source published them); the
normal quantiles are the textbook values.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from referencing import Registry, Resource

from cmpc.analysis.results import analyze
from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_source
from cmpc.diagnostics import Severity
from cmpc.ingest.points import SystemData
from cmpc.ir.schema import ir_schema
from cmpc.source import SourceFile
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import format_spec

REPO = Path(__file__).resolve().parents[1]
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
Z90 = 1.6448536269514722  # its 95% quantile


def spec(a: str, b: str, level: str = "") -> str:
    """Two reported systems; `a` and `b` are the bodies of their `reported` blocks."""
    return f"""comparison "synthetic: published intervals" {{
  baseline b
  source ix {{
    role third_party
    snapshot 2026-10-09
  }}
  latency {{
    statistic p90
    target 50 tok/s/user
  }}
  {level}
  system a {{
    accelerator "X" x 8
    cache_hit_rate unknown
    price 2.00 USD/gpu/h basis owning as_of 2026-08-14
    reported {{
      source ix
      statistic p90
      {a}
    }}
  }}
  system b {{
    accelerator "Y" x 8
    cache_hit_rate unknown
    price 2.50 USD/gpu/h basis owning as_of 2026-08-14
    reported {{
      source ix
      statistic p90
      {b}
    }}
  }}
}}
"""


def results(text: str) -> dict:
    comparison, diagnostics = compile_source(SourceFile("p.cmp", text))
    assert comparison is not None, [d.message for d in diagnostics]
    assert [d.code for d in diagnostics if d.severity is Severity.ERROR] == []
    found, _ = analyze(comparison, {s.name: SystemData(s.name) for s in comparison.systems})
    return json.loads(json.dumps(found))


def validate_results(doc: dict) -> None:
    ir = ir_schema()
    registry = Registry().with_resource(ir["$id"], Resource.from_contents(ir))
    schema = json.loads((REPO / "compiler/cmpc/schemas/results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema, registry=registry).validate(doc)


def codes(text: str) -> list[str]:
    return sorted(d.code for d in compile_source(SourceFile("p.cmp", text))[1])


A_THROUGHPUT = "throughput 2600 tok/s/gpu at 50 tok/s/user"
B_THROUGHPUT = "throughput 2000 tok/s/gpu at 50 tok/s/user"
B_PLAIN = B_THROUGHPUT
NONE_NOTE = "reported figures carry no interval (no per-request data)"


def test_derived_ratio_interval_worked_example():
    """a 2600 ± 3.1% (95%), b 1900 to 2100 (90%): log half-widths in quadrature at 95%."""
    found = results(
        spec(
            f"{A_THROUGHPUT}\n      interval throughput 95% plus_minus 3.1% source ix",
            f"{B_THROUGHPUT}\n      interval throughput 90% 1900 to 2100 tok/s/gpu source ix"
            " as_of 2026-10-01",
        )
    )
    h = found["headline"]
    assert h["throughput_ratio"] == pytest.approx(1.3)
    a_below, a_above = math.log(1 / 0.969) / Z95, math.log(1.031) / Z95
    b_below, b_above = math.log(2000 / 1900) / Z90, math.log(2100 / 2000) / Z90
    low = 1.3 * math.exp(-Z95 * math.hypot(a_below, b_above))
    high = 1.3 * math.exp(Z95 * math.hypot(a_above, b_below))
    assert h["throughput_ratio_ci"] == pytest.approx([low, high], rel=1e-9)
    assert h["throughput_ratio_ci"] == pytest.approx([1.2168, 1.3919], abs=1e-4)
    assert h["interval_basis"] == "derived"
    assert "independent" in h["interval_assumption"]
    assert h["within_noise"] is False
    # cost per token goes as price / throughput: 0.8 / 1.3, its interval the inverse's
    assert h["cost_ratio_ci"] == pytest.approx([0.8 / high, 0.8 / low], rel=1e-9)
    a = found["systems"]["a"]["uncertainty"]
    assert a["throughput_per_gpu_ci"] == pytest.approx([2519.4, 2680.6])
    assert a["interval_basis"] == "declared"
    assert a["published_intervals"][0]["as_of"] == "2026-10-09"  # the source's snapshot
    assert found["systems"]["b"]["uncertainty"]["published_intervals"][0]["as_of"] == "2026-10-01"


def test_ratio_interval_published_for_the_ratio_is_carried_exactly():
    found = results(
        spec("ratio 1.244 to b\n      interval ratio 95% 1.18 to 1.31 source ix", "ratio 1")
    )
    h = found["headline"]
    assert h["throughput_ratio_ci"] == [1.18, 1.31]
    assert h["interval_basis"] == "declared"
    assert h["within_noise"] is False
    assert "published for this ratio" in h["interval_assumption"]


def test_published_interval_holding_one_is_within_noise():
    found = results(
        spec("ratio 1.05 to b\n      interval ratio 95% 0.97 to 1.13 source ix", "ratio 1")
    )
    assert found["headline"]["within_noise"] is True


def test_declared_at_another_level_is_converted_and_says_derived():
    found = results(
        spec("ratio 1.2 to b\n      interval ratio 90% 1.1 to 1.3 source ix", "ratio 1")
    )
    h = found["headline"]
    below = math.log(1.2 / 1.1) / Z90 * Z95
    above = math.log(1.3 / 1.2) / Z90 * Z95
    assert h["throughput_ratio_ci"] == pytest.approx(
        [1.2 * math.exp(-below), 1.2 * math.exp(above)], rel=1e-9
    )
    assert h["interval_basis"] == "derived"


def test_one_side_without_a_published_interval_gives_the_ratio_none():
    found = results(
        spec(
            f"{A_THROUGHPUT}\n      interval throughput 95% plus_minus 3.1% source ix", B_THROUGHPUT
        )
    )
    h = found["headline"]
    assert h["throughput_ratio_ci"] is None and h["within_noise"] is None
    assert "`b`'s reported figure carries no published interval" in h["interval_note"]
    b = found["systems"]["b"]["uncertainty"]
    assert b["throughput_per_gpu_ci"] is None and b["interval_basis"] is None
    assert "carry no interval" in b["note"]


def test_without_declarations_reported_figures_still_carry_none():
    found = results(spec("ratio 1.244 to b", "ratio 1"))
    h = found["headline"]
    assert h["throughput_ratio_ci"] is None and h["interval_basis"] is None
    assert "reported, not measured" in h["interval_note"]
    for s in found["systems"].values():
        assert s["uncertainty"]["published_intervals"] == []
        assert (
            s["uncertainty"]["note"] == "reported figures carry no interval (no per-request data)"
        )


def test_per_node_figure_and_interval_scale_to_per_gpu_together():
    found = results(
        spec(
            "throughput 20800 tok/s/node at 50 tok/s/user\n"
            "      interval throughput 95% 19840 to 21760 tok/s/node source ix",
            f"{B_THROUGHPUT}\n      interval throughput 95% plus_minus 50 tok/s/gpu source ix",
        )
    )
    a = found["systems"]["a"]
    assert a["at_target"]["throughput_per_gpu"] == pytest.approx(2600)
    assert a["uncertainty"]["throughput_per_gpu_ci"] == pytest.approx([2480, 2720])
    assert found["systems"]["b"]["uncertainty"]["throughput_per_gpu_ci"] == pytest.approx(
        [1950, 2050]
    )


@settings(max_examples=60, deadline=None)
@given(
    half=hs.floats(0.001, 0.4),
    wider=hs.floats(0.0, 0.4),
    other=hs.floats(0.001, 0.4),
    level=hs.sampled_from(["90%", "95%", "99%"]),
)
def test_a_wider_declared_interval_never_narrows_the_ratio_interval(half, wider, other, level):
    def ratio_ci(h: float) -> list[float]:
        text = spec(
            f"{A_THROUGHPUT}\n      interval throughput {level} plus_minus {h * 100:.6f}% "
            "source ix",
            f"{B_THROUGHPUT}\n      interval throughput 95% plus_minus {other * 100:.6f}% "
            "source ix",
        )
        found = results(text)["headline"]["throughput_ratio_ci"]
        assert found is not None
        return found

    narrow, wide = ratio_ci(half), ratio_ci(min(half + wider, 0.9))
    assert wide[0] <= narrow[0] * (1 + 1e-12) and wide[1] >= narrow[1] * (1 - 1e-12)


@pytest.mark.parametrize(
    ("interval", "code"),
    [
        ("interval ratio 95% 1.25 to 1.31 source ix", "E140"),
        ("interval ratio 95% 1.1 to 1.3 tok/s/gpu source ix", "E141"),
        ("interval throughput 95% 2480 to 2720 tok/s/gpu source ix", "E142"),
        ("interval ratio 49.9% 1.1 to 1.3 source ix", "E143"),
        ("interval ratio 100% 1.1 to 1.3 source ix", "E143"),
        ("interval ratio 95% 1.1 to 1.3", "E106"),  # no source
        ("interval ratio 95% 1.1 to 1.3 source nope", "E105"),
        ("interval ratio 95% 1.3 to 1.1 source ix", "E107"),  # ends out of order
        ("interval ratio 95% plus_minus 120% source ix", "E107"),  # low end not positive
        ("interval ratio 95% source ix", "E107"),  # no bounds
    ],
)
def test_each_malformed_interval_is_a_diagnostic(interval, code):
    assert codes(spec(f"ratio 1.2 to b\n      {interval}", "ratio 1")) == [code]


def test_throughput_interval_in_a_bare_number_is_a_unit_mismatch():
    text = spec(
        f"{A_THROUGHPUT}\n      interval throughput 95% plus_minus 120 source ix", "ratio 1"
    )
    assert "E141" in codes(text)


def test_a_date_is_required_when_the_source_has_no_snapshot():
    text = spec("ratio 1.2 to b\n      interval ratio 95% 1.1 to 1.3 source ix", "ratio 1")
    assert codes(text.replace("    snapshot 2026-10-09\n", "")) == ["E106"]


def test_the_reference_ratio_takes_no_interval():
    text = spec("ratio 1.2 to b", "ratio 1\n      interval ratio 95% 0.9 to 1.1 source ix")
    assert codes(text) == ["E142"]


def test_interval_beside_runs_warns_and_is_not_used():
    text = spec("ratio 1.2 to b", "ratio 1").replace(
        '    accelerator "X" x 8\n',
        '    accelerator "X" x 8\n    interval ratio 95% 1.1 to 1.3 source ix as_of 2026-10-09\n',
    )
    assert codes(text) == ["W139"]
    assert results(text)["headline"]["throughput_ratio_ci"] is None


def test_fmt_round_trips_an_interval():
    text = spec(
        f"{A_THROUGHPUT}\n      interval throughput 95% 2480 to 2720 tok/s/gpu source ix "
        "as_of 2026-10-09",
        B_THROUGHPUT,
    )
    tree, diagnostics = parse_spec(SourceFile("p.cmp", text))
    assert not diagnostics and tree is not None
    printed = format_spec(tree, text)
    assert "interval throughput 95% 2480 to 2720 tok/s/gpu source ix as_of 2026-10-09" in printed
    again, _ = parse_spec(SourceFile("p.cmp", printed))
    assert again is not None and format_spec(again, printed) == printed


def test_report_footnote_names_the_publisher_and_results_validate(tmp_path: Path):
    path = tmp_path / "p.cmp"
    path.write_text(
        spec(
            f"{A_THROUGHPUT}\n      interval throughput 95% plus_minus 3.1% source ix",
            f"{B_THROUGHPUT}\n      interval throughput 90% 1900 to 2100 tok/s/gpu source ix"
            " as_of 2026-10-01",
        )
    )
    outcome = build_spec(str(path), out_dir=str(tmp_path / "out"))
    assert outcome.code == 0
    validate_results(json.loads((tmp_path / "out" / "results.json").read_text()))
    report = (tmp_path / "out" / "report.md").read_text()
    assert "interval published by ix (2026-10-09), not computed by cmpc" in report
    assert "interval published by ix (2026-10-01), not computed by cmpc" in report
    assert "not computed by cmpc: throughput 90% 1,900 to 2,100 tok/s/gpu." in report
    assert "(95% CI +21.7% to +39.2%)" in report
    assert "assuming independent, normally distributed errors" in report
    # nothing was bootstrapped, and the footnote does not describe a bootstrap
    assert "no figure here comes from per-request data, so cmpc computed none" in report
    assert "resamples every run's requests" not in report


def test_sensitivity_rows_read_noise_from_the_published_interval():
    text = spec("ratio 1.05 to b\n      interval ratio 95% 0.97 to 1.13 source ix", "ratio 1")
    text = text.replace("}\n}\n", "}\n  sensitivity {\n    utilization 40% | 100%\n  }\n}\n")
    rows = results(text)["sensitivity"]["rows"]
    assert [r["throughput_ratio_ci"] for r in rows] == [[0.97, 1.13], [0.97, 1.13]]
    assert all(r["within_noise"] for r in rows)


def test_the_baselines_published_ratio_to_the_system_is_inverted():
    """b publishes 0.8 of a (95% 0.76 to 0.85): a over b is 1.25, 1/0.85 to 1/0.76."""
    found = results(
        spec("ratio 1", "ratio 0.8 to a\n      interval ratio 95% 0.76 to 0.85 source ix")
    )
    h = found["headline"]
    assert h["throughput_ratio"] == pytest.approx(1.25)
    assert h["throughput_ratio_ci"] == pytest.approx([1 / 0.85, 1 / 0.76], rel=1e-12)
    assert h["interval_basis"] == "declared"


MIXED = """comparison "synthetic: measured runs against a published figure" {
  baseline alpha
  source sample {
    role synthetic
    status self_reported
  }
  source vendor {
    role vendor
    snapshot 2026-10-09
    notes "synthetic: a made-up figure and interval, to show the arithmetic"
  }
  latency {
    metric tpot
    statistic p90
    target 30 tok/s/user
  }
  uncertainty {
    resamples 200
  }
  system alpha {
    accelerator "Synthetic accelerator A" x 8
    parallel tp 8
    cache_hit_rate unknown
    runs "data/alpha/*.jsonl" format cmpc source sample
  }
  system gamma {
    accelerator "Synthetic accelerator G" x 8
    cache_hit_rate unknown
    reported {
      source vendor
      statistic p90
      throughput THROUGHPUT tok/s/gpu at 30 tok/s/user
      INTERVAL
    }
  }
}
"""


def _mixed(tmp_path: Path, interval: str, throughput: float = 2000) -> dict:
    shutil.copytree(REPO / "specs/data/synthetic/alpha", tmp_path / "data" / "alpha")
    text = MIXED.replace("THROUGHPUT", f"{throughput:g}").replace("INTERVAL", interval)
    (tmp_path / "m.cmp").write_text(text)
    outcome = build_spec(str(tmp_path / "m.cmp"), out_dir=str(tmp_path / "out"), render=False)
    assert outcome.code == 0, [d.message for d in outcome.diagnostics]
    return json.loads((tmp_path / "out" / "results.json").read_text())


def test_a_measured_side_and_a_published_one_combine_in_quadrature(tmp_path: Path):
    found = _mixed(tmp_path, "interval throughput 95% plus_minus 5% source vendor")
    alpha = found["systems"]["alpha"]
    point = alpha["at_target"]["throughput_per_gpu"]
    low, high = alpha["uncertainty"]["throughput_per_gpu_ci"]
    assert alpha["uncertainty"]["interval_basis"] == "computed"
    h = found["headline"]
    assert h["system"] == "gamma"
    ratio = 2000 / point
    # both at 95%: the quantiles cancel, the log half-widths add in quadrature
    below = math.hypot(math.log(1 / 0.95), math.log(high / point))
    above = math.hypot(math.log(1.05), math.log(point / low))
    assert h["throughput_ratio"] == pytest.approx(ratio)
    assert h["throughput_ratio_ci"] == pytest.approx(
        [ratio * math.exp(-below), ratio * math.exp(above)], rel=1e-9
    )
    assert h["interval_basis"] == "derived"
    assert "computed from the runs and the published one" in h["interval_assumption"]


def test_a_measured_side_against_a_figure_without_interval_gets_none(tmp_path: Path):
    found = _mixed(tmp_path, "")
    h = found["headline"]
    assert h["throughput_ratio_ci"] is None and h["interval_basis"] is None
    assert "reported, not measured" in h["interval_note"]
