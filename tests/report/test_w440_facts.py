"""W440 compares every fact the checklist fills from the run files with the spec's answer.

Real files: the vLLM 0.8.3 results of specs/data/llama70b (TP8: `request_rate` 4.0,
`burstiness` 1.0, `date` 20250414-141621; TP4xPP2: `request_rate` "inf", `date`
20250414-162342; both `tokenizer_id` meta-llama/Llama-3.3-70B-Instruct) and the genai-bench
run of ../shared/oracle (`scenario` D(100,100), concurrency 1, `server_model_tokenizer`
zai-org/GLM-4.6)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from tests.conftest import SHARED

LLAMA = "specs/llama70b-a100-tp8-vs-tp4pp2.cmp"
TP8 = "data/llama70b/tp8_pp1_sharegpt_qps_04.json"
TP4 = "data/llama70b/tp4_pp2_sharegpt_qps_inf.json"


def _w440(outcome) -> dict[str, str]:
    """{system: its W440 messages, joined by " | "}."""
    found: dict[str, list[str]] = {}
    for d in outcome.diagnostics:
        if d.code == "W440":
            found.setdefault(d.message.split("`")[1], []).append(d.message)
    return {system: " | ".join(messages) for system, messages in found.items()}


def _llama(tmp_path: Path, *sets: str) -> dict[str, str]:
    outcome = build_spec(LLAMA, out_dir=str(tmp_path / "out"), sets=list(sets), render=False)
    assert outcome.code == 0, outcome.diagnostics
    return _w440(outcome)


@pytest.mark.parametrize(
    ("key", "answer", "tp8", "tp4"),
    [
        ("load_conditions", "Poisson at 8 req/s", "request rate 4 req/s", "request rate inf"),
        ("load_mode", "closed loop at concurrency 64", "request rate 4 req/s, open loop", None),
        ("measured_at", "runs of 2024-01-10", "run date 2025-04-14 14:16:21", "2025-04-14 16:23"),
        ("tokenizer", "meta-llama/Llama-3.1-8B", "tokenizer meta-llama/Llama-3.3-70B", "Llama-3.3"),
        ("model_revision", "main of meta-llama/Llama-3.1-70B", "model meta-llama/Llama-3.3", "3.3"),
    ],
)
def test_each_fact_is_compared(in_repo, tmp_path, key, answer, tp8, tp4):
    found = _llama(tmp_path, f'disclosure.{key}="{answer}"')
    assert f'the spec\'s {key} "{answer}" disagrees with the run files' in found["tp8"]
    assert tp8 in found["tp8"] and f"in {TP8}" in found["tp8"]
    if tp4 is None:
        assert "tp4pp2" not in found
    else:
        assert tp4 in found["tp4pp2"] and f"in {TP4}" in found["tp4pp2"]


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        ("load_conditions", "Poisson at 4 req/s (TP8); all requests at once (TP4 x PP2)"),
        ("load_mode", "open loop: request rates 4 and inf"),
        ("measured_at", "2025-04-14"),
        ("tokenizer", "the client's meta-llama/Llama-3.3-70B-Instruct tokenizer"),
        ("tokenizer", "server usage for output, the client's tokenizer for input"),  # no name
        ("model_revision", "meta-llama/Llama-3.3-70B-Instruct at main"),
    ],
)
def test_an_agreeing_answer_is_quiet(in_repo, tmp_path, key, answer):
    assert _llama(tmp_path, f'disclosure.{key}="{answer}"') == {}


def test_a_source_run_date_the_files_contradict(in_repo, tmp_path):
    found = _llama(tmp_path, "source.llmk8s.run_date=2025-03-01")
    assert set(found) == {"tp8", "tp4pp2"}
    assert "measured_at run_date 2025-03-01 (source `llmk8s`)" in found["tp8"]
    assert "run date 2025-04-14 14:16:21" in found["tp8"]


GENAI_BENCH = (
    "genaibench-regression_main_branch__D100_100_text-to-text_num_concurrency_1_time_120s.json"
)
METADATA = "genaibench-regression_main_branch__experiment_metadata.json"
SPEC = """comparison "GLM-4.6 on genai-bench" {
  baseline a
  latency { metric tpot; statistic median }
  tokens { count input + output; reused included }
  normalize per gpu
  system a { accelerator "X" x 8; cache_hit_rate 0%; runs "data/*120s.json" }
  system b { accelerator "X" x 8; cache_hit_rate 0%; runs "data/*120s.json" }
  disclosure { DISCLOSURE }
}
"""


def _genai_bench(tmp_path: Path, disclosure: str):
    (tmp_path / "data").mkdir()
    for name in (GENAI_BENCH, METADATA):  # the folder's metadata names the tokenizer
        shutil.copy(SHARED / "oracle" / "genai-bench" / name, tmp_path / "data")
    spec = tmp_path / "gb.cmp"
    spec.write_text(SPEC.replace("DISCLOSURE", disclosure))
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    return _w440(outcome), {i["key"]: i for i in results["disclosure"]["items"]}


def test_genai_bench_lengths_load_and_tokenizer_fill_the_checklist(tmp_path):
    # a list of concurrencies that holds the file's 1 agrees (not "1," then nothing)
    found, items = _genai_bench(tmp_path, 'load_mode "closed loop, concurrency 1, 2, 4"')
    assert found == {}
    assert items["dataset"]["from_files"] == (
        "from the run files: input/output lengths 100/100 tokens per request"
    )
    assert items["tokenizer"]["from_files"] == (
        "from the run files: the client counted tokens with tokenizer zai-org/GLM-4.6"
    )
    assert items["load_conditions"]["from_files"] == "from the run files: concurrency 1"


def test_genai_bench_answers_the_files_contradict(tmp_path):
    found, _ = _genai_bench(
        tmp_path,
        'dataset "random, ISL 1024, OSL 128"; load_conditions "concurrency 8 to 64"; '
        'tokenizer "Qwen/Qwen3-8B"',
    )
    assert set(found) == {"a", "b"}
    message = found["a"]
    assert 'the spec\'s dataset "random, ISL 1024, OSL 128" disagrees' in message
    assert f"(input/output lengths 100/100 tokens in data/{GENAI_BENCH})" in message
    assert f"(concurrency 1 in data/{GENAI_BENCH})" in message
    assert f"(tokenizer zai-org/GLM-4.6 in data/{GENAI_BENCH})" in message
