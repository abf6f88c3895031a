"""Detection and identity of the vLLM sweep and inference-perf readers, on the live fixtures."""

from __future__ import annotations

import json
from pathlib import Path

from cmpc.traces import load_runs
from cmpc.traces.vllm_sweep import parameter_keys

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"
SWEEP = FIXTURES / "vllm-sweep" / "0.33.0" / "sweep-ttft-conc"
IPERF = FIXTURES / "inference-perf" / "0.7.0" / "completions-stream-c4"


def test_a_sweep_run_is_detected_as_such_and_still_reads_as_vllm():
    path = str(SWEEP / "SERVE--ttft_median=0.04-BENCH--max_concurrency=4" / "run=1.json")
    (swept,), diags = load_runs(path)
    assert diags == [] and swept.format == "vllm-sweep"
    assert swept.fields["run_number"] == 1 and swept.fields["max_concurrency"] == 4
    assert swept.fields["ttft_median"] == 0.04
    (plain,), diags = load_runs(path, format="vllm")
    assert diags == [] and plain.format == "vllm" and "run_number" not in plain.fields


def test_folder_names_give_the_parameter_names():
    assert parameter_keys("SERVE--max_num_seqs=32-BENCH--max_concurrency=8-num_prompts=80") == [
        "max_num_seqs",
        "max_concurrency",
        "num_prompts",
    ]
    assert parameter_keys("BENCH--request_rate=inf") == ["request_rate"]
    assert parameter_keys("SERVE--kv.offload=true") == ["kv.offload"]
    assert parameter_keys("my-run") == []


def test_a_summary_entry_without_run_number_is_refused(tmp_path):
    runs = json.loads(
        (SWEEP / "SERVE--ttft_median=0.04-BENCH--max_concurrency=2" / "summary.json").read_text()
    )
    del runs[1]["run_number"]
    target = tmp_path / "summary.json"
    target.write_text(json.dumps(runs))
    got, diags = load_runs(str(target), format="vllm-sweep")
    assert got == [] and [d.code for d in diags] == ["E321"]


def test_inference_perf_stage_reports_are_points_with_their_stage():
    (stage,), diags = load_runs(str(IPERF / "stage_0_lifecycle_metrics.json"))
    assert diags == [] and stage.format == "inference-perf" and stage.aggregate_only
    assert stage.fields["stage"] == 0 and stage.fields["concurrency"] == 4
    (summary,), _ = load_runs(str(IPERF / "summary_lifecycle_metrics.json"))
    assert "stage" not in summary.fields


def test_inference_perf_request_with_a_text_time_names_the_record(tmp_path):
    target = tmp_path / "per_request_lifecycle_metrics.json"
    record = {"start_time": "1.5", "end_time": 2.0, "info": {"request_metrics": {}}, "error": None}
    target.write_text(json.dumps([record]))
    got, diags = load_runs(str(target))
    assert got == [] and [(d.code, d.record) for d in diags] == [("E305", "`[0].start_time`")]
