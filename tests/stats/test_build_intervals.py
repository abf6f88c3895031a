"""Intervals, the noise verdict, repetitions and capacity at SLO in real builds."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec

from .builds import SPECS, build


def test_the_headline_from_runs_carries_its_interval(tmp_path):
    results, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "o")
    head = results["headline"]
    low, high = head["throughput_ratio_ci"]
    assert low < head["throughput_ratio"] < high < 1  # alpha's deficit is not noise
    assert head["confidence"] == 0.95 and head["within_noise"] is False
    assert results["uncertainty"] == {
        "enabled": True, "confidence": 0.95, "method": "percentile", "resamples": 2000, "seed": 1
    }  # fmt: skip
    assert "delivers 19.4% fewer (95% CI " in report
    assert "2,000 resamples, seed 1" in report
    alpha = results["systems"]["alpha"]["uncertainty"]
    assert alpha["run_to_run"] == "unknown" and "run-to-run variation is unknown" in alpha["note"]
    read_low, read_high = alpha["throughput_per_gpu_ci"]
    assert read_low < results["systems"]["alpha"]["at_target"]["throughput_per_gpu"] < read_high
    assert len(alpha["runs"]) == 7 and all(r["latency_s_ci"] for r in alpha["runs"])


def test_intervals_off_and_another_seed(tmp_path):
    off, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "off", "uncertainty=off")
    assert off["headline"]["throughput_ratio_ci"] is None and off["headline"]["confidence"] is None
    assert "CI" not in report and off["systems"]["alpha"]["uncertainty"] is None
    other, _, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "s2", "uncertainty.seed=2")
    same, _, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "s1")
    build(SPECS / "synthetic-sweep.cmp", tmp_path / "s1b")
    assert other["headline"]["throughput_ratio_ci"] != same["headline"]["throughput_ratio_ci"]
    assert (tmp_path / "s1" / "results.json").read_bytes() == (
        tmp_path / "s1b" / "results.json"
    ).read_bytes()


def test_reported_figures_carry_no_interval_and_say_so(tmp_path):
    results, report, _ = build(SPECS / "mi355x-vs-b300.cmp", tmp_path / "o")
    assert results["headline"]["throughput_ratio_ci"] is None
    assert "reported" in results["headline"]["interval_note"]
    assert "The ratio carries no interval" in report
    assert "reported figures carry no interval" in report


def test_capacity_at_the_percentile_slos_on_the_synthetic_sweep(tmp_path):
    results, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "o")
    alpha = results["systems"]["alpha"]["capacity_at_slo"]
    beta = results["systems"]["beta"]["capacity_at_slo"]
    # alpha meets p99 ttft 500 ms / p99 tpot 40 ms at concurrency 32 (377 ms, 33.4 ms), not 64
    assert alpha["met"] and alpha["bracket"] == [32.0, 64.0] and 32 < alpha["load"] < 64
    assert beta["met"] and beta["bracket"] == [16.0, 32.0] and 16 < beta["load"] < 32
    assert alpha["limiting"] == beta["limiting"] == "p99 tpot"
    low, high = alpha["throughput_per_gpu_ci"]
    assert low < alpha["throughput_per_gpu"] < high
    head = results["headline"]
    assert head["capacity_at_slo_ratio"] == pytest.approx(
        alpha["throughput_per_gpu"] / beta["throughput_per_gpu"]
    )
    assert "### Capacity at the percentile SLOs" in report
    csv = (tmp_path / "o" / "figures.csv").read_text()
    for fid in ("headline.throughput_ratio_ci_low", "headline.cost_ratio_ci_high",
                "alpha.throughput_per_gpu_ci_low", "headline.capacity_at_slo_ratio"):  # fmt: skip
        assert f"\n{fid}," in csv


def test_a_sweep_no_run_of_which_meets_the_slo_says_so(sweep_copy, tmp_path):
    text = sweep_copy.read_text().replace(
        "slo p99 ttft 500 ms p99 tpot 40 ms", "slo p99 ttft 5 ms p99 tpot 40 ms"
    )
    sweep_copy.write_text(text)
    results, report, _ = build(sweep_copy, tmp_path / "o")
    for name in ("alpha", "beta"):
        cap = results["systems"][name]["capacity_at_slo"]
        assert not cap["met"] and cap["load"] is None
        assert cap["note"] == "no run of the sweep meets every limit"
    assert results["headline"]["capacity_at_slo_ratio"] is None
    assert report.count("no run of the sweep meets every limit") == 2


def test_repetitions_give_the_between_run_spread(sweep_copy, tmp_path):
    runs = sweep_copy.parent / "data" / "synthetic" / "alpha"
    for path in sorted(runs.glob("*.jsonl")):
        shutil.copy(path, path.with_name(path.stem + "-rep2.jsonl"))
    results, report, _ = build(sweep_copy, tmp_path / "o")
    alpha = results["systems"]["alpha"]["uncertainty"]
    assert alpha["run_to_run"] == "measured" and alpha["note"] is None
    assert len(alpha["repetitions"]) == 7
    first = alpha["repetitions"][0]
    assert first["runs"] == 2 and first["throughput_per_gpu"]["std"] == 0.0  # identical copies
    assert results["systems"]["beta"]["uncertainty"]["run_to_run"] == "unknown"
    assert "runs, throughput CV 0.0%" in report


def test_a_lower_bound_read_has_a_one_sided_bound_and_its_ratio_no_interval(tmp_path):
    """A target below both frontiers reads each system's best run, a lower bound: its
    replicates are the peak's, so its one-sided 95% bound (their 5% quantile) lies between the
    peak's two-sided low end (their 2.5% quantile) and the read; the ratio of two bounds gets
    no interval, and the report, results.json and figures.csv say the same."""
    spec = str(Path(__file__).resolve().parents[2] / "specs" / "llama70b-newcomer.cmp")

    def results(name: str, **kw):
        out = tmp_path / name
        outcome = build_spec(spec, out_dir=str(out), **kw)
        assert outcome.code == 0, outcome.diagnostics
        return json.loads((out / "results.json").read_text()), out

    bound, out = results("bound", sets=["latency.target=5 tok/s/user"])
    peak, _ = results("peak", unsets=["latency.target"])
    head = bound["headline"]
    assert head["bound"] == "neither" and head["throughput_ratio_ci"] is None
    assert head["within_noise"] is None and "lower bound" in head["interval_note"]
    report = (out / "report.md").read_text()
    assert "The ratio carries no interval: both sides' reads are lower bounds" in report
    rows = (out / "figures.csv").read_text()
    for name, system in bound["systems"].items():
        su, read = system["uncertainty"], system["at_target"]["throughput_per_gpu"]
        assert system["at_target"]["bound"] == "lower" and su["throughput_per_gpu_ci"] is None
        low, _ = peak["systems"][name]["uncertainty"]["throughput_per_gpu_ci"]
        assert low <= su["throughput_per_gpu_one_sided_ci"] <= read
        assert f"{name}.throughput_per_gpu_one_sided_low," in rows
        assert f"{name}.throughput_per_gpu_ci_low," not in rows
    table = report.split("## How sure")[1].split("\n\n")[2]
    assert table.count("(one-sided)") == 2 and " to " not in table


def test_a_capacity_every_run_meets_is_at_least_the_highest_load_one_sided(sweep_copy, tmp_path):
    """Limits every run meets: the capacity is at least concurrency 64, the highest load; its
    interval is one-sided (64 in every replicate that meets the limits), never `64 to 64`."""
    text = sweep_copy.read_text().replace(
        "slo p99 ttft 500 ms p99 tpot 40 ms", "slo p99 ttft 50 s p99 tpot 4 s"
    )
    sweep_copy.write_text(text)
    results, report, _ = build(sweep_copy, tmp_path / "o")
    for name in ("alpha", "beta"):
        cap = results["systems"][name]["capacity_at_slo"]
        assert cap["bounded_by_sweep"] and cap["load"] == 64.0 and cap["load_ci"] is None
        assert cap["load_one_sided_ci"] == 64.0
    section = report.split("### Capacity at the percentile SLOs")[1].split("\n## ")[0]
    assert section.count("| at least 64 (one-sided) |") == 2 and "64 to 64" not in section


def test_the_how_sure_table_has_one_number_of_decimals(tmp_path):
    """Reads and interval ends share a column format (`1,263.0` beside `1,201.3`)."""
    spec = str(Path(__file__).resolve().parents[2] / "specs" / "synthetic-sweep.cmp")
    assert build_spec(spec, out_dir=str(tmp_path / "out")).code == 0
    report = (tmp_path / "out" / "report.md").read_text()
    table = report.split("## How sure")[1].split("\n\n")[2].splitlines()[2:]
    numbers = [n for row in table for n in re.findall(r"\d[\d,]*(?:\.\d+)?", row.split("|")[2])]
    numbers += [n for row in table for n in re.findall(r"\d[\d,]*(?:\.\d+)?", row.split("|")[3])]
    assert len(numbers) == 6
    assert {len(n.split(".")[1]) if "." in n else 0 for n in numbers} == {1}


def test_a_bound_ratio_gives_its_cost_ratio_no_interval_either(tmp_path):
    """Every run of beta beats a 10 s P90 e2el target: the throughput ratio is an upper bound,
    so the cost ratio at the declared prices is a lower bound, and neither gets two ends."""
    sets = ("latency.metric=e2el", "latency.target=10 s")
    results, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "out", *sets)
    head = results["headline"]
    assert head["bound"] == "upper" and head["cost_ratio"] is not None
    assert head["throughput_ratio_ci"] is None and head["cost_ratio_ci"] is None
    # its one-sided lower bound (at most the cost ratio, 1.118) stays above 1: beta's cost
    # lead holds, so it is not within noise
    assert 1 < head["cost_ratio_one_sided_ci"] <= head["cost_ratio"]
    assert head["cost_within_noise"] is False
    headline = next(line for line in report.splitlines() if line.startswith("**alpha"))
    assert "95% CI" not in headline and "at least" in headline
