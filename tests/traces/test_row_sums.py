"""vLLM files without `latencies`: a build needs each request's sum of gaps, never all gaps."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from cmpc.traces import jsonscan, load_runs


def vllm_file(tmp_path: Path, requests: int, gaps: int, seed: int = 3, **edit) -> Path:
    """A synthetic (seeded) vLLM `--save-detailed` file without `latencies`."""
    rng = np.random.default_rng(seed)
    itls = rng.gamma(4.0, 0.005, (requests, gaps)).round(6).tolist()
    for (row, col), value in edit.get("gap", {}).items():
        itls[row][col] = value
    itls[1] = []  # a request with one output token has no gaps
    doc = {
        "backend": "vllm",
        "model_id": "synthetic",
        "duration": 100.0,
        "completed": requests,
        "failed": 0,
        "request_throughput": requests / 100.0,
        "input_lens": [512] * requests,
        "output_lens": [len(row) + 1 for row in itls],
        "ttfts": rng.gamma(2.0, 0.05, requests).round(6).tolist(),
        "itls": itls,
        "errors": edit.get("errors", [""] * requests),
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_row_sums_are_the_sums_of_the_parsed_rows_bit_for_bit(tmp_path):
    path = vllm_file(tmp_path, 3000, 400)  # several 4 MiB pieces
    _, arrays = jsonscan.load(str(path), ("itls",))
    _, summed = jsonscan.load(str(path), sums=("itls",))
    rows, sums = arrays["itls"], summed["itls"]
    assert isinstance(sums, jsonscan.RowSums) and sums.negative == ()
    assert np.array_equal(sums.counts, rows.counts)
    expected = np.array([sum(row) for row in json.loads(path.read_text())["itls"]])
    assert np.allclose(sums.sums, expected, rtol=1e-12, atol=0)
    (full,), _ = load_runs(str(path), format="vllm", gaps=True)
    (light,), _ = load_runs(str(path), format="vllm", gaps=False)
    assert light.requests.gaps is None and full.requests.gaps is not None
    assert np.array_equal(light.requests.e2el, full.requests.e2el)  # same additions
    assert light.requests.e2el_reconstructed and full.requests.e2el_reconstructed


def test_a_build_without_gaps_holds_the_rows_not_the_numbers(tmp_path, monkeypatch):
    path = vllm_file(tmp_path, 3000, 1000)  # 3e6 gaps: 24 MB as float64
    monkeypatch.setattr(jsonscan, "PIECE", 1 << 18)  # what one piece holds is then small
    tracemalloc.start()
    try:
        (run,), problems = load_runs(str(path), format="vllm", gaps=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not problems and run.requests.e2el is not None
    assert peak < 0.25 * 3e6 * 8, f"peak {peak / 1e6:.1f} MB"


@pytest.mark.parametrize("gaps", [True, False])
def test_a_negative_gap_of_a_served_request_is_e308_either_way(tmp_path, gaps):
    path = vllm_file(tmp_path, 50, 20, gap={(7, 3): -0.25})
    runs, problems = load_runs(str(path), format="vllm", gaps=gaps)
    assert runs == [] and [(p.code, p.message, p.record) for p in problems] == [
        ("E308", "request 7 has chunks out of order (a gap of -0.25 s)", "request 7")
    ]


@pytest.mark.parametrize("gaps", [True, False])
def test_a_negative_gap_of_a_failed_request_is_dropped_with_it(tmp_path, gaps):
    errors = [""] * 50
    errors[7] = "timeout"
    path = vllm_file(tmp_path, 50, 20, gap={(7, 3): -0.25}, errors=errors)
    (run,), problems = load_runs(str(path), format="vllm", gaps=gaps)
    assert [p.code for p in problems if p.code == "E308"] == []
    assert int(run.requests.ok.sum()) == 49
