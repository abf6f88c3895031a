"""The Python API: `cmpc.build`, `cmpc.check`, `cmpc.load_runs`, their tables, confinement."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cmpc
from cmpc.cli import main

from .helpers import ORACLE, REPO, SPEC, cli_build, sweep_copy

VLLM_RUN = (
    ORACLE
    / "vllm"
    / ("llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json")
)


def _tree(folder: Path) -> dict[Path, bytes]:
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _results_text(results: cmpc.Results) -> str:
    return json.dumps(results.document, sort_keys=True, indent=2) + "\n"


def test_import_cmpc_loads_neither_the_api_nor_numpy():
    code = (
        "import sys, cmpc; "
        "print(sorted(m for m in ('cmpc.api', 'numpy', 'pyarrow', 'pandas') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_cmpc_check_does_not_load_the_api_or_any_extra():
    code = (
        "import sys; from cmpc.cli import main; main(['check', sys.argv[1]]); "
        "heavy = ('cmpc.api', 'cmpc.build.tables', 'pyarrow', 'pandas', 'distributed', "
        "'fsspec', 'ddsketch', 'duckdb', 'polars'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(SPEC)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_build_computes_what_the_cli_writes_and_writes_nothing(tmp_path, monkeypatch):
    spec = sweep_copy(tmp_path / "a")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    monkeypatch.chdir(tmp_path)
    results = cmpc.build(spec)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert cli_build(spec, tmp_path / "out") == 0
    assert _results_text(results) == (tmp_path / "out" / "results.json").read_text()
    assert results.report == (tmp_path / "out" / "report.md").read_text()
    head = results.headline
    assert head is not None and head["system"] == "alpha" and head["baseline"] == "beta"
    assert head["throughput_ratio"] == pytest.approx(0.8059177023318277, rel=1e-12)
    assert set(results.reads) == set(results.costs) == {"alpha", "beta"}
    assert results.reads["alpha"] == results.document["systems"]["alpha"]["at_target"]
    assert results.costs["beta"]["usd_per_gpu_hour"] == 2.5  # the spec's price


def test_overrides_are_the_cli_set(tmp_path):
    spec = sweep_copy(tmp_path)
    as_mapping = cmpc.build(spec, overrides={"cost.utilization": "40%"}, render=False)
    as_list = cmpc.build(spec, overrides=["cost.utilization=40%"], render=False)
    assert cli_build(spec, tmp_path / "out", "--set", "cost.utilization=40%") == 0
    written = (tmp_path / "out" / "results.json").read_text()
    assert _results_text(as_mapping) == _results_text(as_list) == written
    assert as_mapping.document["conditions"]["cost"]["utilization"] == 0.4


def test_output_writes_the_cli_files(tmp_path):
    spec = sweep_copy(tmp_path)
    cmpc.build(spec, output=tmp_path / "api")
    assert cli_build(spec, tmp_path / "cli") == 0
    assert _tree(tmp_path / "api") == _tree(tmp_path / "cli")
    assert Path("report.md") in _tree(tmp_path / "api")


def test_build_errors_raise_with_the_diagnostics(tmp_path):
    spec = sweep_copy(tmp_path)
    spec.write_text(spec.read_text().replace("baseline beta", "baseline gamma"))
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(spec)
    assert raised.value.codes == ("E104",)
    assert "gamma" in str(raised.value) and str(spec.name) in str(raised.value)


def test_a_link_out_of_the_spec_tree_is_refused_as_on_the_cli(tmp_path):
    """docs/security.md: nothing outside the spec's folder is read, through the API too."""
    spec = sweep_copy(tmp_path / "tree")
    outside = tmp_path / "outside"
    outside.mkdir()
    alpha = spec.parent / "data" / "synthetic" / "alpha"
    (alpha / "conc-64.jsonl").rename(outside / "conc-64.jsonl")
    (alpha / "conc-64.jsonl").symlink_to(outside / "conc-64.jsonl")
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(spec, output=tmp_path / "api")
    assert raised.value.codes == ("E503",)
    assert not (tmp_path / "api").exists()
    assert cli_build(spec, tmp_path / "cli") == 1
    assert not (tmp_path / "cli").exists()


def test_check_takes_text_or_a_path_as_cmpc_check_does(tmp_path, capsys):
    fixture = REPO / "tests" / "diagnostics" / "E104-unknown-system.cmp"
    by_path = cmpc.check(fixture)
    by_text = cmpc.check(fixture.read_text())
    assert by_path.codes == by_text.codes and "E104" in by_path.codes
    assert not by_path.ok and by_path.errors
    assert main(["check", "--format", "short", str(fixture)]) == 1
    assert by_path.render("short") == capsys.readouterr().err
    assert cmpc.check(SPEC).ok and cmpc.check(str(SPEC)).codes == ()


