"""A headline ratio with exactly one bounded side gets a one-sided bound from the replicates,
in the direction the bound allows; a ratio of two bounds gets none.

Worked example over the benchmark's sweep (benchmarks/build.py's generator, seed 7, 10^6
tokens, SYNTHETIC): at 20 tok/s per user every run of alpha is faster than the target, so its
read is a lower bound (836.8 tok/s/gpu, its best run) and alpha / beta = 0.620 is a lower
bound: "at most 38.0% fewer". Its one-sided 95% bound is the 5% quantile of the replicates'
ratios, recomputed here with numpy from the replicates the build used; the cost ratio at the
declared prices is then an upper bound, with the 95% quantile of its replicates.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from cmpc.analysis import intervals, uncertainty
from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_spec
from cmpc.compute.percentile import one_sided_bound
from cmpc.files import read_source
from tests.loaded import script_module

from .builds import SPECS, build

REPO = Path(__file__).resolve().parents[2]
TARGET = "latency.target=20 tok/s/user"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The benchmark's seeded sweep, 10^6 tokens (SYNTHETIC)."""
    root = tmp_path_factory.mktemp("bench")
    script_module(REPO / "benchmarks" / "build.py").generate(root, 1_000_000)
    return root / "vllm.cmp"


def _build(spec: Path, out: Path, monkeypatch: pytest.MonkeyPatch, *sets: str) -> dict[str, Any]:
    """Build with a cache of its own; the per-GPU replicate ratios the bound was taken from."""
    seen: list[list[float]] = []
    real = uncertainty.bound_ratio_interval
    real_cost = uncertainty.bound_cost_interval  # the headline's, its price-free part staged

    def spy(comparison, head, empty, ratios):  # type: ignore[no-untyped-def]
        seen.append(list(ratios))
        return real(comparison, head, empty, ratios)

    def spy_cost(comparison, head, price_free, ratios):  # type: ignore[no-untyped-def]
        seen.append(list(ratios))
        return real_cost(comparison, head, price_free, ratios)

    monkeypatch.setattr(uncertainty, "bound_ratio_interval", spy)
    monkeypatch.setattr(intervals, "bound_cost_interval", spy_cost)
    monkeypatch.setenv("CMPC_CACHE_DIR", str(out.parent / f"{out.name}-cache"))
    outcome = build_spec(str(spec), out_dir=str(out), sets=list(sets))
    assert outcome.code == 0, outcome.diagnostics
    rows = csv.DictReader(io.StringIO((out / "figures.csv").read_text()))
    return {
        "results": json.loads((out / "results.json").read_text()),
        "report": (out / "report.md").read_text(),
        "csv": {r["id"]: r for r in rows},
        "ratios": seen[-1] if seen else None,
    }


