"""`cmpc compare A B`: a first answer from two run files, and the spec that reproduces it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cmpc.cli import main
from cmpc.verbs.compare import CompareRequest, build_equivalent, equivalent_spec

SHARED = Path(__file__).resolve().parents[3] / "shared"

ORACLE = SHARED / "oracle" / "vllm"
TP4PP2 = ORACLE / "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json"
TP8 = ORACLE / "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"


def by_hand(path: Path, gpus: int) -> tuple[float, float]:
    """Total tokens per second per GPU, and 1 / median TPOT, from the file's own fields."""
    run = json.loads(path.read_text())
    total = sum(run["input_lens"]) + sum(run["output_lens"])
    return total / run["duration"] / gpus, 1000.0 / run["median_tpot_ms"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_llmk8s_headline_is_right(capsys):
    """Done when: `cmpc compare` on the two llmk8s vLLM files with `--gpus 8` prints a correct
    headline. By hand from the files: TP4xPP2 (42,659 + 42,444) tokens / 45.618 s / 8 = 233.19
    tok/s/gpu; TP8 (42,659 + 42,449) / 62.988 s / 8 = 168.90; 233.19 / 168.90 = 1.381, 38.1%
    more; vLLM's own total_token_throughput (1865.54 and 1351.17 tok/s) agrees."""
    a, a_user = by_hand(TP4PP2, 8)
    b, b_user = by_hand(TP8, 8)
    published = (
        json.loads(TP4PP2.read_text())["total_token_throughput"]
        / json.loads(TP8.read_text())["total_token_throughput"]
    )
    assert a / b == pytest.approx(published, rel=1e-9)
    code, out, err = run(capsys, "compare", str(TP4PP2), str(TP8), "--gpus", "8")
    assert code == 0, err
    percent = f"{(a / b - 1) * 100:.1f}%"
    assert percent == "38.1%"
    # the headline from runs carries its bootstrap interval (issue 16)
    assert out.startswith(f"a delivers {percent} more (95% CI ")
    assert "[^ci] total tokens per GPU[^tokens],[^norm] than b" in out.splitlines()[0]
    # one run each: "at its measured load" (issue 14), with the rates, then the interactivities
    assert f"(all requests at once vs 4 req/s; {a_user:.2f} vs {b_user:.2f} tok/s per user" in out
    assert f"throughput ratio a / b: x{a / b:.4g}" in out
    assert f"a                 1     8  {a:>20.1f}" in out
    assert "[^tokens]: Counted tokens: input + output" in out  # the cited footnotes follow
    assert "warning[W515]" in err  # the same warning a spec build gives: different loads


def test_a_ttft_comparison_shows_the_latency_not_tok_s_user(capsys):
    """`--metric ttft --statistic p99`: the table's axis column is vLLM's own p99_ttft_ms of
    each file (1,213.8 and 67.56 ms), not 1 / TTFT as "tok/s/user"."""
    argv = ["compare", str(TP4PP2), str(TP8), "--gpus", "8", "--metric", "ttft"]
    code, out, err = run(capsys, *argv, "--statistic", "p99")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("side"))
    assert "P99 TTFT ms" in header and "tok/s/user" not in header
    rows = [line.split() for line in out.splitlines() if line.startswith(("a    ", "b (baseline)"))]
    shown = [float(r[-2].replace(",", "")) for r in rows]
    published = [json.loads(p.read_text())["p99_ttft_ms"] for p in (TP4PP2, TP8)]
    assert shown == [pytest.approx(v, abs=0.05) for v in published]


def test_a_ttft_target_shows_the_latency_each_side_was_read_at(capsys):
    """`--target "500 ms"` on P90 TTFT: TP8's every request set is faster (its P90 TTFT,
    numpy's linear quantile of the file's own ttfts, 62.17 ms), so its read is a lower bound
    shown at the latency it was measured at, not n/a; TP4xPP2 (P90 about 1.2 s) misses it."""
    argv = ["compare", str(TP4PP2), str(TP8), "--gpus", "8", "--metric", "ttft"]
    code, out, err = run(capsys, *argv, "--statistic", "p90", "--target", "500 ms")
    assert code == 0, err
    rows = {r[0]: r for r in (line.split() for line in out.splitlines()) if r and r[0] in "ab"}
    p90 = float(np.quantile(json.loads(TP8.read_text())["ttfts"], 0.9)) * 1000
    assert round(p90, 2) == 62.17
    assert rows["b"][-2] == f"{p90:.2f}" and rows["b"][-3] == "168.9"
    assert rows["a"][-3] == "n/a"  # unreachable: no throughput


