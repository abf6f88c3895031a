"""Hostile trace values: negative durations, deep nesting, rows and files beyond what fits."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from .helpers import REPO, SHARED, run_cli

VLLM = REPO / "specs" / "data" / "llama70b" / "tp8_pp1_sharegpt_qps_04.json"
JSONL = REPO / "specs" / "data" / "synthetic" / "alpha" / "conc-01.jsonl"
GENAI_PERF = SHARED / "oracle" / "genai-perf" / "adaptive__simple_medium_response_c10.json"
DEEP = 200_000  # far beyond the recursion limit of json's parser


def _vllm(**changes) -> dict:
    return json.loads(VLLM.read_text(encoding="utf-8")) | changes


def test_a_negative_vllm_duration_is_E307(tmp_path, capsys):
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps(_vllm(duration=-62.9)), encoding="utf-8")
    code, out, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E307]" in err and "`duration` is negative" in err
    assert str(trace) in err and "-" not in out


def test_a_negative_jsonl_duration_is_E307(tmp_path, capsys):
    header, rest = JSONL.read_text(encoding="utf-8").split("\n", 1)
    trace = tmp_path / "run.jsonl"
    head = json.loads(header) | {"duration_s": -1.5}
    trace.write_text(json.dumps(head) + "\n" + rest, encoding="utf-8")
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E307]" in err and "`duration_s` is negative" in err


def test_deep_nesting_on_the_first_line_is_E301_in_format_detection(tmp_path, capsys):
    trace = tmp_path / "deep.jsonl"
    trace.write_text('{"a": ' + "[" * DEEP + "]" * DEEP + "}\n{}\n", encoding="utf-8")
    for extra in ([], ["--format", "cmpc"]):
        code, _, err = run_cli(capsys, ["stats", *extra, str(trace)])
        assert code == 1 and "error[E301]" in err and "nested too deeply" in err
        assert "line 1" in err


def test_a_deeply_nested_genai_perf_response_is_E301(tmp_path, capsys):
    doc = json.loads(GENAI_PERF.read_text(encoding="utf-8"))
    request = doc["experiments"][0]["requests"][3]
    request["response_outputs"][0] = {"response": "[" * DEEP + "]" * DEEP}
    trace = tmp_path / "profile_export.json"
    trace.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E301]" in err and "experiments[0].requests[3]" in err


def test_a_vllm_row_over_the_record_limit_is_refused(tmp_path, capsys, monkeypatch):
    """`itls` is streamed, but no one row of it may be longer than a record."""
    doc = _vllm()
    doc["itls"][7] = [0.0123456789] * 20_000  # a row of about 280 KB
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps(doc), encoding="utf-8")
    rest = len(json.dumps({k: v for k, v in doc.items() if k != "itls"}))
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(max(rest, 300_000) + 1000))
    assert run_cli(capsys, ["stats", str(trace)])[0] == 0
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(max(rest, 200_000) + 1000))
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E315]" in err and "`itls[7]`" in err


HEAD = b'{"duration": 1.0, "completed": 1, "request_throughput": 1.0, "ttfts": [0.1], '


@pytest.mark.parametrize(
    "body",
    [
        b'"itls": [[0.1, 0.2',  # one row that never ends
        b'"itls": [[0.1], [0.2',  # a second one
        b'"itls": [[0.1]], "generated_texts": ["',  # a string after the array
    ],
    ids=["first-row", "later-row", "after-the-array"],
)
def test_a_huge_sparse_vllm_file_is_refused_without_memory_to_match(tmp_path, capsys, body):
    """2 GB that cost no disk: reading stops at the record limit, and nothing is allocated for
    the numbers the file's size could hold (np.empty(size // 2) was 8 GiB)."""
    trace = tmp_path / "sparse.json"
    with trace.open("wb") as handle:
        handle.write(HEAD + body)
        handle.truncate(2 << 30)
    tracemalloc.start()
    try:
        code, _, err = run_cli(capsys, ["stats", str(trace)], seconds=30)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 1 and "error[E315]" in err and str(trace) in err
    assert peak < 100 << 20, f"{peak / 2**20:.0f} MiB allocated for a 2 GiB sparse file"