def test_a_lower_bound_ratio_gets_the_5pc_quantile_of_its_replicates(
    sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _build(sweep, tmp_path / "out", monkeypatch, TARGET)
    head = built["results"]["headline"]
    assert head["bound"] == "lower" and head["throughput_ratio_ci"] is None
    assert built["results"]["systems"]["alpha"]["at_target"]["bound"] == "lower"
    assert built["results"]["systems"]["beta"]["at_target"]["bound"] is None
    ratio, per_gpu = head["throughput_ratio"], head["per_gpu_throughput_ratio"]
    assert round(ratio, 3) == 0.620
    per_gpu_reps = np.asarray(built["ratios"], dtype=float)
    assert per_gpu_reps.size == 2000
    reps = ratio * per_gpu_reps / per_gpu
    expected = float(np.quantile(np.where(np.isfinite(reps), reps, -np.inf), 1 - 0.95))
    assert expected < ratio and head["throughput_ratio_one_sided_ci"] == expected
    # the cost ratio goes as the inverse: an upper bound, the 95% quantile of its replicates
    cost = head["cost_ratio"]
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_reps = cost * per_gpu / per_gpu_reps
    found = float(np.quantile(np.where(np.isfinite(cost_reps), cost_reps, np.inf), 0.95))
    assert found > cost and head["cost_ratio_one_sided_ci"] == found
    assert head["cost_ratio_ci"] is None
    low = head["throughput_ratio_one_sided_ci"]
    assert (
        f"at most 38.0% fewer (one-sided 95%: at most {(1 - low) * 100:.1f}% fewer)[^ci]"
        in built["report"]
    )
    assert "The ratio's interval is one-sided:" in built["report"]
    row = built["csv"]["headline.throughput_ratio_one_sided_low"]
    assert float(row["value"]) == low
    assert (
        float(built["csv"]["headline.cost_ratio_one_sided_high"]["value"])
        == (head["cost_ratio_one_sided_ci"])
    )


def test_a_warm_rebuild_with_another_price_gives_the_fresh_builds_bound(
    sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    price = "system.beta.price=2.40 USD/gpu/h"
    _build(sweep, tmp_path / "cold", monkeypatch, TARGET)
    monkeypatch.setenv("CMPC_CACHE_DIR", str(tmp_path / "cold-cache"))
    outcome = build_spec(str(sweep), out_dir=str(tmp_path / "warm"), sets=[TARGET, price])
    assert outcome.code == 0
    fresh = _build(sweep, tmp_path / "fresh", monkeypatch, TARGET, price)
    warm = json.loads((tmp_path / "warm" / "results.json").read_text())["headline"]
    assert warm == fresh["results"]["headline"]
    assert warm["cost_ratio_one_sided_ci"] is not None


def _head_and_empty(side: str, cost: float | None) -> tuple[Any, Any]:
    """A bound comparison's head (alpha against beta) and its results with no interval yet."""
    head: Any = {
        "system": "alpha",
        "baseline": "beta",
        "bound": side,
        "throughput_ratio": 0.9,
        "per_gpu_throughput_ratio": 1.1,
        "cost_ratio": cost,
    }
    empty: Any = {key: None for key in ("throughput_ratio_ci", "cost_ratio_ci")}
    empty |= {"throughput_ratio_one_sided_ci": None, "cost_ratio_one_sided_ci": None}
    empty |= {"confidence": 0.95, "within_noise": None, "cost_within_noise": None}
    empty |= {"interval_note": None, "interval_basis": None, "interval_assumption": None}
    return head, empty


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize("cost", [None, 1.3])
@pytest.mark.parametrize("holes", [0, 40, 1995])
def test_the_cost_bound_from_a_staged_price_free_part_is_the_full_computation(side, cost, holes):
    """bound_cost_interval takes the throughput's bound from the price-free part and ranks
    only the cost's: the same dict as bound_ratio_interval on the same head and ratios."""
    source, _ = read_source(str(SPECS / "synthetic-sweep.cmp"))
    assert source is not None
    comparison = compile_spec(source, []).comparison
    assert comparison is not None
    rng = np.random.default_rng(holes)
    ratios = rng.uniform(0.5, 1.5, 2000)
    ratios[rng.choice(2000, holes, replace=False)] = np.nan
    head, empty = _head_and_empty(side, cost)
    listed = ratios.tolist()
    price_free = uncertainty.bound_ratio_interval(
        comparison, {**head, "cost_ratio": None}, empty, listed
    )
    full = uncertainty.bound_ratio_interval(comparison, head, price_free, listed)
    assert uncertainty.bound_cost_interval(comparison, head, price_free, listed) == full


def test_an_upper_bound_ratio_on_the_synthetic_sweep(tmp_path: Path) -> None:
    """Every run of beta (the baseline) beats a 10 s P90 e2el: alpha / beta is an upper bound,
    its one-sided bound the 95% quantile, never below the ratio; the cost's the 5% one."""
    sets = ("latency.metric=e2el", "latency.target=10 s")
    results, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "out", *sets)
    head = results["headline"]
    assert head["bound"] == "upper"
    # strictly beyond: nothing clamps them to the ratio any more, and the wrong tail (a 5%
    # quantile for an upper bound) would fall on the ratio's other side and give no bound
    assert head["throughput_ratio_one_sided_ci"] > head["throughput_ratio"]
    assert head["cost_ratio_one_sided_ci"] < head["cost_ratio"]
    assert head["cost_ratio_at_equal_price_one_sided_ci"] < head["cost_ratio_at_equal_price"]
    line = next(line for line in report.splitlines() if line.startswith("**alpha"))
    assert "at least 28.5% fewer (one-sided 95%: at least " in line
    assert "at least 11.8% higher (one-sided 95%: at least " in line


def test_a_ratio_of_two_bounds_gets_no_one_sided_bound(tmp_path: Path) -> None:
    """Below both frontiers both reads are lower bounds: no direction to bound."""
    spec = SPECS / "llama70b-newcomer.cmp"
    results, report, _ = build(spec, tmp_path / "out", "latency.target=5 tok/s/user")
    head = results["headline"]
    assert head["bound"] == "neither"
    assert head["throughput_ratio_one_sided_ci"] is None and head["cost_ratio_one_sided_ci"] is None
    assert "The ratio carries no interval:" in report and "one-sided 95%:" not in report


@pytest.mark.parametrize("seed", range(40))
def test_the_one_sided_bound_is_numpys_quantile_with_gaps_least_favourable(seed: int) -> None:
    """Property, over seeded replicates with gaps (NaN: no read): the bound is numpy's linear
    quantile, bit for bit, a gap counting below every value for a lower bound and above every
    value for an upper one; None where the quantile falls among the gaps."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 400))
    reps = rng.lognormal(0.0, rng.uniform(0.01, 0.5), n)
    reps[rng.random(n) < rng.uniform(0, 0.08)] = np.nan
    for side, fill, q in (("lower", -np.inf, 1 - 0.95), ("upper", np.inf, 0.95)):
        found = one_sided_bound(reps.tolist(), 0.95, side)
        with np.errstate(invalid="ignore"):
            raw = float(np.quantile(np.where(np.isfinite(reps), reps, fill), q))
        assert found == raw if math.isfinite(raw) else found is None


def test_a_bound_beyond_the_ratio_is_none_with_a_note() -> None:
    """Replicates' ratios all above a lower-bound ratio of 1.10 (5% quantile 1.2): a "bound"
    of 1.2 would claim more than the ratio does and read as no uncertainty (the old clamp
    printed 1.10, the ratio itself); the ratio gets no bound and the note says why."""
    comparison = SimpleNamespace(uncertainty=SimpleNamespace(confidence=0.95))
    head = {"bound": "lower", "throughput_ratio": 1.1, "per_gpu_throughput_ratio": 1.1,
            "cost_ratio": 0.8}  # fmt: skip
    empty = {"throughput_ratio_one_sided_ci": None, "cost_ratio_one_sided_ci": None,
             "within_noise": None, "cost_within_noise": None, "interval_note": None,
             "interval_basis": None}  # fmt: skip
    reps = [1.2 + k / 1000 for k in range(100)]
    found = uncertainty.bound_ratio_interval(comparison, head, empty, reps)  # type: ignore[arg-type]
    assert found["throughput_ratio_one_sided_ci"] is None
    assert found["cost_ratio_one_sided_ci"] is None and found["within_noise"] is None
    assert "lies beyond the ratio" in str(found["interval_note"])
    below = [0.9 + k / 1000 for k in range(100)]  # 5% quantile 0.90495: a bound, below 1
    found = uncertainty.bound_ratio_interval(comparison, head, empty, below)  # type: ignore[arg-type]
    assert found["throughput_ratio_one_sided_ci"] == pytest.approx(0.90495)
    assert found["within_noise"] is True


def test_a_one_sided_bound_across_1_is_within_noise(
    sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 62 tok/s per user alpha's read is a lower bound and alpha / beta = 1.058 "at least";
    the 5% quantile of the replicates' ratios is below 1, so the lead is not established: the
    headline is within noise and says so, and no sensitivity row counts as a flip through it.
    The cost ratio (0.756, an upper bound) keeps its 95% quantile below 1: not within noise."""
    built = _build(sweep, tmp_path / "out", monkeypatch, "latency.target=62 tok/s/user")
    head = built["results"]["headline"]
    assert head["bound"] == "lower" and round(head["throughput_ratio"], 3) == 1.058
    ratio, per_gpu = head["throughput_ratio"], head["per_gpu_throughput_ratio"]
    reps = ratio * np.asarray(built["ratios"], dtype=float) / per_gpu
    low = float(np.quantile(np.where(np.isfinite(reps), reps, -np.inf), 0.05))
    assert low < 1 < ratio  # the worked example: the bound crosses 1
    assert head["within_noise"] is True, head
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_reps = head["cost_ratio"] * per_gpu / np.asarray(built["ratios"], dtype=float)
    high = float(np.quantile(np.where(np.isfinite(cost_reps), cost_reps, np.inf), 0.95))
    assert high < 1 and head["cost_within_noise"] is False
    assert (
        "The lead is not established at 95%: the ratio's one-sided bound "
        f"({low:.3f}) does not exclude 1" in built["report"]
    )
    # at equal prices the cost ratio is 1 / the per-GPU ratio: an upper bound, 95% quantile
    with np.errstate(divide="ignore", invalid="ignore"):
        equal_reps = 1.0 / np.asarray(built["ratios"], dtype=float)
    equal = float(np.quantile(np.where(np.isfinite(equal_reps), equal_reps, np.inf), 0.95))
    assert equal > 1 > head["cost_ratio_at_equal_price"]
    assert head["cost_ratio_at_equal_price_one_sided_ci"] == pytest.approx(equal, rel=1e-12)
    assert "at equal prices is at least 5.5% lower (one-sided 95%: at most " in built["report"]
    # the [^ci] note says how a one-sided bound treats replicates without a read
    note = next(line for line in built["report"].splitlines() if line.startswith("[^ci]: "))
    assert "left out of two-sided intervals; a one-sided bound counts them as its least " in note
    rows = built["results"]["sensitivity"]["rows"]
    assert rows and all(r["within_noise"] is True for r in rows if r["bound"] == "lower")


def test_a_bound_ratio_to_a_published_interval_gets_no_two_ends(tmp_path: Path) -> None:
    """alpha's runs all beat 10 tok/s per user (a lower-bound read) against a reported side
    with a published 95% interval: the ratio is a bound, and the published interval gives it
    neither two ends nor a one-sided bound, with a note saying why."""
    shutil.copytree(SPECS / "data" / "synthetic" / "alpha", tmp_path / "data" / "alpha")
    spec = tmp_path / "mixed.cmp"
    spec.write_text(MIXED)
    results, report, _ = build(spec, tmp_path / "out")
    head = results["headline"]
    assert results["systems"]["alpha"]["at_target"]["bound"] == "lower"
    assert head["bound"] == "lower"
    assert head["throughput_ratio_ci"] is None and head["cost_ratio_ci"] is None
    assert head["throughput_ratio_one_sided_ci"] is None and head["interval_basis"] is None
    assert "derives no one-sided bound from a published interval" in head["interval_note"]
    line = next(line for line in report.splitlines() if line.startswith("**alpha"))
    assert "CI" not in line and "at least" in line
    assert "The ratio carries no interval:" in report


MIXED = """\
comparison "mixed: measured alpha vs reported rep" {
  question "Which serves more tokens per GPU at 10 tok/s per user?"
  baseline rep
  source sample {
    title "Synthetic sample traces"
    role synthetic
    status self_reported
  }
  latency {
    metric tpot
    statistic p90
    target 10 tok/s/user
    read steffen
  }
  tokens {
    count input + output
    reused included
  }
  normalize per gpu
  system alpha {
    accelerator "Synthetic accelerator A" x 8
    parallel tp 8
    cache_hit_rate unknown
    price 2.00 USD/gpu/h basis assumed source "illustrative"
    runs "data/alpha/*.jsonl" format cmpc source sample
  }
  system rep {
    accelerator "Synthetic accelerator B" x 8
    parallel tp 8
    cache_hit_rate unknown
    price 2.50 USD/gpu/h basis assumed source "illustrative"
    reported {
      source sample
      statistic p90
      throughput 1250 tok/s/gpu at 10 tok/s/user
      interval throughput 95% 1200 to 1300 tok/s/gpu source sample as_of 2026-01-01
    }
  }
  cost {
    utilization 70%
    per_million total
  }
}
"""


def test_the_bound_says_what_is_true_of_the_runs(
    sweep: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 20 tok/s per user some of alpha's runs are slower than the target (dominated, off
    its frontier): the note and the caution say every point of its frontier is faster, which
    holds, not that every run is."""
    built = _build(sweep, tmp_path / "out", monkeypatch, TARGET)
    alpha = built["results"]["systems"]["alpha"]
    assert any(p["interactivity_tok_s_user"] < 20 for p in alpha["points"])
    assert all(p["interactivity_tok_s_user"] > 20 for p in alpha["frontier"])
    assert "every run is faster" not in built["report"]
    assert "every run is faster" not in built["results"]["headline"]["interval_note"]
    assert (
        "lower bound (every point of its frontier is faster than the target)" in (built["report"])
    )


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize("cost", [None, 1.3])
@pytest.mark.parametrize("case", ["holes", "infinite", "zeros", "ties", "few"])
def test_ratios_ranked_by_numpy_give_the_python_rankings_bounds(side, cost, case):
    """A cold build hands bound_ratio_interval its ratios as an array, ranked by numpy (a
    stable sort): the same dict as the list a warm rebuild ranks in Python."""
    source, _ = read_source(str(SPECS / "synthetic-sweep.cmp"))
    assert source is not None
    comparison = compile_spec(source, []).comparison
    assert comparison is not None
    rng = np.random.default_rng(len(case))
    ratios = rng.uniform(0.5, 1.5, 2000)
    if case == "holes":
        ratios[rng.choice(2000, 40, replace=False)] = np.nan
    elif case == "infinite":
        ratios[:100], ratios[100:150] = np.inf, -np.inf
    elif case == "zeros":  # x / 0 in the cost's quotients, of both signs
        ratios[:60], ratios[60:90] = 0.0, -0.0
    elif case == "ties":
        ratios = np.round(ratios, 1)
    else:
        ratios = ratios[:9]  # too few to bound
    head, empty = _head_and_empty(side, cost)
    with np.errstate(divide="ignore", invalid="ignore"):
        fast = uncertainty.bound_ratio_interval(comparison, head, empty, ratios)
    slow = uncertainty.bound_ratio_interval(comparison, head, empty, ratios.tolist())
    assert json.dumps(fast) == json.dumps(slow)  # the same floats, signs of zero included
    if case != "few":
        assert fast["throughput_ratio_one_sided_ci"] is not None or case == "infinite"
