"""The reduction describes only the metrics its points read: the same points, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmpc import metrics
from cmpc.ingest import reduce as ingest
from cmpc.ingest.cache import _encoded_body

ORACLE = Path(__file__).resolve().parents[2].parent / "shared" / "oracle"
FILES = [
    ("vllm", "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"),
    (
        "vllm",
        "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json",
    ),
    ("aiperf", "aiperf/aiperf-examples-run1__profile_export.jsonl"),
    ("llmperf", "llmperf/llmperf-leaderboard__individual_fireworks_70b.json"),
    ("guidellm", "guidellm/graz-vllm-benchmark__benchmarks.json"),
    (
        None,
        "genai-bench/genaibench-regression_main_branch__D100_100_text-to-text_num_concurrency_1_time_120s.json",
    ),
]
TASKS = [
    dict(metric="tpot", statistics=("median", "p90", "p99")),
    dict(metric="ttft", statistics=("mean", "p50"), limits=(("p99", "e2el"), ("p90", "tpot"))),
    dict(metric="e2el", statistics=("p95",), slos=(("ttft", 2.0),), resamples=40, seed=3),
    dict(metric="e2e_per_token", statistics=("p99",), limits=(("p75", "ttft"),), resamples=30),
]


@pytest.mark.parametrize("fmt, name", FILES)
@pytest.mark.parametrize("kind", range(len(TASKS)))
def test_points_equal_those_of_every_metric_described(fmt, name, kind, monkeypatch):
    path = ORACLE / name
    task = ingest.Task(str(path), name, fmt, (), root=str(ORACLE), **TASKS[kind])  # type: ignore[arg-type]
    described = []
    # the module as reduce.py holds it (a lazy stand-in keeps its own copy of the names)
    real = ingest.run_metrics.summarize

    def spy(*args, **kwargs):
        described.append(kwargs.get("described"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest.run_metrics, "summarize", spy)
    fewer, problems = ingest._reduce(task, lambda: "0" * 64)
    assert fewer.runs >= 1 and not problems
    assert described and all(d == {task.metric, *(m for _, m in task.limits)} for d in described)

    monkeypatch.setattr(
        ingest.run_metrics, "summarize", lambda *a, described=None, **k: real(*a, **k)
    )
    every, _ = ingest._reduce(task, lambda: "0" * 64)
    assert _encoded_body(fewer) == _encoded_body(every)
    assert fewer == every


def test_only_the_described_metrics_get_statistics_and_every_sample_is_kept():
    from cmpc import traces

    path = ORACLE / FILES[0][1]
    run = traces.load_runs(str(path), format="vllm")[0][0]
    full = metrics.summarize(run, percentiles=("90",))
    some = metrics.summarize(run, percentiles=("90",), described={"tpot"})
    assert some.stats["tpot"] == full.stats["tpot"]
    assert all(some.stats[m] is None for m in ("ttft", "e2el", "e2e_per_token"))
    assert full.stats["ttft"] is not None
    assert some.samples.keys() == full.samples.keys()
    assert some.throughputs == full.throughputs and some.tokens == full.tokens


def test_cdf_quantiles_are_the_same_in_any_order_and_never_negative_zero():
    """A tie of -0.0 and 0.0 (a hostile file's) gave either zero at a rank, by the samples'
    order, which describing a metric first changes (review of s9file: the bytes then hung on
    the spec's metric)."""
    import numpy as np

    from cmpc.traces.table import Requests, Run

    n = 9
    ttft = np.where(np.arange(n) % 2, 0.0, -0.0)
    found = []
    for metric in ("e2el", "ttft"):  # ttft's samples partitioned by describe first, or not
        e2el = ttft + np.arange(1, n + 1.0)
        req = Requests(
            ok=np.ones(n, bool), ttft=ttft.copy(), e2el=e2el, output_tokens=np.full(n, 5.0)
        )
        run = Run("x", "vllm", 0, {}, requests=req, duration_s=10.0)
        task = ingest.Task("x", "x", "vllm", (), metric, ("p90",))
        found.append(ingest.reduce_runs([run], task)["p90"][0].quantiles["ttft"])
    assert found[0] == found[1]
    assert all(v == 0 and np.copysign(1.0, v) > 0 for v in found[0])
