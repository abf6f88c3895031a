"""Malformed traces: a diagnostic naming file and record, exit 1 (2 for I/O), no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmpc.cli import main


def vllm_doc(**overrides) -> dict:
    doc = {
        "backend": "vllm",
        "duration": 10.0,
        "completed": 3,
        "request_throughput": 0.3,
        "input_lens": [10, 12, 14],
        "output_lens": [5, 6, 1],
        "ttfts": [0.1, 0.2, 0.15],
        "itls": [[0.01, 0.02, 0.01, 0.02], [0.01] * 5, []],
        "errors": ["", "", ""],
    }
    doc.update(overrides)
    return doc


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["stats", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err
    return code, out, err


def expect(capsys, argv: list[str], code: str, record: str | None, exit_code: int = 1) -> str:
    status, _, err = run(capsys, *argv)
    assert status == exit_code, err
    assert f"error[{code}]" in err, err
    assert argv[-1] in err  # the file is named
    if record is not None:
        assert record in err, err
    assert "help:" in err
    return err


def test_truncated_json(tmp_path, capsys):
    text = json.dumps(vllm_doc(), indent=1)
    path = write(tmp_path, "cut.json", text[: len(text) // 2])
    expect(capsys, [path], "E301", "line ")


def test_truncated_inside_the_big_array(tmp_path, capsys):
    text = json.dumps(vllm_doc())
    cut = text.index('"itls"') + 20
    path = write(tmp_path, "cut.json", text[:cut])
    expect(capsys, [path], "E301", "line 1")


def test_wrong_type(tmp_path, capsys):
    path = write(tmp_path, "t.json", json.dumps(vllm_doc(ttfts=[0.1, "0.2", 0.15])))
    expect(capsys, [path], "E305", "`ttfts[1]`")


def test_wrong_type_in_chunk_gaps(tmp_path, capsys):
    text = json.dumps(vllm_doc()).replace("[0.01, 0.01, 0.01, 0.01, 0.01]", '[0.01, "x"]')
    path = write(tmp_path, "t.json", text)
    status, _, err = run(capsys, path)
    assert status == 1 and ("E305" in err or "E301" in err) and path in err


def test_negative_ttft(tmp_path, capsys):
    path = write(tmp_path, "neg.json", json.dumps(vllm_doc(ttfts=[0.1, -0.2, 0.15])))
    expect(capsys, [path], "E307", "request 1")


def test_negative_chunk_gap_is_time_going_backwards(tmp_path, capsys):
    path = write(tmp_path, "neg.json", json.dumps(vllm_doc(itls=[[0.01], [0.01, -0.5], []])))
    expect(capsys, [path], "E308", "request 1")


def test_non_monotonic_chunk_times_name_the_line(tmp_path, capsys):
    lines = [
        {"cmpc_trace": 1},
        {"start": 0.0, "chunk_times": [0.1, 0.2], "chunk_tokens": [1, 1], "input_tokens": 3},
        {"start": 0.0, "chunk_times": [0.3, 0.2], "chunk_tokens": [1, 1], "input_tokens": 3},
    ]
    path = write(tmp_path, "t.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    expect(capsys, [path], "E308", "line 3")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity(tmp_path, capsys, token):
    text = json.dumps(vllm_doc()).replace('"ttfts": [0.1,', f'"ttfts": [{token},')
    path = write(tmp_path, "nan.json", text)
    expect(capsys, [path], "E306", None)


HUGE = "1" + "0" * 400  # a valid JSON integer no double holds


@pytest.mark.parametrize("key", ["duration", "ttfts", "input_lens"])
def test_integer_too_large_for_a_number(tmp_path, capsys, key):
    value = HUGE if key == "duration" else f"[{HUGE}, 1, 2]"
    text = json.dumps(vllm_doc(**{key: "X"})).replace('"X"', value)
    expect(capsys, [write(tmp_path, "huge.json", text)], "E306", f"`{key}")


def test_integer_too_large_in_a_trace_line_names_the_line(tmp_path, capsys):
    lines = ['{"cmpc_trace": 1, "fields": {}}', f'{{"start": {HUGE}, "chunk_times": [1.0]}}']
    path = write(tmp_path, "huge.jsonl", "\n".join(lines) + "\n")
    expect(capsys, [path], "E306", "line 2, `start`")


def test_nan_inside_the_big_array_names_the_row(tmp_path, capsys):
    text = json.dumps(vllm_doc()).replace("[0.01, 0.02, 0.01, 0.02]", "[0.01, NaN]")
    path = write(tmp_path, "nan.json", text)
    expect(capsys, [path], "E306", "`itls[0]`")


def test_zero_successful_requests(tmp_path, capsys):
    doc = vllm_doc(errors=["timeout", "timeout", "503"], completed=0)
    path = write(tmp_path, "fail.json", json.dumps(doc))
    expect(capsys, [path], "E309", None)


def test_empty_file(tmp_path, capsys):
    path = write(tmp_path, "empty.json", "")
    expect(capsys, [path], "E310", "line 1")


def test_whitespace_only_file(tmp_path, capsys):
    path = write(tmp_path, "blank.jsonl", "\n\n  \n")
    expect(capsys, [path], "E310", None)


def test_file_of_another_format_than_declared(tmp_path, capsys):
    path = write(tmp_path, "v.json", json.dumps(vllm_doc()))
    err = expect(capsys, ["--format", "aiperf", path], "E304", None)
    assert "`vllm`" in err


def test_missing_file_is_an_io_error(tmp_path, capsys):
    expect(capsys, [str(tmp_path / "nope.json")], "E300", None, exit_code=2)


def test_folder_is_an_io_error(tmp_path, capsys):
    expect(capsys, [str(tmp_path)], "E300", None, exit_code=2)


def test_two_formats_fit(tmp_path, capsys):
    doc = vllm_doc(aggregated_metrics={"num_completed_requests": 3}, individual_request_metrics=[])
    path = write(tmp_path, "both.json", json.dumps(doc))
    err = expect(capsys, [path], "E303", None)
    assert "`vllm`" in err and "`genai-bench`" in err


def test_unknown_content(tmp_path, capsys):
    path = write(tmp_path, "x.json", json.dumps({"hello": 1}))
    expect(capsys, [path], "E302", None)


def test_unknown_format_name(tmp_path, capsys):
    path = write(tmp_path, "v.json", json.dumps(vllm_doc()))
    expect(capsys, ["--format", "vllm-serve", path], "E311", None)


def test_missing_duration(tmp_path, capsys):
    doc = vllm_doc()
    del doc["duration"]
    doc["total_token_throughput"] = 1.0
    path = write(
        tmp_path,
        "nodur.json",
        json.dumps(doc).replace('"completed"', '"duration": null, "completed"'),
    )
    expect(capsys, [path], "E312", "`duration`")


def test_arrays_of_different_lengths(tmp_path, capsys):
    path = write(tmp_path, "len.json", json.dumps(vllm_doc(output_lens=[5, 6])))
    expect(capsys, [path], "E313", "`output_lens`")


def test_unknown_percentile_method(tmp_path, capsys):
    path = write(tmp_path, "v.json", json.dumps(vllm_doc()))
    status, _, err = run(capsys, "--percentile-method", "interpolate", path)
    assert status == 1 and "E314" in err and "error[" in err


def test_bad_jsonl_line_is_named(tmp_path, capsys):
    good = {"metadata": {"timestamp_ns": 1, "x_request_id": "a"}, "metrics": {}, "error": None}
    text = json.dumps(good) + "\n" + json.dumps(good) + "\n" + '{"metadata": {"x_request_id"\n'
    path = write(tmp_path, "p.jsonl", text)
    expect(capsys, [path], "E301", "line 3")


def test_one_bad_file_does_not_hide_the_good_ones(tmp_path, capsys):
    good = write(tmp_path, "good.json", json.dumps(vllm_doc()))
    bad = write(tmp_path, "bad.json", "")
    status, out, err = run(capsys, "--json", good, bad)
    assert status == 1
    assert json.loads(out)[0]["file"] == good
    assert "E310" in err


def test_reconstructed_latency_warns(tmp_path, capsys):
    path = write(tmp_path, "v.json", json.dumps(vllm_doc()))
    status, _, err = run(capsys, path)
    assert status == 0 and "W400" in err and "warning[" in err


def test_numbers_without_commas_in_chunk_gaps(tmp_path, capsys):
    text = json.dumps(vllm_doc()).replace("[0.01, 0.02, 0.01, 0.02]", "[0.01 0.02]")
    path = write(tmp_path, "t.json", text)
    expect(capsys, [path], "E305", "`itls[0]`")


@pytest.mark.parametrize(
    "doc",
    [
        {"benchmarks": [{"type_": "generative_benchmark", "requests": {"successful": [[1, 2]]}}]},
        {"benchmarks": [{"type_": "generative_benchmark", "requests": []}]},
        [{"ttft_s": "fast", "end_to_end_latency_s": 1.0}],
        {"experiments": [{"requests": [{"timestamp": 1, "response_timestamps": "x"}]}]},
        {"hw": "b200", "conc": 4, "tput_per_gpu": "many"},
    ],
)
def test_odd_shapes_are_diagnostics_not_crashes(tmp_path, capsys, doc):
    path = write(tmp_path, "odd.json", json.dumps(doc))
    status, _, err = run(capsys, path)
    assert status == 1 and "error[" in err and path in err
