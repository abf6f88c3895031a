"""Per-node and per-rack normalization: a system's throughput over its nodes, held to its GPUs.

Issue 14: with `nodes 2` and `gpus_per_node 8` on a TP4 x PP2 system of 8 GPUs, the headline
said "38.1% more tokens per node" (per GPU x 8, as if one node); the truth is 31% fewer.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from cmpc.analysis.economics import scale
from cmpc.analysis.hardware import gpu_count
from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_source
from cmpc.source import SourceFile

REPO = Path(__file__).resolve().parents[2]
VLLM = REPO.parent / "shared" / "oracle" / "vllm"
SPEC = REPO / "specs" / "llama70b-a100-tp8-vs-tp4pp2.cmp"
TP8 = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"
TP4PP2 = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json"


def _spec(tmp_path: Path, normalize: str, tp4pp2_hardware: str) -> Path:
    """The real TP8 vs TP4 x PP2 spec over the shared vLLM outputs, renormalized."""
    (tmp_path / "data").mkdir(exist_ok=True)
    for name in (TP8, TP4PP2):
        shutil.copy(VLLM / name, tmp_path / "data" / name)
    text = SPEC.read_text(encoding="utf-8")
    text = text.replace("normalize per gpu", normalize)
    text = text.replace('"data/llama70b/tp8_*.json"', '"data/*tp8_pp1*.json"')
    text = text.replace('"data/llama70b/tp4_*.json"', '"data/*tp4_pp2*.json"')
    assert text.count("    nodes 2\n") == 1
    text = text.replace("    nodes 2\n", f"    nodes 2\n{tp4pp2_hardware}")
    path = tmp_path / "spec.cmp"
    path.write_text(text, encoding="utf-8")
    return path


def _total_throughput(name: str) -> float:
    return float(json.loads((VLLM / name).read_text(encoding="utf-8"))["total_token_throughput"])


def _codes(path: Path) -> list[str]:
    _, diagnostics = compile_source(SourceFile(path.name, path.read_text(encoding="utf-8")))
    return [d.code for d in diagnostics if d.code.startswith("E")]


@pytest.mark.parametrize("hardware", ["    gpus_per_node 4\n", ""], ids=["declared", "implied"])
def test_per_node_is_the_system_throughput_over_its_nodes(tmp_path, hardware):
    outcome = build_spec(
        str(_spec(tmp_path, "normalize per node", hardware)),
        out_dir=str(tmp_path / "out"),
        sets=[],
        render=False,
    )
    assert outcome is not None
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    tp8 = results["systems"]["tp8"]["at_target"]
    split = results["systems"]["tp4pp2"]["at_target"]
    # 1 node running all 8 GPUs; 2 nodes running 4 GPUs each
    assert tp8["throughput_per_unit"] == pytest.approx(_total_throughput(TP8) / 1, rel=1e-12)
    assert split["throughput_per_unit"] == pytest.approx(_total_throughput(TP4PP2) / 2, rel=1e-12)
    assert split["throughput_per_unit"] == pytest.approx(split["throughput_per_gpu"] * 4)
    assert split["throughput_per_unit"] == pytest.approx(932.769, abs=1e-3)
    assert tp8["throughput_per_unit"] == pytest.approx(1351.171, abs=1e-3)
    # 932.77 / 1351.17 = 0.690: 31% fewer tokens per node, while per GPU it is 38.1% more
    assert results["headline"]["throughput_change"] == pytest.approx(-0.30966, abs=1e-5)
    assert results["headline"]["per_gpu_throughput_ratio"] == pytest.approx(1.38068, abs=1e-5)


def test_gpus_per_node_that_overcounts_the_gpus_is_E125(tmp_path):
    """Two 8-GPU nodes running TP4 x PP2 run 4 GPUs each: `gpus_per_node 8` claims 16."""
    assert _codes(_spec(tmp_path, "normalize per node", "    gpus_per_node 8\n")) == ["E125"]


def test_per_rack_without_gpus_per_rack_is_E126_naming_the_key(tmp_path):
    path = _spec(tmp_path, "normalize per rack", "")
    _, diagnostics = compile_source(SourceFile(path.name, path.read_text(encoding="utf-8")))
    errors = [d for d in diagnostics if d.code.startswith("E")]
    assert [d.code for d in errors] == ["E126", "E126"]
    assert all("`gpus_per_rack`" in d.message for d in errors)


SYSTEM_SPEC = """comparison "A vs B" {{
  baseline b
  source s {{ role third_party; snapshot 2026-10-09 }}
  latency {{ metric tpot; statistic p90; target 50 tok/s/user }}
  normalize per node
  system a {{
    accelerator "X" x {gpus}
    nodes {nodes}
    gpus_per_node {per_node}
    parallel tp {tp} pp {pp}
    cache_hit_rate unknown
    reported {{ source s; statistic p90; ratio 1.2 to b }}
  }}
  system b {{
    accelerator "Y" x 8
    parallel tp 8
    cache_hit_rate unknown
    reported {{ source s; statistic p90; ratio 1 }}
  }}
}}
"""


@settings(max_examples=60, deadline=None)
@given(
    tp=hs.sampled_from([1, 2, 4, 8]),
    pp=hs.sampled_from([1, 2, 4]),
    data=hs.data(),
    per_gpu=hs.floats(1.0, 1e5),
)
def test_per_node_is_per_gpu_times_gpus_per_node_whenever_check_passes(tp, pp, data, per_gpu):
    gpus = tp * pp
    nodes = data.draw(hs.sampled_from([n for n in range(1, gpus + 1) if gpus % n == 0]))
    # mostly consistent layouts, sometimes a node size that over- or under-counts the GPUs
    per_node = max(1, gpus // nodes + data.draw(hs.sampled_from([0, 0, 0, 1, -1, gpus])))
    text = SYSTEM_SPEC.format(gpus=gpus, nodes=nodes, per_node=per_node, tp=tp, pp=pp)
    comparison, diagnostics = compile_source(SourceFile("p.cmp", text))
    errors = [d.code for d in diagnostics if d.code.startswith("E")]
    if nodes * per_node != gpus:
        assert errors == ["E125"]
        return
    assert errors == [] and comparison is not None
    system = next(s for s in comparison.systems if s.name == "a")
    factor = scale(system, "node", None, 1.0)
    assert factor is not None and gpu_count(system) == gpus
    assert per_gpu * factor == pytest.approx(per_gpu * per_node, rel=1e-12)
    assert per_gpu * factor == pytest.approx(per_gpu * gpus / nodes, rel=1e-12)
