"""Billed versus used GPUs: cost and per-dollar figures pay for the billed, per-GPU use the used."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec

REPO = Path(__file__).resolve().parents[1]
VLLM = REPO.parent / "shared" / "oracle" / "vllm"
# the two runs' own summaries (total_token_throughput, tok/s), each on 8 GPUs
TP8_TOTAL, TP4PP2_TOTAL = 1351.170924879084, 1865.5383752324858

SPEC = """comparison "Llama 70B: TP8 on one 8-GPU VM vs TP4 x PP2 on two" {
  baseline tp8
  latency {
    metric tpot
    statistic p90
  }
  NORMALIZE
  system tp8 {
    accelerator "A100" x 8
    parallel tp 8
    price 2.00 USD/gpu/h basis assumed
    runs "data/*tp8*.json" format vllm
  }
  system tp4pp2 {
    accelerator "A100" x 8
    nodes 2
    gpus_per_node 4
    BILLED
    parallel tp 4 pp 2
    price 2.00 USD/gpu/h basis assumed
    runs "data/*tp4*.json" format vllm
  }
  sensitivity {
    utilization 50% | 100%
  }
}
"""


def build(tmp_path: Path, billed: str = "billed_gpus 16", normalize: str = "normalize per gpu"):
    (tmp_path / "data").mkdir(exist_ok=True)
    for f in VLLM.glob("*.json"):
        shutil.copy(f, tmp_path / "data" / f.name)
    spec = tmp_path / "spec.cmp"
    spec.write_text(SPEC.replace("BILLED", billed).replace("NORMALIZE", normalize))
    out = tmp_path / "out"
    outcome = build_spec(str(spec), out_dir=str(out))
    assert outcome.code == 0, outcome.diagnostics
    return json.loads((out / "results.json").read_text()), out


def test_cost_uses_the_billed_gpus_and_per_gpu_the_used(tmp_path):
    results, _ = build(tmp_path)
    tp8, tp4 = results["systems"]["tp8"], results["systems"]["tp4pp2"]
    # per GPU: over the 8 GPUs used, 1865.54 / 8 = 233.19 tok/s/gpu
    assert tp4["at_target"]["throughput_per_gpu"] == pytest.approx(TP4PP2_TOTAL / 8)
    assert tp4["gpus"] == 8
    cost = tp4["cost"]
    assert (cost["gpus_billed"], cost["gpus_used"]) == (16, 8)
    assert cost["usd_per_gpu_hour"] == 2.0 and cost["usd_per_used_gpu_hour"] == 4.0
    # $2.00 x 16 GPU-hours / (1865.54 tok/s x 3600 s) = $4.7648 per million tokens
    assert cost["usd_per_million_tokens"] == pytest.approx(2.0 * 16 / (TP4PP2_TOTAL * 3600) * 1e6)
    assert cost["usd_per_million_tokens"] == pytest.approx(4.76478, abs=1e-5)
    assert tp8["cost"]["usd_per_million_tokens"] == pytest.approx(3.28933, abs=1e-5)
    head = results["headline"]
    assert head["per_gpu_throughput_ratio"] == pytest.approx(TP4PP2_TOTAL / TP8_TOTAL)  # 1.381
    assert head["price_ratio"] == pytest.approx(2.0)  # per used GPU-hour: $4.00 / $2.00
    assert head["cost_ratio"] == pytest.approx(2.0 / (TP4PP2_TOTAL / TP8_TOTAL))  # 1.449
    assert head["cost_winner"] == "tp8"  # the per-GPU winner loses on cost


def test_without_billed_gpus_every_gpu_used_is_billed(tmp_path):
    results, _ = build(tmp_path, billed="")
    cost = results["systems"]["tp4pp2"]["cost"]
    assert (cost["gpus_billed"], cost["gpus_used"], cost["usd_per_used_gpu_hour"]) == (8, 8, 2.0)
    assert results["headline"]["cost_ratio"] == pytest.approx(TP8_TOTAL / TP4PP2_TOTAL)  # 0.724


def test_per_dollar_pays_for_the_billed_gpus(tmp_path):
    results, _ = build(tmp_path, normalize="normalize per dollar")
    tp4 = results["systems"]["tp4pp2"]["at_target"]
    # tokens per dollar: 1865.54 tok/s x 3600 s / ($2.00 x 16 GPUs)
    assert tp4["throughput_per_unit"] == pytest.approx(TP4PP2_TOTAL * 3600 / (2.0 * 16))


def test_sensitivity_follows_the_billed_count(tmp_path):
    results, _ = build(tmp_path)
    rows = [r for r in results["sensitivity"]["rows"] if r["parameter"] == "utilization"]
    assert rows, results["sensitivity"]
    for row in rows:  # utilization cancels: every alternative has the same cost ratio
        assert row["cost_ratio"] == pytest.approx(2.0 / (TP4PP2_TOTAL / TP8_TOTAL))


def test_the_report_states_both_counts(tmp_path):
    _, out = build(tmp_path)
    report = (out / "report.md").read_text()
    # side by side: tp8 (the baseline) states no billed count of its own
    assert "| GPUs billed (cost and per-dollar figures) | n/a | 16 |" in report
    assert "| tp4pp2 | GPUs billed | 16 billed, 8 used |" in report
    assert (
        "- tp4pp2 is billed for 16 GPUs and runs on 8: $4.00 per used GPU-hour = $2.00 × 16"
        in report
    )
    footnote = next(line for line in report.splitlines() if line.startswith("[^price]:"))
    assert "billed for 16 GPUs, runs on 8: $4.00 per used GPU-hour" in footnote
    assert "At the declared prices: 2.000 / 1.381 = 1.449, 44.9% higher." in footnote
    rows = {r["id"]: r for r in csv.DictReader((out / "figures.csv").open())}
    assert rows["tp4pp2.gpus_billed"]["value"] == "16"
    assert rows["tp4pp2.price_per_used_gpu_hour"]["value"] == "4.0"
