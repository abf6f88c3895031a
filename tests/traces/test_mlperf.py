"""The MLPerf LoadGen reader on the live fixtures: detection, identity, the submission's GPUs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cmpc.traces import companions, detect, load_runs

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"
SERVER = FIXTURES / "mlperf" / "6.0.17" / "server-valid"
INVALID = FIXTURES / "mlperf" / "6.0.17" / "server-invalid"
# the fields a submitter's systems JSON holds (as in MLCommons' published submissions);
# written here for the test, not a tool's output
SYSTEM = {
    "system_name": "testbox",
    "accelerator_model_name": "NVIDIA H100-SXM-80GB",
    "accelerators_per_node": "4",
    "number_of_nodes": "2",
}


@pytest.mark.parametrize("name", ["mlperf_log_summary.txt", "mlperf_log_detail.txt"])
def test_both_logs_are_detected_and_carry_scenario_and_validity(name):
    head = (SERVER / name).read_bytes()[: detect.HEAD_BYTES]
    assert detect.candidates(head) == ["mlperf"]
    (run,), diags = load_runs(str(SERVER / name))
    assert diags == [] and run.aggregate_only
    assert run.fields["scenario"] == "Server" and run.fields["result_validity"] == "VALID"
    assert run.fields["ttft_constraint_ms"] == 200.0 and run.fields["tpot_constraint_ms"] == 20.0
    (bad,), _ = load_runs(str(INVALID / name))
    assert bad.fields["result_validity"] == "INVALID"
    assert bad.fields["performance_constraints_met"] == "no"


def test_a_json_file_is_never_searched_for_the_text_signature():
    # a JSON document that quotes LoadGen's text is still only what its keys say
    doc = json.dumps({"note": ":::MLLOG {", "completed": 1, "duration": 1.0, "mean_ttft_ms": 1})
    assert detect.candidates(doc.encode()) == ["vllm"]


def _submission(tmp_path: Path, system: dict | None = SYSTEM) -> Path:
    run = tmp_path / "sub" / "results" / "testbox" / "llama" / "Server" / "performance" / "run_1"
    run.mkdir(parents=True)
    shutil.copy(SERVER / "mlperf_log_detail.txt", run)
    if system is not None:
        (tmp_path / "sub" / "systems").mkdir()
        (tmp_path / "sub" / "systems" / "testbox.json").write_text(json.dumps(system))
    return run / "mlperf_log_detail.txt"


def test_the_systems_json_gives_the_gpu_count_and_per_gpu_throughput(tmp_path):
    log = _submission(tmp_path)
    (run,), diags = load_runs(str(log))
    assert diags == []
    assert run.fields["num_gpus"] == 8 and run.fields["accelerator"] == "NVIDIA H100-SXM-80GB"
    assert run.published is not None and run.published.num_gpus == 8
    tokens = run.published.throughput["output"]
    assert tokens is not None and run.published.per_gpu["output"] == tokens / 8
    assert companions(str(log)) == [str(tmp_path / "sub" / "systems" / "testbox.json")]


def test_no_systems_json_outside_the_spec_folder_is_read(tmp_path):
    log = _submission(tmp_path)
    (run,), _ = load_runs(str(log), root=str(log.parent))  # the spec sits beside the log
    assert "num_gpus" not in run.fields and companions(str(log), str(log.parent)) == []


def test_a_systems_json_linking_out_of_the_submission_is_not_read(tmp_path):
    log = _submission(tmp_path, system=None)
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(SYSTEM))
    (tmp_path / "sub" / "systems").mkdir()
    (tmp_path / "sub" / "systems" / "testbox.json").symlink_to(outside)
    (run,), _ = load_runs(str(log))
    assert "num_gpus" not in run.fields


def test_another_loadgen_release_is_read_with_a_warning(tmp_path):
    text = (SERVER / "mlperf_log_detail.txt").read_text().replace('"6.0.17 @', '"7.1.0 @', 1)
    target = tmp_path / "mlperf_log_detail.txt"
    target.write_text(text)
    (_run,), diags = load_runs(str(target))
    assert [d.code for d in diags] == ["W320"] and "LoadGen 7.1.0" in diags[0].message


def test_a_summary_without_a_scenario_is_an_error_naming_it(tmp_path):
    lines = (SERVER / "mlperf_log_summary.txt").read_text().splitlines()
    target = tmp_path / "mlperf_log_summary.txt"
    target.write_text("\n".join(line for line in lines if not line.startswith("Scenario")))
    got, diags = load_runs(str(target))
    assert got == [] and [d.code for d in diags] == ["E321"] and "Scenario" in diags[0].message


def test_a_latency_that_is_not_a_number_names_its_line(tmp_path):
    text = (SERVER / "mlperf_log_summary.txt").read_text()
    target = tmp_path / "mlperf_log_summary.txt"
    target.write_text(text.replace("Min latency (ns)                : ", "Min latency (ns) : x", 1))
    got, diags = load_runs(str(target))
    assert got == [] and [d.code for d in diags] == ["E305"] and diags[0].record.startswith("line")
