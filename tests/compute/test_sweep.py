"""The `cmpc sweep` verb on InferenceX rows: the issue's done-criteria and its diagnostics."""

from __future__ import annotations

import json

import pytest

from cmpc.cli import main
from cmpc.verbs.sweep import Filter, run_sweep

from .conftest import INFERENCEX

TPU = str(INFERENCEX / "tpu-manual-sweep.json")
LOOKUP = str(INFERENCEX / "lookup.json")
PUBLISHED = 0.1  # the done-criterion's stated tolerance


def _json(outcome) -> dict:
    assert outcome.code == 0, outcome.diagnostics
    return json.loads(outcome.stdout)


@pytest.mark.parametrize(("method", "published"), [("steffen", 2600.2), ("linear", 2632.1)])
def test_reads_at_50_on_the_tp8_rows(method, published):
    doc = _json(
        run_sweep([TPU], where=["tp=8"], statistic="median", at=[50], method=method, as_json=True)
    )
    (read,) = doc["reads"]
    assert read["reachable"] is True
    assert read["method"] == method
    assert read["throughput_per_gpu"] == pytest.approx(published, abs=PUBLISHED)
    assert [k["concurrency"] for k in read["knots"]] == [32, 16]


def test_a_target_of_200_is_unreachable_and_warned():
    outcome = run_sweep([TPU], where=["tp=8"], at=[200], as_json=True)
    (read,) = _json(outcome)["reads"]
    assert read == {
        "target": "200",
        "target_tok_s_user": 200,
        "target_latency_ms": None,
        "throughput_per_gpu": None,
        "reachable": False,
        "bound": None,
        "method": "steffen",
        "knots": [],
    }
    assert [d.code for d in outcome.diagnostics] == ["W411"]


def test_a_target_below_the_sweep_is_met_as_a_lower_bound():
    """Issue 14: 1 tok/s/user is slower than every tp8 row, so every row meets it."""
    doc = _json(run_sweep([TPU], where=["tp=8"], at=[1], as_json=True))
    (read,) = doc["reads"]
    assert read["reachable"] is True and read["bound"] == "lower"
    best = max(p["throughput_per_gpu"] for p in doc["points"] if p["interactivity_tok_s_user"] >= 1)
    assert read["throughput_per_gpu"] == best
    table = run_sweep([TPU], where=["tp=8"], at=[1]).stdout
    assert any(line.split()[:3] == ["1", ">=", f"{best:.1f}"] for line in table.splitlines())


def test_json_keys_are_fixed():
    doc = _json(run_sweep([TPU], where=["tp=8"], at=[50], as_json=True))
    assert set(doc) == {"points", "frontier", "reads"}
    point_keys = {
        "interactivity_tok_s_user",
        "latency_ms",
        "throughput_per_gpu",
        "concurrency",
        "load",
    }
    assert all(point_keys <= set(p) for p in doc["points"] + doc["frontier"])
    assert set(doc["reads"][0]) == {
        "target",
        "target_tok_s_user",
        "target_latency_ms",
        "throughput_per_gpu",
        "reachable",
        "bound",
        "method",
        "knots",
    }
    assert all(set(k) == point_keys for k in doc["reads"][0]["knots"])
    assert len(doc["points"]) == 5 and len(doc["frontier"]) == 5


def test_without_a_filter_the_recipes_are_pooled():
    doc = _json(run_sweep([TPU], at=[], as_json=True))
    assert len(doc["points"]) == 6
    assert [p["recipe"] for p in doc["frontier"]] == ["tp1", "tp8", "tp8", "tp8", "tp8"]


def test_the_table_shows_knots_and_unreachable_targets():
    outcome = run_sweep([TPU], where=["tp=8"], at=[50, 200])
    lines = outcome.stdout.splitlines()
    assert any("2600.2" in line and "at c32" in line and "at c16" in line for line in lines)
    assert any(line.split()[:2] == ["200", "unreachable"] for line in lines)


def test_other_statistics_use_their_own_tpot_column(tpu_sweep):
    doc = _json(run_sweep([TPU], where=["tp=8"], statistic="p90", as_json=True))
    rows = [r for r in tpu_sweep["benchmarks"] if r["tp"] == 8]
    want = sorted(1 / r["p90_tpot"] for r in rows)
    assert [p["interactivity_tok_s_user"] for p in doc["points"]] == pytest.approx(want)


