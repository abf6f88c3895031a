"""The llm-d Benchmark Report reader: YAML and JSON alike, the stack's GPUs, hostile YAML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmpc.traces import detect, load_runs

CASE = Path(__file__).resolve().parents[2] / "conformance" / "fixtures" / "llmd-report"
CASE = CASE / "0.7.0" / "completions-stream-c4"
PARTIAL = CASE / "inference-perf.partial.stage_0.yaml"


def test_yaml_and_json_reports_are_detected_and_read_alike():
    runs = {}
    for name in ("benchmark_report.yaml", "benchmark_report.json"):
        head = (CASE / name).read_bytes()[: detect.HEAD_BYTES]
        assert detect.candidates(head) == ["llmd-report"]
        (runs[name],), diags = load_runs(str(CASE / name))
        assert diags == []
    yaml_run, json_run = runs.values()
    assert yaml_run.published == json_run.published and yaml_run.fields == json_run.fields


def test_the_stack_gives_gpus_and_parallelism(tmp_path):
    doc = json.loads((CASE / "benchmark_report.json").read_text())
    prefill = json.loads(json.dumps(doc["scenario"]["stack"][0]))
    prefill["standardized"] |= {"role": "prefill", "replicas": 1}
    prefill["standardized"]["accelerator"]["count"] = 2
    prefill["standardized"]["accelerator"]["parallelism"]["tp"] = 2
    doc["scenario"]["stack"][0]["standardized"]["role"] = "decode"
    doc["scenario"]["stack"].append(prefill)
    target = tmp_path / "br.json"
    target.write_text(json.dumps(doc))
    (run,), diags = load_runs(str(target))
    assert diags == [] and run.published is not None
    assert run.published.num_gpus == 4 * 2 + 2 * 1  # count per replica × replicas, both pools
    assert run.fields["decode_tp"] == 4 and run.fields["prefill_tp"] == 2
    total = run.published.throughput["total"]
    assert total is not None and run.published.per_gpu["total"] == total / 10


def test_a_report_of_another_version_is_read_with_a_warning(tmp_path):
    target = tmp_path / "br.yaml"
    target.write_text(PARTIAL.read_text().replace("version: 0.2.1", "version: 0.2.7", 1))
    (_run,), diags = load_runs(str(target))
    assert [d.code for d in diags] == ["W320"] and "0.2.7" in diags[0].message


def test_yaml_aliases_are_refused_not_expanded(tmp_path):
    bomb = ["version: 0.2.1", "a: &a [x, x, x, x, x, x, x, x, x]"]
    bomb += [f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}]" for i in range(8)]
    bomb += ["results:", "  request_performance:", "    aggregate: {}"]
    target = tmp_path / "bomb.yaml"
    target.write_text("\n".join(bomb) + "\n")
    got, diags = load_runs(str(target), format="llmd-report")
    assert got == [] and [d.code for d in diags] == ["E301"] and "alias" in diags[0].message
    assert diags[0].record == "line 3"


def test_unsafe_tags_and_huge_numbers_are_diagnostics(tmp_path):
    text = PARTIAL.read_text()
    tagged = tmp_path / "tag.yaml"
    tagged.write_text(text.replace("total: 30", "total: !!python/object/apply:os.system [id]", 1))
    got, diags = load_runs(str(tagged))
    assert got == [] and [d.code for d in diags] == ["E301"]
    huge = tmp_path / "huge.yaml"
    huge.write_text(text.replace("total: 30", "total: 1" + "0" * 400, 1))
    got, diags = load_runs(str(huge))
    assert got == [] and [d.code for d in diags] == ["E306"]


def test_a_latency_in_an_unknown_unit_names_it(tmp_path):
    target = tmp_path / "br.yaml"
    target.write_text(PARTIAL.read_text().replace("units: s\n", "units: fortnights\n", 1))
    got, diags = load_runs(str(target))
    assert got == [] and [d.code for d in diags] == ["E305"] and "fortnights" in diags[0].message


VLLM = CASE.parents[2] / "vllm" / "0.33.0" / "bench-serve-chat-c4" / "result.json"


def _as_llmd_benchmark_imports_it(result: dict, tool: str) -> dict:
    """A vLLM result as llm-d-benchmark's `import_vllm_benchmark` lays it out (its keys, ms
    units, no p50 for ITL and E2EL), with a one-engine stack of 8 accelerators."""

    def stats(metric: str, median: bool = True) -> dict:
        out = {"units": "ms" if metric in ("ttft", "e2el") else "ms/token"}
        out |= {"mean": result[f"mean_{metric}_ms"], "stddev": result[f"std_{metric}_ms"]}
        out |= {f"p{p}": result[f"p{p}_{metric}_ms"] for p in (90, 99)}
        return out | ({"p50": result[f"median_{metric}_ms"]} if median else {})

    engine = {"kind": "inference_engine", "replicas": 1, "accelerator": {"count": 8}}
    return {
        "version": "0.2",
        "run": {"uid": "test"},
        "scenario": {
            "load": {"standardized": {"tool": tool, "stage": 0}},
            "stack": [{"standardized": engine}],
        },
        "results": {
            "request_performance": {
                "aggregate": {
                    "requests": {"total": result["completed"] + result["failed"]},
                    "latency": {
                        "time_to_first_token": stats("ttft"),
                        "time_per_output_token": stats("tpot"),
                        "inter_token_latency": stats("itl", median=False),
                        "request_latency": stats("e2el", median=False),
                    },
                    "throughput": {
                        "output_token_rate": {
                            "units": "tokens/s",
                            "mean": result["output_throughput"],
                        },
                        "total_token_rate": {
                            "units": "tokens/s",
                            "mean": result["total_token_throughput"],
                        },
                        "request_rate": {
                            "units": "queries/s",
                            "mean": result["request_throughput"],
                        },
                    },
                }
            }
        },
    }


def test_a_vllm_run_imported_by_llm_d_benchmark_keeps_vllm_tpot_and_itl(tmp_path):
    result = json.loads(VLLM.read_text())
    target = tmp_path / "br.json"
    target.write_text(json.dumps(_as_llmd_benchmark_imports_it(result, "vllm-benchmark")))
    (br,), diags = load_runs(str(target))
    (direct,), _ = load_runs(str(VLLM))
    assert diags == [] and br.published is not None and direct.published is not None
    for metric in ("ttft", "tpot", "chunk_gap", "e2el"):
        ours = br.published.latency[metric]
        for stat, value in ours.items():
            assert value == pytest.approx(direct.published.latency[metric][stat], rel=1e-12)
    assert br.published.throughput["total"] == direct.published.throughput["total"]
    assert br.published.per_gpu["total"] == result["total_token_throughput"] / 8
    # a producer whose TPOT is its own definition gets none
    target.write_text(json.dumps(_as_llmd_benchmark_imports_it(result, "inference-perf")))
    (other,), _ = load_runs(str(target))
    assert other.published is not None and "tpot" not in other.published.latency
