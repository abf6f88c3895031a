"""A layout or release a reader is not proved on is said, never read silently as nulls."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cmpc.traces import load_runs
from cmpc.verbs.stats import run_stats

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"
AIPERF = FIXTURES / "aiperf" / "0.13.0" / "chat-stream-c4"


def _aiperf_copy(tmp_path: Path, version: str) -> Path:
    for name in ("profile_export.jsonl", "profile_export_aiperf.json"):
        shutil.copy(AIPERF / name, tmp_path / name)
    summary = tmp_path / "profile_export_aiperf.json"
    doc = json.loads(summary.read_text())
    doc["aiperf_version"] = version
    summary.write_text(json.dumps(doc))
    return tmp_path / "profile_export.jsonl"


def test_a_release_outside_the_proved_range_warns_naming_layout_and_release(tmp_path):
    runs, diags = load_runs(str(_aiperf_copy(tmp_path, "0.14.0")))
    assert len(runs) == 1 and runs[0].requests is not None  # still read
    assert [d.code for d in diags] == ["W320"]
    assert "0.2+ records" in diags[0].message and "not proved on AIPerf 0.14.0" in diags[0].message
    assert "proved on AIPerf 0.13.0" in diags[0].notes[0]
    summary, diags = load_runs(str(tmp_path / "profile_export_aiperf.json"))
    assert [d.code for d in diags] == ["W320"] and summary[0].format == "aiperf-summary"


def test_a_proved_release_reads_without_warning(tmp_path):
    runs, diags = load_runs(str(_aiperf_copy(tmp_path, "0.13.0")))
    assert runs and diags == []


def test_streamed_records_without_any_ttft_field_are_an_error_naming_the_fields(tmp_path):
    lines = (AIPERF / "profile_export.jsonl").read_text().splitlines()
    renamed = [line.replace('"time_to_first_token"', '"first_token_latency"') for line in lines]
    path = tmp_path / "profile_export.jsonl"
    path.write_text("\n".join(renamed) + "\n")
    runs, diags = load_runs(str(path))
    assert runs == [] and [d.code for d in diags] == ["E321"]
    assert "`metrics.time_to_first_token`" in diags[0].message and "ttft" in diags[0].message


def test_sglang_infinite_request_rate_is_read_but_other_infinities_are_not(tmp_path):
    line = (FIXTURES / "sglang" / "0.5.23" / "bench-serving-chat-c4" / "result.jsonl").read_text()
    assert '"request_rate": Infinity' in line
    good = tmp_path / "result.jsonl"
    good.write_text(line)
    runs, diags = load_runs(str(good))
    assert diags == []
    assert runs[0].fields["request_rate"] == "inf"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line.replace('"mean_ttft_ms": ', '"mean_ttft_ms": Infinity, "x": '))
    runs, diags = load_runs(str(bad))
    assert runs == [] and [d.code for d in diags] == ["E306"]


def test_genai_bench_request_whose_tpot_the_tool_left_out_is_left_out(tmp_path):
    src = FIXTURES / "genai-bench" / "0.0.5" / "chat-c4" / "experiment"
    (path,) = (p for p in src.glob("*.json") if p.name != "experiment_metadata.json")
    doc = json.loads(path.read_text())
    nulls = [
        r
        for r in doc["individual_request_metrics"]
        if r["error_code"] is None and r["tpot"] is None
    ]
    assert len(nulls) == 1 and nulls[0]["num_output_tokens"] > 1
    outcome = run_stats([str(path)], as_json=True)
    tpot = json.loads(outcome.stdout)["metrics"]["tpot_ms"]
    assert tpot["n"] == 36  # 37 successful, one with tpot null in the file
    assert abs(tpot["mean"] - doc["aggregated_metrics"]["stats"]["tpot"]["mean"] * 1e3) < 1e-9
