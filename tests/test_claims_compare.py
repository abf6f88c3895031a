"""`claim ... compare_to`: the claim beside the named system's figure, at the same scope."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_source
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[1]
VLLM = REPO.parent / "shared" / "oracle" / "vllm"
# the TP8 run's own summary: total_token_throughput 1351.170924879084 tok/s on 8 GPUs
TP8_PER_GPU = 1351.170924879084 / 8

SPEC = """comparison "Llama 70B: TP8 vs TP4 x PP2, beside a published claim" {
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
    power 400 W basis tdp
    gpus_per_rack 32
    runs "data/*tp8*.json" format vllm
  }
  system tp4pp2 {
    accelerator "A100" x 8
    nodes 2
    parallel tp 4 pp 2
    price 2.00 USD/gpu/h basis assumed
    power 400 W basis tdp
    gpus_per_rack 32
    runs "data/*tp4*.json" format vllm
  }
  claim node_day {
    value 1e9 tokens/day
    scope node
    gpus 8
    nodes 1
    about "tokens served per day by one 8-GPU node (an illustrative figure)"
    compare_to tp8
  }
}
"""


def build(tmp_path: Path, normalize: str):
    (tmp_path / "data").mkdir()
    for f in VLLM.glob("*.json"):
        shutil.copy(f, tmp_path / "data" / f.name)
    spec = tmp_path / "spec.cmp"
    spec.write_text(SPEC.replace("NORMALIZE", normalize))
    outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    return results, (tmp_path / "out" / "report.md").read_text()


def test_a_claim_is_compared_per_gpu_with_the_named_system(tmp_path):
    results, report = build(tmp_path, "normalize per gpu")
    (claim,) = results["claims"]
    cw = claim["compared_with"]
    # 1e9 tokens/day = 11,574.07 tok/s per node = 1,446.76 tok/s per GPU of the node
    assert cw["claim_value"] == pytest.approx(1e9 / 86400 / 8)
    assert cw["system_value"] == pytest.approx(TP8_PER_GPU)
    assert cw["ratio"] == pytest.approx(1e9 / 86400 / 8 / TP8_PER_GPU)  # 8.566
    assert (cw["scope"], cw["unit"], cw["system_tokens"]) == ("gpu", "tok/s/gpu", "input + output")
    assert (
        "Beside tp8 (`compare_to`), per GPU: the claim's 1,446.8 tok/s/gpu is 8.566× tp8's "
        "168.9 tok/s/gpu. The claim does not say which tokens it counts; tp8's figure counts "
        "input + output tokens"
    ) in report


def test_per_node_compares_per_node(tmp_path):
    results, _ = build(tmp_path, "normalize per node")
    cw = results["claims"][0]["compared_with"]
    assert cw["scope"] == "node"
    assert cw["claim_value"] == pytest.approx(1e9 / 86400)
    assert cw["system_value"] == pytest.approx(TP8_PER_GPU * 8)


@pytest.mark.parametrize("normalize", ["normalize per dollar", "normalize per rack"])
def test_per_dollar_and_per_rack_compare_per_gpu(tmp_path, normalize):
    results, _ = build(tmp_path, normalize)
    cw = results["claims"][0]["compared_with"]
    assert cw["scope"] == "gpu" and cw["ratio"] == pytest.approx(1e9 / 86400 / 8 / TP8_PER_GPU)


E116_CASES = [
    (
        "normalize per gpu",
        "claim `node_day` is per node but is compared per GPU",
        ("a per-GPU figure is the node's figure divided by the GPUs in the node",),
    ),
    (
        "normalize per dollar",
        "claim `node_day` is per node; with `normalize per dollar` it is compared per GPU",
        (
            "a claim states no price, so it is never compared per dollar: cmpc compares its "
            "per-GPU rate with the system's per-GPU throughput",
            "a per-GPU figure is the node's figure divided by the GPUs in the node",
        ),
    ),
    (
        "normalize per mw\n  power_basis tdp",
        "claim `node_day` is per node; with `normalize per mw` it is compared per GPU",
        None,
    ),
]


@pytest.mark.parametrize(("normalize", "message", "notes"), E116_CASES)
def test_e116_is_written_per_normalization(normalize, message, notes):
    text = SPEC.replace("NORMALIZE", normalize).replace("    gpus 8\n", "")
    _, diagnostics = compile_source(SourceFile("spec.cmp", text))
    e116 = [d for d in diagnostics if d.code == "E116"]
    assert [d.message for d in e116] == [message], diagnostics
    assert e116[0].label == "needs the number of GPUs in the node (`gpus`)"
    if notes is not None:
        assert e116[0].notes == notes
    assert "a conversion" not in str(e116[0]) and "dollars in the" not in str(e116[0])


def test_a_gpu_scoped_claim_is_no_e116_under_per_dollar():
    text = SPEC.replace("NORMALIZE", "normalize per dollar").replace("scope node", "scope gpu")
    _, diagnostics = compile_source(SourceFile("spec.cmp", text))
    assert "E116" not in {d.code for d in diagnostics}