def test_saved_spec_checks_clean_and_builds_to_the_same_numbers(tmp_path, capsys, monkeypatch):
    """Done when: its `--save-spec` output builds to the same numbers."""
    for path in (TP4PP2, TP8):
        shutil.copy(path, tmp_path / path.name.split("__")[1])
    monkeypatch.chdir(tmp_path)
    argv = ["compare", "*tp4_pp2*.json", "*tp8_pp1*.json", "--gpus", "8"]
    code, out, err = run(
        capsys, *argv, "--price-a", "2.00", "--price-b", "2.50", "--save-spec", "first.cmp"
    )
    assert code == 0, err
    text = Path("first.cmp").read_text()
    assert text.count("TODO") >= 5 and 'runs "*tp4_pp2*.json" format vllm' in text
    assert run(capsys, "fmt", "--check", "first.cmp")[0] == 0
    code, _, err2 = run(capsys, "check", "first.cmp")
    assert code == 0 and err2 == ""
    assert run(capsys, "build", "first.cmp", "-o", "built", "--quiet")[0] == 0
    built = json.loads(Path("built/results.json").read_text())
    request = CompareRequest(
        "*tp4_pp2*.json", "*tp8_pp1*.json", 8, 8, price_a="2.00", price_b="2.50"
    )
    spec, folder, problems = equivalent_spec(request, None)
    assert not problems and spec == text.replace("\r", "")
    results, _, _ = build_equivalent(spec, folder / "compare.cmp")
    assert results is not None
    for key in ("headline", "comparisons", "systems", "inputs", "conditions"):
        assert built[key] == results[key], key
    a, _ = by_hand(TP4PP2, 8)
    b, _ = by_hand(TP8, 8)
    assert built["headline"]["throughput_ratio"] == pytest.approx(a / b, rel=1e-12)
    assert built["headline"]["cost_ratio"] == pytest.approx((2.00 / a) / (2.50 / b), rel=1e-12)
    assert f"cost-per-token ratio: x{(2.00 / a) / (2.50 / b):.4g}" in out
    # never over an existing file
    code, _, err = run(capsys, *argv, "--save-spec", "first.cmp")
    assert code == 2 and "E090" in err


def test_facts_it_cannot_do_without(tmp_path, capsys, monkeypatch):
    code, _, err = run(capsys, "compare", str(TP4PP2), str(TP8))
    assert code == 2 and "E804" in err and "--gpus" in err
    code, _, err = run(capsys, "compare", "nothing*.json", str(TP8), "--gpus", "8")
    assert code == 2 and "matches no file" in err
    code, _, err = run(capsys, "compare", str(TP4PP2), str(TP8), "--gpus", "8", "--target", "50 }")
    assert code == 2 and "--target 50 }" in err  # never pasted into a spec
    code, _, err = run(capsys, "compare", str(TP4PP2), str(TP8), "--gpus", "8", "--price-a", "2")
    assert code == 2 and "one side only" in err
    monkeypatch.chdir(tmp_path)
    code, _, err = run(
        capsys, "compare", str(TP4PP2), str(TP8), "--gpus", "8", "--save-spec", "x.cmp"
    )
    assert code == 2 and "not under the spec's folder" in err and not Path("x.cmp").exists()


def test_a_target_and_per_side_gpus(capsys):
    """--gpus-a 16 halves side a's per-GPU throughput; the target is read as a spec would."""
    a16, _ = by_hand(TP4PP2, 16)
    b, _ = by_hand(TP8, 8)
    code, out, err = run(
        capsys, "compare", str(TP4PP2), str(TP8), "--gpus-a", "16", "--gpus-b", "8"
    )
    assert code == 0, err
    assert f"throughput ratio a / b: x{a16 / b:.4g}" in out
    code, out, _ = run(
        capsys, "compare", str(TP4PP2), str(TP8), "--gpus", "8", "--target", "20 tok/s/user"
    )
    assert code == 0
    assert "No headline ratio at 20 tok/s per user" in out and "a does not reach the target" in out
