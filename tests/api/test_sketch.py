"""`--sketch ALPHA`: DDSketch percentiles within their stated bound; exact stays the default."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

import cmpc
from cmpc.cli import main
from cmpc.metrics import per_request
from cmpc.traces import load_runs

from .helpers import cli_build, sweep_copy

ALPHA = 0.01


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    spec = sweep_copy(tmp_path_factory.mktemp("sketch"))
    return spec, cmpc.build(spec), cmpc.build(spec, sketch=ALPHA)


def test_each_sketched_percentile_is_within_alpha_of_its_rank_value(builds):
    spec, _, sketched = builds
    rows = sketched.rows("runs")
    assert len(rows) == 14
    for row in rows:
        (run,), _ = load_runs(str(spec.parent / row["path"]))
        tpot = np.sort(per_request(run)["tpot"])
        for stat, q in (("median", 0.5), ("p90", 0.9), ("p99", 0.99)):
            at_rank = tpot[math.floor(q * (tpot.size - 1))]  # the bound DDSketch states
            got = row[f"tpot_{stat}_s"]
            assert abs(got - at_rank) <= ALPHA * at_rank * (1 + 1e-12), (row["path"], stat)


def test_the_bound_is_stated_in_results_and_the_footnote(builds):
    _, exact, sketched = builds
    assert "percentile_sketch" not in exact.document["conditions"]
    stated = sketched.document["conditions"]["percentile_sketch"]
    assert stated["relative_accuracy"] == ALPHA and stated["library"] == "ddsketch"
    assert "⌊q·(n−1)⌋" in stated["bound"]
    footnote = next(line for line in sketched.report.splitlines() if "DDSketch" in line)
    assert "relative accuracy 0.01" in footnote and "±1.00%" in footnote
    assert "DDSketch" not in exact.report


def test_exact_is_the_default_and_sketching_moves_the_figures_only_within_the_bound(builds):
    _, exact, sketched = builds
    assert exact.document["conditions"]["latency"]["percentile_method"] == "linear"
    ratio, approx = (r.headline["throughput_ratio"] for r in (exact, sketched))
    assert ratio == 0.8059177023318277  # the golden figure, exact
    assert approx != ratio and abs(approx / ratio - 1) < 0.01
    means = {r["label"]: r["output_tok_s"] for r in exact.rows("runs")}
    assert {r["label"]: r["output_tok_s"] for r in sketched.rows("runs")} == means


def test_the_cache_keeps_sketched_and_exact_reductions_apart(tmp_path):
    spec = sweep_copy(tmp_path)
    cache = tmp_path / "cache"
    exact = cmpc.build(spec, render=False, cache=True, cache_dir=cache)
    sketched = cmpc.build(spec, render=False, cache=True, cache_dir=cache, sketch=ALPHA)
    again = cmpc.build(spec, render=False, cache=True, cache_dir=cache)
    assert sketched.headline != exact.headline and again.document == exact.document


def test_the_cli_option_is_checked_and_recorded(tmp_path, capsys):
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "out", "--sketch", "0.02") == 0
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert doc["conditions"]["percentile_sketch"]["relative_accuracy"] == 0.02
    with pytest.raises(SystemExit) as raised:
        main(["build", str(spec), "--sketch", "2"])
    assert raised.value.code == 2 and "(0, 1)" in capsys.readouterr().err


def test_without_ddsketch_the_option_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ddsketch", None)  # `import ddsketch` now raises ImportError
    spec = sweep_copy(tmp_path)
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(spec, sketch=ALPHA)
    assert raised.value.codes == ("E509",) and "cmpc[sketch]" in raised.value.diagnostics[0].help
