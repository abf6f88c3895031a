"""`cmpc build --export parquet`: runs.parquet and figures.parquet, read by DuckDB and polars."""

from __future__ import annotations

import csv
import json
import sys

import duckdb
import polars as pl
import pytest

import cmpc
from cmpc.cli import main

from .helpers import REPO, cli_build, sweep_copy


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    where = tmp_path_factory.mktemp("parquet")
    spec = sweep_copy(where)
    assert cli_build(spec, where / "out", "--export", "parquet") == 0
    return where / "out"


def test_duckdb_reads_the_plotted_points_and_the_knots_of_the_read(built):
    results = json.loads((built / "results.json").read_text())
    runs = built / "runs.parquet"
    for name, system in results["systems"].items():
        rows = duckdb.execute(
            f"SELECT label, interactivity_tok_s_user, throughput_per_gpu, concurrency FROM '{runs}'"
            " WHERE system = ? ORDER BY label",
            [name],
        ).fetchall()
        points = sorted(system["points"], key=lambda p: p["label"])
        assert rows == [
            (p["label"], p["interactivity_tok_s_user"], p["throughput_per_gpu"], p["concurrency"])
            for p in points
        ]
        knots = system["at_target"]["knots"]
        # the two runs the read lies between: the measured points around 30 tok/s/user
        bracket = duckdb.execute(
            f"SELECT label FROM '{runs}' WHERE system = ? AND interactivity_tok_s_user IN "
            f"((SELECT max(interactivity_tok_s_user) FROM '{runs}' WHERE system = ? "
            "AND interactivity_tok_s_user < 30), "
            f"(SELECT min(interactivity_tok_s_user) FROM '{runs}' WHERE system = ? "
            "AND interactivity_tok_s_user >= 30)) ORDER BY interactivity_tok_s_user",
            [name, name, name],
        ).fetchall()
        assert [r[0] for r in bracket] == [k["label"] for k in knots]


def test_duckdb_returns_the_headline_figures(built):
    results = json.loads((built / "results.json").read_text())
    figures = built / "figures.parquet"
    (ratio,) = duckdb.execute(
        f"SELECT value FROM '{figures}' WHERE id = 'headline.throughput_ratio'"
    ).fetchone()
    assert ratio == results["headline"]["throughput_ratio"] == 0.8059177023318277
    with (built / "figures.csv").open() as handle:
        written = list(csv.DictReader(handle))
    rows = duckdb.execute(f"SELECT id, value_text, displayed FROM '{figures}'").fetchall()
    assert [(r["id"], r["value"], r["displayed"]) for r in written] == rows


def test_polars_reads_one_row_per_run_with_its_fields_and_hash(built):
    results = json.loads((built / "results.json").read_text())
    runs = pl.read_parquet(built / "runs.parquet")
    assert runs.height == sum(i["runs"] for i in results["inputs"]) == 14
    hashes = {i["path"]: i["sha256"] for i in results["inputs"]}
    assert dict(zip(runs["path"], runs["sha256"], strict=True)) == hashes
    assert runs.schema["field_conc"] == pl.Int64 and runs.schema["tpot_p90_s"] == pl.Float64
    assert sorted(runs.filter(pl.col("system") == "beta")["field_conc"]) == [1, 2, 4, 8, 16, 32, 64]
    schema = duckdb.execute(f"DESCRIBE SELECT * FROM '{built / 'figures.parquet'}'").fetchall()
    assert {row[0]: row[1] for row in schema}["value"] == "DOUBLE"


def test_exports_are_byte_identical_across_builds(built, tmp_path):
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "again", "--export", "parquet") == 0
    for name in ("runs.parquet", "figures.parquet"):
        assert (tmp_path / "again" / name).read_bytes() == (built / name).read_bytes()


def test_without_an_export_no_parquet_is_written(tmp_path):
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "out") == 0
    assert not list((tmp_path / "out").glob("*.parquet"))


def test_an_unknown_export_is_refused_before_any_work(tmp_path, capsys):
    spec = sweep_copy(tmp_path)
    with pytest.raises(SystemExit) as raised:  # the CLI's argument check (a usage error)
        main(["build", str(spec), "-o", str(tmp_path / "out"), "--export", "parquett"])
    assert raised.value.code == 2 and "parquet" in capsys.readouterr().err
    with pytest.raises(cmpc.CmpcError) as error:  # the API's: a diagnostic
        cmpc.build(spec, exports=["parquett"], output=tmp_path / "out")
    assert error.value.codes == ("E511",) and "`parquet`" in error.value.diagnostics[0].notes[0]
    assert not (tmp_path / "out").exists()


def test_parquet_without_pyarrow_is_a_diagnostic_naming_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` now raises ImportError
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "out", "--export", "parquet") == 1
    err = capsys.readouterr().err
    assert "E509" in err and "cmpc[parquet]" in err
    assert not (tmp_path / "out").exists()


def test_the_request_table_gives_the_builds_percentiles_in_sql(tmp_path):
    """DuckDB's quantile_cont is numpy's linear percentile: over requests.parquet it returns
    the p90 TPOT each run's point was read at (runs.parquet), to rounding (1e-12)."""
    spec = sweep_copy(tmp_path)
    out = tmp_path / "out"
    assert cli_build(spec, out, "--export", "requests", "--export", "parquet") == 0
    by_sql = duckdb.execute(
        "SELECT path, count(*), quantile_cont(tpot_s, 0.9) FILTER (WHERE ok AND output_tokens > 1)"
        f" FROM '{out / 'requests.parquet'}' GROUP BY path ORDER BY path"
    ).fetchall()
    built = duckdb.execute(
        f"SELECT path, tpot_p90_s FROM '{out / 'runs.parquet'}' ORDER BY path"
    ).fetchall()
    assert [p for p, _, _ in by_sql] == [p for p, _ in built]
    assert [q for _, _, q in by_sql] == pytest.approx([q for _, q in built], rel=1e-12)
    totals = [cmpc.load_runs(spec.parent / p).records()[0]["requests_total"] for p, _ in built]
    assert [n for _, n, _ in by_sql] == totals  # every request, failed ones included


def test_the_request_table_of_a_vllm_run_matches_vllms_own_summary(tmp_path):
    """specs/llama70b-a100-tp8-vs-tp4pp2.cmp reads two vLLM 0.8.3 result files (shared/oracle)."""
    spec = REPO / "specs" / "llama70b-a100-tp8-vs-tp4pp2.cmp"
    out = tmp_path / "out"
    assert cli_build(spec, out, "--export", "requests") == 0
    table = pl.read_parquet(out / "requests.parquet")
    for path in sorted(set(table["path"])):
        tool = json.loads((spec.parent / path).read_text())
        run = table.filter(pl.col("path") == path)
        assert run.height == tool["num_prompts"]
        assert int(run["ok"].sum()) == tool["completed"]
        ttft_ms = duckdb.execute(
            f"SELECT median(ttft_s) * 1000, quantile_cont(ttft_s, 0.99) * 1000 FROM "
            f"'{out / 'requests.parquet'}' WHERE path = ? AND ok",
            [path],
        ).fetchone()
        assert ttft_ms == pytest.approx((tool["median_ttft_ms"], tool["p99_ttft_ms"]), rel=1e-9)
        assert run.filter(pl.col("ok"))["output_tokens"].sum() == tool["total_output_tokens"]
