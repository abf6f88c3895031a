"""`cmpc build`: the pipeline's figures, `--set` overrides, data errors, atomic outputs."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import jsonschema
import pytest

from cmpc.build.pipeline import build_spec
from cmpc.cli import main
from cmpc.ir.schema import ir_schema

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SWEEP_ROWS = SHARED / "reference-data" / "inferencex" / "tpu-manual-sweep.json"

SWEEP_SPEC = """comparison "TPU v7 TP8 sweep" {
  baseline b
  latency {
    metric tpot
    statistic median
    target 50 tok/s/user
  }
  system a {
    accelerator "TPU v7" x 8
    parallel tp 8
    price 2.00 USD/gpu/h basis assumed
    runs "data/*.json" format inferencex where tp 8
  }
  system b {
    accelerator "TPU v7" x 8
    parallel tp 8
    price 2.50 USD/gpu/h basis assumed
    runs "data/*.json" format inferencex where tp 8
  }
}
"""


def results_schema() -> dict:
    text = (REPO / "compiler" / "cmpc" / "schemas" / "results.schema.json").read_text()
    return json.loads(text)


def validate_results(doc: dict) -> None:
    from referencing import Registry, Resource

    ir = ir_schema()
    registry = Registry().with_resource(ir["$id"], Resource.from_contents(ir))
    jsonschema.Draft202012Validator(results_schema(), registry=registry).validate(doc)


def build(spec: Path, out: Path, *sets: str):
    outcome = build_spec(str(spec), out_dir=str(out), sets=list(sets), render=False)
    results = (
        json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else None
    )
    return outcome, results


@pytest.fixture
def sweep_dir(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    shutil.copy(SWEEP_ROWS, tmp_path / "data" / "rows.json")
    (tmp_path / "sweep.cmp").write_text(SWEEP_SPEC)
    return tmp_path


def test_headline_spec_builds_with_the_published_ratio(tmp_path, in_repo):
    outcome, results = build(REPO / "specs" / "mi355x-vs-b300.cmp", tmp_path / "out")
    assert outcome.code == 0, outcome.diagnostics
    validate_results(results)
    head = results["headline"]
    assert (head["system"], head["baseline"]) == ("mi355x", "b300")
    assert head["throughput_ratio"] == pytest.approx(1.244, rel=1e-12)
    assert head["cost_ratio_at_equal_price"] == pytest.approx(0.8039, abs=5e-5)
    # owning prices 1.50 vs 2.26 USD/gpu/h, equal utilization: (1.50 / 2.26) / 1.244
    assert head["cost_ratio"] == pytest.approx((1.50 / 2.26) / 1.244, rel=1e-12)
    assert results["disclosure"]["verdict"] in ("comparable", "directional signal only")


def test_sweep_read_through_a_spec_matches_the_worked_example(sweep_dir):
    outcome, results = build(sweep_dir / "sweep.cmp", sweep_dir / "out")
    assert outcome.code == 0, outcome.diagnostics
    validate_results(results)
    at = results["systems"]["a"]["at_target"]
    assert at["throughput_per_gpu"] == pytest.approx(2600.2, abs=0.1)
    assert at["reachable"] and at["method"] == "steffen"
    assert [k["concurrency"] for k in at["knots"]] == [32, 16]
    cost = results["systems"]["a"]["cost"]
    assert cost["usd_per_million_tokens"] == pytest.approx(
        2.00 / (at["throughput_per_gpu"] * 3600) * 1e6
    )
    assert cost["tokens_per_usd"] == pytest.approx(at["throughput_per_gpu"] * 3600 / 2.00)
    assert results["headline"]["cost_ratio"] == pytest.approx(0.8)
    (inp,) = {i["path"]: i for i in results["inputs"]}.values()
    assert inp["path"] == "data/rows.json" and inp["format"] == "inferencex"
    import hashlib

    assert inp["sha256"] == hashlib.sha256(SWEEP_ROWS.read_bytes()).hexdigest()


def test_set_overrides_are_applied_checked_and_recorded(sweep_dir):
    spec, out = sweep_dir / "sweep.cmp", sweep_dir / "out"
    outcome, results = build(
        spec, out, "latency.read=linear", "cost.utilization=40%", "system.b.price=2.00 USD/gpu/h"
    )
    assert outcome.code == 0, outcome.diagnostics
    assert results["systems"]["a"]["at_target"]["throughput_per_gpu"] == pytest.approx(
        2632.1, abs=0.1
    )
    assert results["systems"]["a"]["cost"]["utilization"] == 0.4
    assert results["headline"]["cost_ratio"] == pytest.approx(1.0)
    assert [o["path"] for o in results["overrides"]] == [
        "latency.read",
        "cost.utilization",
        "system.b.price",
    ]
    # the price keeps its basis: only the value was replaced
    assert results["ir"]["systems"][1]["prices"][0]["basis"] == "assumed"


def test_unreachable_target_is_reported_not_extrapolated(sweep_dir):
    outcome, results = build(
        sweep_dir / "sweep.cmp", sweep_dir / "out", "latency.target=200 tok/s/user"
    )
    assert outcome.code == 0
    at = results["systems"]["a"]["at_target"]
    assert at["reachable"] is False and at["throughput_per_gpu"] is None
    assert {d.code for d in outcome.diagnostics} == {"W411"}
    assert results["headline"]["throughput_ratio"] is None


@pytest.mark.parametrize(
    ("setting", "code"),
    [
        ("cost.utilization", "E501"),
        ("system.nope.price=1 USD/gpu/h", "E501"),
        ("cost.utilization=140%", "E111"),
        ("system.a.price=2 USD/kWh", "E108"),
    ],
)
def test_bad_overrides(sweep_dir, setting, code):
    outcome, _ = build(sweep_dir / "sweep.cmp", sweep_dir / "out", setting)
    assert code in {d.code for d in outcome.diagnostics}
    assert outcome.code == 1


def test_data_errors(sweep_dir):
    spec = sweep_dir / "sweep.cmp"
    spec.write_text(
        SWEEP_SPEC.replace(
            '"data/*.json" format inferencex where tp 8\n  }\n  system b',
            '"data/*.jsn" format inferencex\n  }\n  system b',
        )
    )
    outcome, _ = build(spec, sweep_dir / "out")
    assert [d.code for d in outcome.diagnostics] == ["E502"]
    spec.write_text(SWEEP_SPEC.replace("where tp 8", "where tp 3"))
    outcome, _ = build(spec, sweep_dir / "out")
    assert {d.code for d in outcome.diagnostics} == {"E504"}


def test_symlink_out_of_the_folder_is_refused(sweep_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "rows.json"
    shutil.copy(SWEEP_ROWS, outside)
    os.symlink(outside, sweep_dir / "data" / "link.json")
    outcome, _ = build(sweep_dir / "sweep.cmp", sweep_dir / "out")
    assert "E503" in {d.code for d in outcome.diagnostics}
    assert not (sweep_dir / "out").exists()


def test_gpu_count_disagreement_warns(sweep_dir):
    spec = sweep_dir / "sweep.cmp"
    spec.write_text(
        SWEEP_SPEC.replace(
            '"TPU v7" x 8\n    parallel tp 8\n    price 2.00',
            '"TPU v7" x 16\n    parallel tp 8 dp 2\n    price 2.00',
        )
    )
    outcome, _ = build(spec, sweep_dir / "out")
    assert "W512" in {d.code for d in outcome.diagnostics}


def test_reported_off_target_and_hit_rate_gap_warn(tmp_path):
    spec = tmp_path / "r.cmp"
    spec.write_text(
        """comparison "reported" {
  baseline b
  source s {
    role third_party
  }
  latency {
    metric tpot
    statistic p90
    target 50 tok/s/user
  }
  system a {
    accelerator "X" x 8
    cache_hit_rate 93%
    reported {
      source s
      statistic p90
      throughput 6115 tok/s/gpu at 45 tok/s/user
    }
  }
  system b {
    accelerator "Y" x 8
    cache_hit_rate 60%
    reported {
      source s
      statistic p90
      throughput 5000 tok/s/gpu at 50 tok/s/user
    }
  }
}
"""
    )
    outcome, results = build(spec, tmp_path / "out")
    assert {d.code for d in outcome.diagnostics} == {"W514", "W410"}
    assert results["headline"]["throughput_ratio"] == pytest.approx(6115 / 5000)


def test_failed_build_leaves_previous_outputs_untouched(sweep_dir):
    out = sweep_dir / "out"
    outcome, _ = build(sweep_dir / "sweep.cmp", out)
    assert outcome.code == 0
    before = (out / "results.json").read_bytes()
    outcome, _ = build(sweep_dir / "sweep.cmp", out, "cost.utilization=0%")
    assert outcome.code == 1
    assert (out / "results.json").read_bytes() == before
    assert sorted(p.name for p in sweep_dir.iterdir()) == ["data", "out", "sweep.cmp"]


def test_unwritable_output_is_an_io_error(sweep_dir, capsys):
    blocker = sweep_dir / "file"
    blocker.write_text("not a folder")
    code = main(["build", str(sweep_dir / "sweep.cmp"), "-o", str(blocker / "out")])
    assert code == 2 and "E500" in capsys.readouterr().err


def test_run_file_limit(sweep_dir, monkeypatch):
    shutil.copy(SWEEP_ROWS, sweep_dir / "data" / "rows2.json")
    monkeypatch.setenv("CMPC_MAX_RUN_FILES", "1")
    outcome, _ = build(sweep_dir / "sweep.cmp", sweep_dir / "out")
    assert {d.code for d in outcome.diagnostics} == {"E505"}


def test_spec_where_compares_like_sweep_where(sweep_dir):
    # numbers as numbers (`8.0` matches tp 8), like `cmpc sweep --where tp=8.0`
    spec = sweep_dir / "sweep.cmp"
    spec.write_text(SWEEP_SPEC.replace("where tp 8", "where tp 8.0"))
    outcome, results = build(spec, sweep_dir / "out")
    assert outcome.code == 0, outcome.diagnostics
    assert results["systems"]["a"]["at_target"]["throughput_per_gpu"] == pytest.approx(
        2600.2, abs=0.1
    )