def test_api_rows_with_nested_metrics():
    doc = _json(run_sweep([LOOKUP], where=["hw=b200"], at=[10], as_json=True))
    assert len(doc["points"]) == 5
    assert doc["reads"][0]["reachable"]


@pytest.mark.parametrize(
    ("kwargs", "code", "exit_code"),
    [
        ({"where": ["tp8"]}, "E411", 2),
        ({"statistic": "p9x"}, "E411", 2),
        ({"where": ["tp=4"]}, "E412", 1),
        ({"at": [float("nan")]}, "E411", 2),
        ({"at": [-5]}, "E411", 2),
    ],
)
def test_bad_filters_and_statistics(kwargs, code, exit_code):
    outcome = run_sweep([TPU], **kwargs)
    assert [d.code for d in outcome.diagnostics] == [code]
    assert outcome.code == exit_code


def test_unknown_filter_key_is_named():
    outcome = run_sweep([TPU], where=["tpp=8"])
    (problem,) = outcome.diagnostics
    assert "no run has a field `tpp`" in problem.notes


def test_an_unpublished_statistic_leaves_runs_without_points():
    outcome = run_sweep([TPU], statistic="p75")
    assert {d.code for d in outcome.diagnostics} == {"W412", "E412"}
    assert outcome.code == 1


def test_missing_file_is_an_io_error(tmp_path):
    outcome = run_sweep([str(tmp_path / "absent.json")])
    assert [d.code for d in outcome.diagnostics] == ["E300"]
    assert outcome.code == 2


def test_pooling_two_systems_warns(tmp_path, tpu_sweep):
    rows = tpu_sweep["benchmarks"]
    other = [dict(r, hw="b200") for r in rows]
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"benchmarks": rows + other}))
    outcome = run_sweep([str(path)], where=["tp=8"])
    assert [d.code for d in outcome.diagnostics] == ["W413"]
    assert outcome.diagnostics[0].notes == ("`hw`: b200, tpuv7",)


@pytest.mark.parametrize(
    ("value", "fields", "matches"),
    [
        ("8", {"tp": 8}, True),
        ("8.0", {"tp": 8}, True),
        ("8", {"tp": 4}, False),
        ("false", {"dp_attention": "false"}, True),
        ("TPUV7", {"hw": "tpuv7"}, True),
        ("true", {"disagg": False}, False),
        ("x", {"tp": 8}, False),
        ("8", {}, False),
    ],
)
def test_filter_matching(value, fields, matches):
    key = next(iter(fields), "tp")
    assert Filter(key, value).matches(fields) is matches


def test_cli_prints_the_read(capsys):
    code = main(["sweep", TPU, "--where", "tp=8", "--statistic", "median", "--at", "50"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2600.2" in out


def _cmpc_trace(path, conc: int, tpot: float, tp: int = 4) -> str:
    """A cmpc JSONL run: `conc` requests of 100 output tokens at a fixed per-token pace."""
    lines = [json.dumps({"cmpc_trace": 1, "fields": {"tp": tp, "pp": 2, "conc": conc}})]
    for i in range(conc):
        start = 0.01 * i
        first = start + 0.2
        lines.append(
            json.dumps(
                {
                    "start": start,
                    "first_token": first,
                    "end": first + 99 * tpot * (1 + 0.01 * i),
                    "input_tokens": 1000,
                    "output_tokens": 100,
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_per_request_traces_use_tp_pp_from_their_fields(tmp_path):
    from cmpc.metrics import summarize
    from cmpc.traces import load_runs

    files = [
        _cmpc_trace(tmp_path / f"c{conc}.jsonl", conc, tpot)
        for conc, tpot in ((4, 0.010), (16, 0.020), (64, 0.045))
    ]
    doc = _json(run_sweep(files, at=[40], as_json=True))
    assert [p["concurrency"] for p in doc["frontier"]] == [64, 16, 4]
    assert {p["recipe"] for p in doc["points"]} == {"tp4 pp2"}
    (run,), _ = load_runs(files[0])
    metrics = summarize(run)
    point = next(p for p in doc["points"] if p["concurrency"] == 4)
    assert point["throughput_per_gpu"] == pytest.approx(metrics.throughput("total") / 8)
    assert point["interactivity_tok_s_user"] == pytest.approx(
        1 / metrics.latency_statistic("tpot", "median")
    )
    (read,) = doc["reads"]
    assert read["reachable"] and [k["concurrency"] for k in read["knots"]] == [64, 16]
