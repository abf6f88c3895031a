"""Warnings a comparison owes its reader: different work, stale prices, loads that do not fit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cmpc.build.pipeline import build_spec
from cmpc.cli import main

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
VLLM = SHARED / "oracle" / "vllm"
INFERENCEX = SHARED / "reference-data" / "inferencex"
SYNTHETIC = REPO / "specs" / "data" / "synthetic"

LLAMA = """comparison "Llama 70B: TP8 vs TP4 x PP2" {
  baseline tp8
  latency {
    metric tpot
    statistic p90
  }
  system tp8 {
    accelerator "A100" x 8
    memory 40 GB
    model "meta-llama/Llama-3.3-70B-Instruct"
    parallel tp 8
    price 2.00 USD/gpu/h basis assumed as_of 2024-01-01
    runs "data/*tp8*.json" format vllm
  }
  system tp4pp2 {
    accelerator "A100" x 8
    memory 40 GB
    nodes 2
    model "meta-llama/Llama-3.3-70B-Instruct"
    parallel tp 4 pp 2
    price 2.00 USD/gpu/h basis assumed as_of 2025-03-01
    runs "data/*tp4*.json" format vllm
  }
}
"""


def build(tmp_path: Path, text: str, files: list[Path], render: bool = False):
    (tmp_path / "data").mkdir()
    for f in files:
        shutil.copy(f, tmp_path / "data" / f.name)
    spec = tmp_path / "spec.cmp"
    spec.write_text(text)
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"), render=render)
    return outcome, {
        d.code: [x for x in outcome.diagnostics if x.code == d.code] for d in outcome.diagnostics
    }


def test_same_model_on_both_sides_is_silent(tmp_path):
    _, found = build(tmp_path, LLAMA, sorted(VLLM.glob("*.json")))
    assert "W516" not in found


def test_declared_models_that_differ_warn_naming_field_and_values(tmp_path):
    text = LLAMA.replace(
        'model "meta-llama/Llama-3.3-70B-Instruct"\n    parallel tp 4',
        'model "Qwen/Qwen2.5-72B-Instruct"\n    parallel tp 4',
    )
    _, found = build(tmp_path, text, sorted(VLLM.glob("*.json")))
    (d,) = found["W516"]
    assert d.message == (
        "the systems serve different work: the spec declares different `model` "
        "(`tp8`: `meta-llama/Llama-3.3-70B-Instruct`; `tp4pp2`: `Qwen/Qwen2.5-72B-Instruct`)"
    )
    assert d.span is not None  # on `system tp4pp2`


ROWS = """comparison "Qwen3.5 on TPU v7 vs DeepSeek-V4-Pro on B200" {
  baseline tpu
  latency {
    metric tpot
    statistic median
  }
  system tpu {
    accelerator "TPU v7" x 8
    parallel tp 8
    runs "data/tpu-manual-sweep.json" format inferencex where tp 8
  }
  system b200 {
    accelerator "B200" x 8
    parallel tp 8 ep 8 dp_attention true
    runs "data/lookup.json" format inferencex
  }
}
"""


def test_file_stated_models_and_precisions_that_differ_warn(tmp_path):
    files = [INFERENCEX / "tpu-manual-sweep.json", INFERENCEX / "lookup.json"]
    _, found = build(tmp_path, ROWS, files)
    messages = [d.message for d in found["W516"]]
    assert any(
        "the run files state different `model`" in m
        and "(`tpu`: `Qwen/Qwen3.5-397B-A17B-FP8`; `b200`: `dsv4`)" in m
        for m in messages
    ), messages
    assert any("different `precision`" in m and "`fp8`" in m and "`fp4`" in m for m in messages), (
        messages
    )


def test_w130_uses_the_run_dates_the_files_state(tmp_path):
    _, found = build(tmp_path, LLAMA, sorted(VLLM.glob("*.json")))
    (d,) = found["W130"]  # tp8's price predates its run (2025-04-14) by 469 days; tp4pp2's by 44
    assert d.message == (
        "`tp8`'s assumed price (2024-01-01) is 469 days older than its data "
        "(the run files state 2025-04-14)"
    )


CAPACITY = """
  capacity {
    params 70e9
    weight_dtype bf16
    layers 80
    kv_heads 8
    head_dim 128
    context 8192 tokens
    concurrency 64
  }
}
"""


def test_a_load_that_does_not_fit_says_so(tmp_path):
    # 140 GB of weights + 80 x 2 x 8 x 128 x 2 B = 327,680 B per token x 8192 x 64 = 171.8 GB
    # of KV cache: 311.8 GB in all, 8 cards of 40 GB hold 320 GB; at concurrency 128, 483.6 GB
    text = LLAMA.rstrip()[:-1] + CAPACITY.replace("concurrency 64", "concurrency 128")
    _, found = build(tmp_path, text, sorted(VLLM.glob("*.json")), render=True)
    a, _ = found["W517"]
    assert a.message == (
        "the declared load does not fit on `tp8`: at a context of 8,192 tokens x concurrency 128 "
        "it needs 13 cards, the system has 8"
    )
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [s["fits"] for s in results["capacity"]["systems"]] == [False, False]
    report = (tmp_path / "out" / "report.md").read_text()
    assert "**The declared load does not fit on tp8:**" in report


def test_a_load_that_fits_is_silent(tmp_path):
    text = LLAMA.rstrip()[:-1] + CAPACITY
    _, found = build(tmp_path, text, sorted(VLLM.glob("*.json")), render=True)
    assert "W517" not in found
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [s["fits"] for s in results["capacity"]["systems"]] == [True, True]


def test_w413_sees_runs_labelled_with_system(capsys):
    files = sorted(str(p) for p in SYNTHETIC.glob("*/conc-0[12].jsonl"))
    main(["sweep", *files, "--at", "30"])
    err = capsys.readouterr().err
    assert "W413" in err and "`system`: alpha, beta" in err


def test_w130_at_check_time_from_the_run_date_of_the_runs_source():
    from cmpc.compile import compile_source
    from cmpc.source import SourceFile

    text = LLAMA.replace(
        "  baseline tp8\n", "  baseline tp8\n  source lab { run_date 2025-04-14 }\n"
    ).replace('runs "data/*tp8*.json" format vllm', 'runs "data/*tp8*.json" format vllm source lab')
    _, diagnostics = compile_source(SourceFile("spec.cmp", text))
    assert [d.message for d in diagnostics if d.code == "W130"] == [
        "`tp8`'s assumed price (2024-01-01) is 469 days older than its data (2025-04-14)"
    ]
