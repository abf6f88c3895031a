"""`cmpc sweep --metric M --at X`: targets on the sweep's latency axis, with their units.

On real files: vLLM's own `vllm bench sweep` output (conformance fixture, TTFT and e2el axes)
and InferenceX's TPU rows (TPOT, read in ms and in tok/s/user).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmpc.cli import main
from cmpc.verbs.sweep import parse_targets, run_sweep

from .conftest import INFERENCEX

SWEEP = (
    Path(__file__).resolve().parents[2] / "conformance/fixtures/vllm-sweep/0.33.0/sweep-ttft-conc"
)
RUNS = sorted(str(p) for p in SWEEP.glob("*/run=*.json"))
TPU = str(INFERENCEX / "tpu-manual-sweep.json")


def _doc(**kw) -> dict:
    outcome = run_sweep(kw.pop("files", RUNS), gpus=kw.pop("gpus", 1), as_json=True, **kw)
    assert outcome.code == 0, outcome.diagnostics
    return json.loads(outcome.stdout)


@pytest.mark.parametrize("metric", ["ttft", "e2el"])
def test_a_duration_reads_along_the_latency_between_two_knots(metric: str) -> None:
    doc = _doc(metric=metric, method="linear")
    lo, hi = sorted(p["latency_ms"] for p in doc["frontier"])
    mid = (lo + hi) / 2
    (read,) = _doc(metric=metric, at=[f"{mid!r}ms"], method="linear")["reads"]
    assert read["reachable"] and read["bound"] is None
    assert read["target_latency_ms"] == mid and read["target_tok_s_user"] is None
    (k0, k1) = sorted(read["knots"], key=lambda k: k["latency_ms"])
    # linear along the latency, not along 1 / latency
    share = (mid - k0["latency_ms"]) / (k1["latency_ms"] - k0["latency_ms"])
    expected = k0["throughput_per_gpu"] + share * (
        k1["throughput_per_gpu"] - k0["throughput_per_gpu"]
    )
    assert read["throughput_per_gpu"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("metric", ["ttft", "e2el"])
def test_seconds_and_milliseconds_are_the_same_target(metric: str) -> None:
    front = _doc(metric=metric)["frontier"]
    at = max(p["latency_ms"] for p in front)  # the slowest frontier point: read as measured
    in_ms = _doc(metric=metric, at=[f"{at!r}ms"])["reads"][0]
    in_s = _doc(metric=metric, at=[f"{at / 1000!r}s"])["reads"][0]
    assert in_s["throughput_per_gpu"] == in_ms["throughput_per_gpu"]
    assert in_ms["throughput_per_gpu"] == max(p["throughput_per_gpu"] for p in front)


def test_one_at_lists_several_targets_in_order() -> None:
    reads = _doc(metric="ttft", at=["30ms,0.05s", "1 s"])["reads"]
    assert [r["target"] for r in reads] == ["30ms", "0.05s", "1 s"]
    assert [r["target_latency_ms"] for r in reads] == [30.0, 50.0, 1000.0]
    assert [r["reachable"] for r in reads] == [False, True, True]  # below every TTFT: unreachable
    assert reads[1]["bound"] == "lower"


def test_a_tpot_axis_reads_ms_and_tok_s_user_at_the_same_points() -> None:
    """20 ms is 50 tok/s/user: the same knots; between them each reads along its own axis."""
    by_ms = _doc(files=[TPU], where=["tp=8"], at=["20ms"], gpus=None)["reads"][0]
    by_rate = _doc(files=[TPU], where=["tp=8"], at=["50tok/s/user"], gpus=None)["reads"][0]
    bare = _doc(files=[TPU], where=["tp=8"], at=[50], gpus=None)["reads"][0]
    assert by_rate == bare | {"target": "50tok/s/user"}
    assert by_ms["target_tok_s_user"] == 50.0 and by_ms["target_latency_ms"] == 20.0
    assert [k["concurrency"] for k in by_ms["knots"]] == [k["concurrency"] for k in bare["knots"]]
    assert by_ms["throughput_per_gpu"] == pytest.approx(bare["throughput_per_gpu"], rel=0.02)


@pytest.mark.parametrize(
    ("metric", "at", "says"),
    [
        ("ttft", "20tok/s/user", "is an interactivity, and a ttft axis is not per token"),
        ("e2el", "50", "has no unit: a e2el axis takes a duration"),
        ("ttft", "4req/s", "is a request rate (req/s): not a latency or an interactivity"),
        ("tpot", "5parsec", "has an unknown unit `parsec`"),
        ("tpot", "0ms", "is not a positive target"),
        ("tpot", "-20ms", "is not a positive target"),
        ("tpot", "fast", "is not a number with a unit"),
    ],
)
def test_a_target_that_does_not_fit_the_axis_is_e411(metric: str, at: str, says: str) -> None:
    _, problems = parse_targets([at], metric)
    (problem,) = problems
    assert problem.code == "E411" and says in problem.message
    assert run_sweep(RUNS, metric=metric, at=[at]).code == 2


def test_an_unknown_metric_is_e411() -> None:
    outcome = run_sweep(RUNS, metric="itl", at=["20ms"])
    assert outcome.code == 2 and [d.code for d in outcome.diagnostics] == ["E411"]


def test_the_cli_takes_units(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sweep", *RUNS, "--gpus", "1", "--metric", "ttft", "--at", "0.05s"])
    out = capsys.readouterr().out
    assert code == 0
    assert "latency = median TTFT (ms)" in out
    assert any(line.split()[:2] == ["0.05s", ">="] for line in out.splitlines())
    assert main(["sweep", *RUNS, "--gpus", "1", "--metric", "ttft", "--at", "20tok/s/user"]) == 2
