"""Readers: each format maps to the canonical table; cmpc JSONL follows its schema."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from cmpc.cli import main
from cmpc.metrics import summarize
from cmpc.traces import FORMATS, jsonscan, load_runs

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
INFERENCEX = SHARED / "reference-data" / "inferencex"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def one_run(path: str, **kw):
    runs, diags = load_runs(path, **kw)
    assert not diags, diags
    (run,) = runs
    return run


# ---------------------------------------------------------------------------------------------
# cmpc JSONL

TRACE = [
    {"cmpc_trace": 1, "fields": {"model": "m", "tp": 8, "conc": 2}},
    {
        "start": 0.0,
        "chunk_times": [0.5, 0.6, 0.8],
        "chunk_tokens": [1, 2, 1],
        "input_tokens": 100,
        "cached_input_tokens": 60,
        "end": 1.0,
        "error": None,
    },
    {
        "start": 0.25,
        "first_token": 0.5,
        "chunk_times": [0.5, 1.5],
        "chunk_tokens": [1, 1],
        "input_tokens": 50,
        "cached_input_tokens": 0,
        "output_tokens": 2,
    },
    {"start": 0.3, "chunk_times": [], "input_tokens": 10, "error": "HTTP 503"},
]


def trace_text(lines=TRACE) -> str:
    return "\n".join(json.dumps(x) for x in lines) + "\n"


def test_cmpc_trace_lines_follow_the_schema():
    schema = json.loads((resources.files("cmpc") / "schemas" / "trace.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for line in TRACE:
        validator.validate(line)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"chunk_times": [1.0]})  # no start


def test_cmpc_trace_metrics(tmp_path):
    run = one_run(write(tmp_path, "t.jsonl", trace_text()))
    assert run.format == "cmpc" and run.fields == {"model": "m", "tp": 8, "conc": 2}
    m = summarize(run, percentiles=("50",))
    assert (m.total, m.succeeded, m.failed) == (3, 2, 1)
    assert m.duration_s == pytest.approx(1.5)  # last end 1.5 - first start 0.0
    np.testing.assert_allclose(sorted(m.samples["ttft"]), [0.25, 0.5])
    np.testing.assert_allclose(sorted(m.samples["e2el"]), [1.0, 1.25])
    np.testing.assert_allclose(sorted(m.samples["chunk_gap"]), [0.1, 0.2, 1.0])
    np.testing.assert_allclose(sorted(m.samples["tpot"]), [(1.0 - 0.5) / 3, (1.25 - 0.25) / 1])
    assert m.tokens.output == 6 and m.tokens.input == 150 and m.tokens.cached_input == 60
    assert m.cache_hit_rate == pytest.approx(0.4)
    assert m.throughput("uncached_input") == pytest.approx(90 / 1.5)
    assert m.throughput("requests") == pytest.approx(2 / 1.5)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"first_token": 0.9}, "E308"),
        ({"end": 0.7}, "E308"),
        ({"cached_input_tokens": 500}, "E305"),
        ({"chunk_tokens": [1, 2]}, "E313"),
        ({"start": "zero"}, "E305"),
    ],
)
def test_cmpc_trace_errors_name_the_line(tmp_path, change, code):
    lines = [dict(x) for x in TRACE]
    lines[1].update(change)
    runs, diags = load_runs(write(tmp_path, "t.jsonl", trace_text(lines)))
    assert not runs and diags[0].code == code and diags[0].record.startswith("line 2"), diags


# ---------------------------------------------------------------------------------------------
# vLLM


def vllm_current(**extra) -> dict:
    doc = {
        "date": "20260101-000000",
        "backend": "vllm",
        "model_id": "m",
        "max_concurrency": 4,
        "duration": 5.0,
        "completed": 2,
        "failed": 1,
        "total_input_tokens": 30,
        "total_output_tokens": 9,
        "request_throughput": 0.4,
        "request_goodput": None,
        "output_throughput": 1.8,
        "total_token_throughput": 7.8,
        "input_lens": [10, 20, 40],
        "output_lens": [4, 5, 0],
        "ttfts": [0.1, 0.2, 0.0],
        "itls": [[0.01, 0.02, 0.03], [0.01, 0.01, 0.01, 0.01], []],
        "latencies": [0.2, 0.3, 0.0],
        "start_times": [0.0, 0.5, 1.0],
        "errors": ["", "", "timeout"],
        "mean_ttft_ms": 150.0,
    }
    doc.update(extra)
    return doc


def test_vllm_current_file_with_latencies_is_exact(tmp_path):
    run = one_run(write(tmp_path, "v.json", json.dumps(vllm_current())))
    assert run.fields["model"] == "m" and run.fields["max_concurrency"] == 4
    m = summarize(run, percentiles=("50",))
    assert not m.e2el_reconstructed
    assert (m.total, m.succeeded, m.failed) == (3, 2, 1)
    np.testing.assert_allclose(sorted(m.samples["tpot"]), sorted([(0.2 - 0.1) / 3, 0.1 / 4]))
    assert m.samples["chunk_gap"].size == 7
    assert m.throughput("requests") == pytest.approx(0.4)
    assert m.throughput("total") == pytest.approx(7.8)


def test_pretty_printed_file_reads_the_same(tmp_path):
    compact = summarize(one_run(write(tmp_path, "a.json", json.dumps(vllm_current()))))
    pretty = summarize(one_run(write(tmp_path, "b.json", json.dumps(vllm_current(), indent=2))))
    assert compact.to_json() | {"file": None} == pretty.to_json() | {"file": None}


def test_array_key_inside_a_string_does_not_confuse_the_scanner(tmp_path):
    doc = vllm_current(generated_texts=['he said "itls": [1, 2] once', "", ""])
    doc = {"generated_texts": doc.pop("generated_texts"), **doc}  # the decoy comes first
    m = summarize(one_run(write(tmp_path, "v.json", json.dumps(doc))))
    assert m.samples["chunk_gap"].size == 7


@pytest.mark.parametrize("digits", [None, 6], ids=["full-repr", "six-decimals"])
def test_many_pieces_give_the_same_values(tmp_path, monkeypatch, digits):
    rng = np.random.default_rng(7)
    rows = [rng.gamma(2, 0.01, int(k)) for k in rng.integers(0, 40, 300)]
    rows = [(r if digits is None else np.round(r, digits)).tolist() for r in rows]
    doc = vllm_current(
        itls=rows,
        ttfts=[0.1] * 300,
        latencies=[5.0] * 300,
        input_lens=[1] * 300,
        output_lens=[len(r) + 1 for r in rows],
        errors=[""] * 300,
        start_times=[0.0] * 300,
    )
    path = write(tmp_path, "v.json", json.dumps(doc, indent=1))
    monkeypatch.setattr(jsonscan, "PIECE", 1000)
    run = one_run(path)
    np.testing.assert_array_equal(run.requests.gaps, np.concatenate([np.array(r) for r in rows]))
    np.testing.assert_array_equal(np.diff(run.requests.gap_offsets), [len(r) for r in rows])


def test_vllm_summary_only_file_is_aggregate_only(tmp_path):
    doc = {k: v for k, v in vllm_current().items() if not isinstance(v, list) or k == "latencies"}
    doc |= {"median_tpot_ms": 20.0, "p99_tpot_ms": 30.0, "mean_itl_ms": 21.0}
    m = summarize(one_run(write(tmp_path, "v.json", json.dumps(doc))), percentiles=("50", "99"))
    assert m.aggregate_only
    assert m.latency_statistic("tpot", "median") == pytest.approx(0.02)
    assert m.latency_statistic("tpot", "p99") == pytest.approx(0.03)
    assert m.latency_statistic("tpot", "p90") is None
    assert m.latency_statistic("chunk_gap", "mean") == pytest.approx(0.021)
    assert m.interactivity("p99") == pytest.approx(1 / 0.03)
    assert m.throughput("input") == pytest.approx(6.0)  # total - output


def test_old_vllm_key_names(tmp_path):
    doc = {
        "duration": 10.0,
        "completed": 5,
        "num_prompts": 6,
        "request_throughput": 0.5,
        "request_inthroughput": 100.0,
        "output_throughput": 50.0,
        "mean_ttft_ms": 12.0,
    }
    m = summarize(one_run(write(tmp_path, "v.json", json.dumps(doc))))
    assert (m.total, m.succeeded, m.failed) == (6, 5, 1)
    assert m.throughput("input") == 100.0 and m.throughput("total") == 150.0


# ---------------------------------------------------------------------------------------------
# SGLang, InferenceX


def test_sglang_lines_are_runs(tmp_path):
    line = {
        "backend": "sglang",
        "duration": 2.0,
        "completed": 2,
        "total_output_tokens_retokenized": 7,
        "mean_e2e_latency_ms": 1.0,
        "output_throughput": 3.0,
        "input_lens": [3, 4],
        "output_lens": [3, 4],
        "ttfts": [0.1, 0.2],
        "itls": [[0.1, 0.1], [0.1, 0.1, 0.1]],
        "errors": ["", ""],
    }
    path = write(tmp_path, "s.jsonl", json.dumps(line) + "\n" + json.dumps(line) + "\n")
    runs, diags = load_runs(path)
    assert not diags and [r.format for r in runs] == ["sglang", "sglang"]
    assert [r.record for r in runs] == ["line 1", "line 2"]
    m = summarize(runs[1])
    assert m.e2el_reconstructed
    np.testing.assert_allclose(sorted(m.samples["e2el"]), [0.3, 0.5])


def test_inferencex_flat_rows():
    path = INFERENCEX / "tpu-manual-sweep.json"
    assert path.exists(), f"{path} is missing: the repo needs ../shared beside it"
    rows = json.loads(path.read_text())["benchmarks"]
    runs, diags = load_runs(str(path))
    assert not diags and len(runs) == len(rows)
    for run, row in zip(runs, rows, strict=True):
        m = summarize(run, percentiles=("90", "99", "99.9"))
        assert m.aggregate_only and m.fields["tp"] == row["tp"] and m.fields["conc"] == row["conc"]
        assert m.num_gpus == row["tp"]
        assert m.tput_per_gpu == row["tput_per_gpu"]
        assert m.output_tput_per_gpu == row["output_tput_per_gpu"]
        assert m.throughput("total") == pytest.approx(row["tput_per_gpu"] * row["tp"], rel=1e-12)
        assert m.latency_statistic("tpot", "median") == row["median_tpot"]
        assert m.latency_statistic("chunk_gap", "p99.9") == row["p99.9_itl"]
        for stat in ("median", "p90", "p99", "p99.9"):
            np.testing.assert_allclose(m.interactivity(stat), row[f"{stat}_intvty"], rtol=1e-12)


def test_inferencex_api_and_agentx_rows():
    api, agentx = INFERENCEX / "lookup.json", INFERENCEX / "attempt1.json"
    assert api.exists() and agentx.exists(), "the repo needs ../shared beside it"
    runs, diags = load_runs(str(api))
    assert not diags and len(runs) == 5
    row = json.loads(api.read_text())["sample_rows"][0]
    m = summarize(runs[0], percentiles=("90",))
    assert m.fields["hw"] == row["hardware"] and m.fields["tp"] == 8 and m.num_gpus == 8
    assert m.latency_statistic("ttft", "p90") == row["metrics"]["p90_ttft"]
    (run,) = load_runs(str(agentx))[0]
    a = summarize(run, percentiles=("90",))
    doc = json.loads(agentx.read_text())
    assert a.num_gpus == 8 and a.succeeded == doc["num_requests_successful"]
    assert a.latency_statistic("tpot", "p90") == doc["request_metrics"]["latency"]["tpot"]["p90"]
    assert a.tput_per_gpu == doc["request_metrics"]["throughput"]["per_gpu"]["total_tput_tps"]
    assert a.cache_hit_rate == doc["server_metrics"]["cache"]["overall_cache_hit_rate"]


# ---------------------------------------------------------------------------------------------
# Metrics API and the verb's JSON


def test_goodput_and_attainment(tmp_path):
    run = one_run(write(tmp_path, "v.json", json.dumps(vllm_current())))
    m = summarize(run, slos={"ttft": 0.15})
    assert m.goodput == pytest.approx(1 / 5.0) and m.slo_attainment == pytest.approx(1 / 3)
    both = summarize(run, slos={"ttft": 0.5, "tpot": 0.04})
    assert both.goodput == pytest.approx(2 / 5.0)
    assert both.to_json()["slo"]["thresholds_ms"] == {"ttft": 500.0, "tpot": 40.0}


def test_unrequested_percentile_is_computed_on_demand(tmp_path):
    m = summarize(one_run(write(tmp_path, "v.json", json.dumps(vllm_current()))))
    x = m.samples["chunk_gap"]
    assert m.latency_statistic("chunk_gap", "p75") == pytest.approx(np.percentile(x, 75))
    with pytest.raises(ValueError):
        m.latency_statistic("itl", "p50")


def test_stats_json_shape_and_several_files(tmp_path, capsys):
    a = write(tmp_path, "a.json", json.dumps(vllm_current()))
    b = write(tmp_path, "b.jsonl", trace_text())
    assert main(["stats", "--json", "--percentiles", "50,99.9", a, b]) == 0
    docs = json.loads(capsys.readouterr().out)
    assert [d["format"] for d in docs] == ["vllm", "cmpc"]
    doc = docs[0]
    assert set(doc) >= {
        "file",
        "format",
        "requests",
        "duration_s",
        "tokens",
        "throughput",
        "metrics",
        "interactivity_tok_s_user",
    }
    assert set(doc["requests"]) == {"total", "succeeded", "failed"}
    assert set(doc["tokens"]) == {"input", "cached_input", "output"}
    assert set(doc["throughput"]) == {
        "requests_per_s",
        "input_tokens_per_s",
        "output_tokens_per_s",
        "total_tokens_per_s",
    }
    assert {"ttft_ms", "tpot_ms", "chunk_gap_ms", "e2el_ms"} <= set(doc["metrics"])
    assert set(doc["metrics"]["ttft_ms"]) >= {"n", "mean", "std", "min", "max", "p50", "p99.9"}
    assert doc["interactivity_tok_s_user"]["p99.9"] == pytest.approx(
        1000 / doc["metrics"]["tpot_ms"]["p99.9"]
    )


def test_one_file_gives_an_object_and_the_table_reads(tmp_path, capsys):
    a = write(tmp_path, "a.json", json.dumps(vllm_current()))
    assert main(["stats", "--json", a]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "vllm"
    assert main(["stats", a]) == 0
    out = capsys.readouterr().out
    assert "ttft" in out and "chunk_gap" in out and "interactivity" in out


def test_every_format_name_has_a_reader():
    from cmpc import traces
    from cmpc.language import vocabulary

    assert FORMATS == vocabulary.FORMATS and len(set(FORMATS)) == len(FORMATS)
    for fmt in FORMATS:
        reader = traces._reader(fmt)
        assert callable(reader.read), fmt


def test_forced_format_reads_the_file(tmp_path):
    run = one_run(write(tmp_path, "t.jsonl", trace_text()), format="cmpc")
    assert run.format == "cmpc"


def test_guidellm_newer_schema_with_timings(tmp_path):
    request = {
        "request_id": "a",
        "info": {
            "timings": {
                "request_start": 10.0,
                "first_token_iteration": 10.5,
                "last_token_iteration": 11.4,
                "request_end": 11.5,
            }
        },
        "request_start_time": 10.0,
        "request_end_time": 11.5,
        "prompt_tokens": 100,
        "output_tokens": 10,
    }
    doc = {
        "benchmarks": [
            {
                "type_": "generative_benchmark",
                "duration": 2.0,
                "requests": {"successful": [request], "errored": [], "incomplete": []},
            }
        ]
    }
    m = summarize(one_run(write(tmp_path, "g.json", json.dumps(doc))))
    assert m.latency_statistic("ttft", "mean") == pytest.approx(0.5)
    assert m.latency_statistic("e2el", "mean") == pytest.approx(1.5)
    assert m.latency_statistic("tpot", "mean") == pytest.approx(1.0 / 9)
    assert m.throughput("output") == pytest.approx(5.0)


def test_decimal_fast_path_is_exact_and_keeps_rows():
    piece = b"[0.5, 12.25, 0.000125], [], [3.0],\n [7.125]"
    opens = [i for i, c in enumerate(piece) if c == ord("[")]
    closes = [i for i, c in enumerate(piece) if c == ord("]")]
    values, counts = jsonscan.decimal_rows(piece, opens, closes)
    assert values.tolist() == [0.5, 12.25, 0.000125, 3.0, 7.125]
    assert counts.tolist() == [3, 0, 1, 1]
    rng = np.random.default_rng(5)
    x = np.round(rng.gamma(2, 1.0, 10000), 9)
    text = b"[" + ", ".join(map(repr, x.tolist())).encode() + b"]"
    values, counts = jsonscan.decimal_rows(text, [0], [len(text) - 1])
    assert np.array_equal(values, x) and counts.tolist() == [x.size]  # bit-identical to float()
    long = rng.gamma(4, 0.005, 10000)
    long = long[long > 1e-4]  # `repr` switches to exponents below 1e-4
    text = b"[" + ", ".join(map(repr, long.tolist())).encode() + b"]"
    values, _ = jsonscan.decimal_rows(text, [0], [len(text) - 1])
    assert np.max(np.abs(values.view(np.int64) - long.view(np.int64))) <= 1  # within one ulp
    values, _ = jsonscan.decimal_rows(b"[1e-05, 2.5E+3, 7, 0]", [0], [20])
    assert values.tolist() == [1e-05, 2500.0, 7.0, 0.0]
    for bad in (b"[1.5, -2.5]", b"[e5]", b"[1.5 2.5]", b"[12345678901234567890.5]", b"[1e400]"):
        assert jsonscan.decimal_rows(bad, [0], [len(bad) - 1]) is None, bad


def test_sidecar_files_fill_the_run_fields():
    oracle = SHARED / "oracle"
    aiperf = oracle / "aiperf" / "aiperf-examples-run1__profile_export.jsonl"
    bench = oracle / "genai-bench"
    runs = sorted(bench.glob("*num_concurrency*.json")) if bench.exists() else []
    if not aiperf.exists() or not runs:
        pytest.skip("oracle missing")
    assert one_run(str(aiperf)).fields == {"conc": 100, "model": "openai/gpt-oss-20b"}
    fields = one_run(str(runs[0])).fields
    assert fields["model"] == "GLM-4.6" and fields["conc"] == 1


def test_genai_perf_streaming_drops_empty_responses(tmp_path):
    def sse(text):
        return {"response": "data: " + json.dumps({"choices": [{"delta": {"content": text}}]})}

    request = {
        "timestamp": 1_000_000_000,
        "response_timestamps": [1_100_000_000, 1_200_000_000, 1_250_000_000, 1_400_000_000],
        "response_outputs": [
            {"response": 'data: {"choices": [{"delta": {"role": "assistant"}}]}'},
            sse("Hel"),
            sse("lo"),
            {"response": "data: [DONE]"},
        ],
    }
    doc = {
        "experiments": [{"experiment": {"mode": "concurrency", "value": 4}, "requests": [request]}]
    }
    run = one_run(write(tmp_path, "p.json", json.dumps(doc)))
    assert run.fields == {"conc": 4.0}
    m = summarize(run)
    assert m.latency_statistic("ttft", "mean") == pytest.approx(0.2)
    assert m.latency_statistic("e2el", "mean") == pytest.approx(0.25)
    np.testing.assert_allclose(m.samples["chunk_gap"], [0.05])
    assert m.tokens.output is None and m.duration_s == pytest.approx(0.25)


# ---------------------------------------------------------------------------------------------
# Reading without chunk gaps (what a comparison of tpot, ttft or e2el needs)

ORACLE_VLLM = sorted((SHARED / "oracle" / "vllm").glob("*.json"))
ORACLE_AIPERF = SHARED / "oracle" / "aiperf" / "aiperf-examples-run1__profile_export.jsonl"


def _without_gaps(metrics) -> dict:
    doc = metrics.to_json()
    del doc["metrics"]["chunk_gap_ms"]
    return doc


@pytest.mark.parametrize(
    "source", ["with-latencies", "pretty", "aiperf", *(p.name[:40] for p in ORACLE_VLLM)]
)
def test_without_gaps_every_other_figure_is_unchanged(tmp_path, source):
    if source == "with-latencies":
        path = write(tmp_path, "v.json", json.dumps(vllm_current()))
    elif source == "pretty":
        path = write(tmp_path, "v.json", json.dumps(vllm_current(), indent=2))
    elif source == "aiperf":
        path = str(ORACLE_AIPERF)
    else:  # real files without `latencies`: e2el is rebuilt from the gaps, so they are read
        path = str(next(p for p in ORACLE_VLLM if p.name.startswith(source)))
    full = one_run(path)
    lean = one_run(path, gaps=False)
    # files without `latencies` (the oracle's) still read their gaps, to rebuild e2el from them
    assert lean.requests.e2el_reconstructed == source.startswith("llmk8s")
    assert lean.requests.gaps is None and "chunk_gap" not in summarize(lean).samples
    pcts = ("50", "90", "99")
    assert _without_gaps(summarize(lean, percentiles=pcts)) == _without_gaps(
        summarize(full, percentiles=pcts)
    )


def test_cmpc_trace_without_gaps_gives_every_other_figure_unchanged(tmp_path):
    lines = [
        *TRACE,
        {"start": 0.4, "chunk_times": [0.9], "chunk_tokens": [1], "input_tokens": 5},
        {"start": 0.5, "chunk_times": [], "chunk_tokens": [], "first_token": 0.6, "end": 0.7},
    ]
    path = write(tmp_path, "t.jsonl", trace_text(lines))
    lean = one_run(path, gaps=False)
    assert lean.requests.gaps is None and lean.requests.chunk_tokens is None
    pcts = ("50", "90")
    assert _without_gaps(summarize(lean, percentiles=pcts)) == _without_gaps(
        summarize(one_run(path), percentiles=pcts)
    )


@pytest.mark.parametrize(
    "change, code",
    [
        ({"chunk_tokens": [1, 2]}, "E313"),  # summed for output_tokens: lengths still checked
        ({"chunk_times": [0.5, 0.6, 0.45]}, "E308"),  # the last chunk before the first
        ({"start": 0.55}, "E308"),  # the first chunk before `start`
    ],
)
def test_cmpc_trace_without_gaps_still_checks_what_it_reads(tmp_path, change, code):
    lines = [dict(x) for x in TRACE]
    lines[1].update(change)
    runs, diags = load_runs(write(tmp_path, "t.jsonl", trace_text(lines)), gaps=False)
    assert not runs and diags[0].code == code and diags[0].record.startswith("line 2"), diags


@pytest.mark.parametrize(
    "itls, code",
    [
        ([[0.01, -0.02, 0.03], [0.01] * 4, []], "E308"),  # a negative gap
        ([[0.01, 0.02, 0.03], [0.01] * 4], "E313"),  # a row short
    ],
    ids=["negative", "row-short"],
)
def test_unread_gaps_are_not_checked_but_read_gaps_are(tmp_path, itls, code):
    path = write(tmp_path, "v.json", json.dumps(vllm_current(itls=itls)))
    runs, diags = load_runs(path)
    assert not runs and diags[0].code == code
    run = one_run(path, gaps=False)  # the comparison reads no gap: the column is not parsed
    assert summarize(run).samples["tpot"].size == 2


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "itls": [[1, 2], []], "b": [3]}',
        b'{"a": 1, "b": [3], "itls": [[1, 2], [ ]]  }\n',
        b'{"s": "\\"itls\\": [9]", "itls": [], "b": 2}',
        b'{\n  "itls": [\n    [1],\n    [2]\n  ],\n  "b": 2\n}',
    ],
    ids=["middle", "last", "decoy-in-string", "pretty"],
)
def test_skipped_array_leaves_the_rest_of_the_document(text):
    doc, arrays = jsonscan.load_bytes(text, skip=("itls",))
    whole = json.loads(text)
    del whole["itls"]
    assert doc == whole and arrays == {}


def test_an_unread_array_cut_short_is_still_an_error(tmp_path):
    text = json.dumps(vllm_current()).replace("[]], ", "[], ")  # `itls` loses its last `]`
    runs, diags = load_runs(write(tmp_path, "v.json", text), gaps=False)
    assert not runs and diags[0].code == "E301", diags


def test_skipped_array_holding_text_is_read_whole():
    doc, _ = jsonscan.load_bytes(b'{"itls": [[1], ["x"]], "b": 2}', skip=("itls",))
    assert doc == {"itls": [[1], ["x"]], "b": 2}  # the reader then reports it (E305)


@pytest.mark.parametrize(
    "line, taken",
    [
        (b'{"a": 1, "k": [1, 2], "b": 2}', {"k": b"1, 2"}),
        (b'{"s": "\\"k\\": [9]", "k": [3]}', {"k": b"3"}),  # the first "k" is inside a string
        (b'{"k": [[1], [2]]}', {}),  # not flat: left to the JSON parser
        (b'{"k": []}', {"k": b""}),
    ],
    ids=["plain", "decoy-in-string", "nested", "empty"],
)
def test_take_arrays_cuts_flat_arrays_only(line, taken):
    rest, found = jsonscan.take_arrays(line, {"k": (b'"k"', jsonscan.LEAD)})
    assert found == taken
    doc = json.loads(rest)
    whole = json.loads(line)
    assert doc == (whole | {"k": None} if taken else whole)