def test_load_runs_reproduces_the_tools_own_summary():
    """vLLM 0.8.3's benchmark_serving.py wrote its summary beside the arrays (shared/oracle)."""
    tool = json.loads(VLLM_RUN.read_text())
    runs = cmpc.load_runs(VLLM_RUN)
    assert len(runs) == 1
    row = runs.records()[0]
    assert row["requests_succeeded"] == tool["completed"]
    assert row["tokens_output"] == tool["total_output_tokens"]
    assert row["ttft_ms_median"] == pytest.approx(tool["median_ttft_ms"], rel=1e-9)
    assert row["ttft_ms_p99"] == pytest.approx(tool["p99_ttft_ms"], rel=1e-9)
    assert row["chunk_gap_ms_mean"] == pytest.approx(tool["mean_itl_ms"], rel=1e-9)
    assert row["throughput_output_tokens_per_s"] == pytest.approx(
        tool["output_throughput"], rel=1e-9
    )


def test_load_runs_matches_cmpc_stats_json_and_reads_globs(capsys):
    folder = REPO / "specs" / "data" / "synthetic" / "alpha"
    runs = cmpc.load_runs(folder / "*.jsonl")
    assert len(runs) == 7 and runs.files == tuple(sorted(str(p) for p in folder.glob("*.jsonl")))
    assert main(["stats", "--json", *runs.files]) == 0
    stats = json.loads(capsys.readouterr().out)
    for row, doc in zip(runs.records(), stats, strict=True):
        assert row["file"] == doc["file"]
        assert row["tpot_ms_p90"] == doc["metrics"]["tpot_ms"]["p90"]
        assert row["interactivity_tok_s_user_median"] == doc["interactivity_tok_s_user"]["median"]


def test_load_runs_raises_on_a_file_that_is_not_a_run(tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": 1}')
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.load_runs(bad)
    assert raised.value.codes == ("E302",)
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.load_runs(VLLM_RUN, method="nope")
    assert raised.value.codes == ("E314",)


def test_runs_to_pandas_and_arrow_hold_the_records():
    runs = cmpc.load_runs(REPO / "specs" / "data" / "synthetic" / "beta" / "*.jsonl")
    frame = runs.to_pandas()
    table = runs.to_arrow()
    records = runs.records()
    assert len(frame) == table.num_rows == len(records) == 7
    assert list(frame["tpot_ms_p90"]) == [r["tpot_ms_p90"] for r in records]
    assert table.column("fields_conc").to_pylist() == [1, 2, 4, 8, 16, 32, 64]
    assert str(table.schema.field("tpot_ms_p90").type) == "double"
    assert str(frame["tpot_ms_p90"].dtype) == "float64"


def test_results_tables_are_figures_csv_and_the_runs(tmp_path):
    spec = sweep_copy(tmp_path)
    results = cmpc.build(spec)
    with (tmp_path / "figures.csv").open("w") as handle:
        handle.write(results.files["figures.csv"])  # type: ignore[arg-type]
    with (tmp_path / "figures.csv").open() as handle:
        written = list(csv.DictReader(handle))
    frame = results.to_pandas()
    assert list(frame["id"]) == [r["id"] for r in written]
    for row, (_, got) in zip(written, frame.iterrows(), strict=True):
        try:  # a text value (`n/a`, a load label `c64`) is null in the frame
            value = float(row["value"]) if row["value"] not in ("", "true", "false") else None
        except ValueError:
            value = None
        if value is None or not row["value"][-1].isdigit():
            continue
        assert got["value"] == value, row["id"]
    runs = results.to_arrow("runs")
    assert runs.num_rows == 14
    points = {p["label"]: p for s in results.systems.values() for p in s["points"]}
    for label, x in zip(
        runs.column("label").to_pylist(),
        runs.column("interactivity_tok_s_user").to_pylist(),
        strict=True,
    ):
        assert x == points[label]["interactivity_tok_s_user"]
    with pytest.raises(ValueError, match="unknown table"):
        results.rows("nope")


def test_to_pandas_without_the_extra_says_which_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError
    runs = cmpc.load_runs(VLLM_RUN)
    with pytest.raises(ImportError, match=r"cmpc\[dataframe\]"):
        runs.to_pandas()


def test_the_notebook_example_runs(tmp_path):
    """docs/api_example.py: the notebook-style walk through the API, as CI runs it."""
    script = REPO / "docs" / "api_example.py"
    env = os.environ | {"CMPC_EXAMPLE_OUT": str(tmp_path / "out")}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "alpha vs beta: throughput x0.8059" in done.stdout
    assert "policies met: False exit code: 3" in done.stdout
    assert (tmp_path / "out" / "runs.parquet").exists()
    assert not math.isnan(float(done.stdout.split("alpha p90 TPOT at conc 64: ")[1].split()[0]))
