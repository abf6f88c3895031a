"""The showcase specs compute what their reports claim (figures from results, not from text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.cli import main

SPECS = Path(__file__).resolve().parents[1] / "specs"


def results_of(name: str, tmp_path: Path, *sets: str):
    outcome = build_spec(
        str(SPECS / name), out_dir=str(tmp_path / "out"), sets=list(sets), render=False
    )
    assert outcome.code == 0, outcome.diagnostics
    return json.loads((tmp_path / "out" / "results.json").read_text()), outcome


def test_headline_claim_and_its_price_scenarios(tmp_path):
    results, _ = results_of("mi355x-vs-b300.cmp", tmp_path)
    rows = {
        r["alternative"]: r for r in results["sensitivity"]["rows"] if r["parameter"] == "price"
    }
    # cost ratio = (price_mi355x / price_b300) / 1.244 under each price table
    for scenario, (mi, b) in {
        "owning": (1.50, 2.26),
        "rental_3yr": (2.10, 3.00),
        "retail": (2.90, 4.25),
    }.items():
        assert rows[scenario]["cost_ratio"] == pytest.approx(mi / b / 1.244, rel=1e-12)
    assert results["headline"]["cost_ratio_at_equal_price"] == pytest.approx(1 / 1.244)
    missing = [i["key"] for i in results["disclosure"]["items"] if not i["answered"]]
    assert "load_conditions" in missing and "prefix_cache" in missing


def test_per_dollar_post(tmp_path):
    results, _ = results_of("mi355x-vs-b300-per-dollar.cmp", tmp_path)
    systems = results["systems"]
    # tokens per dollar = tok/s/GPU x 3600 / (USD/GPU-hour): 119 x 3600 / 2.50
    assert systems["mi355x"]["at_target"]["throughput_per_unit"] == pytest.approx(119 * 3600 / 2.50)
    assert systems["b300"]["at_target"]["throughput_per_unit"] == pytest.approx(196 * 3600 / 6.00)
    assert systems["b200"]["at_target"]["throughput_per_unit"] == pytest.approx(31 * 3600 / 4.25)
    head = results["headline"]
    assert head["throughput_ratio"] == pytest.approx((119 / 2.50) / (196 / 6.00))
    per_gpu = next(r for r in results["sensitivity"]["rows"] if r["alternative"] == "gpu")
    assert per_gpu["throughput_ratio"] == pytest.approx(119 / 196) and per_gpu["flips"]
    cards = {s["system"]: s["cards_needed"] for s in results["capacity"]["systems"]}
    assert cards == {"mi355x": 3, "b300": 3, "b200": 4}


def test_claims_audit_derives_and_names_the_missing_fact(tmp_path):
    results, _ = results_of("deepinfer-claims.cmp", tmp_path)
    daily = next(c for c in results["claims"] if c["name"] == "daily_tokens")
    assert daily["derived"][0]["value"] == pytest.approx(155e12 / 86400)
    assert f"{daily['derived'][0]['value']:.4g}" == "1.794e+09"
    assert any("GPU count" in c["missing"] for c in daily["cannot_derive"])
    revenue = next(c for c in results["claims"] if c["name"] == "offpeak_revenue")
    assert revenue["kind"] == "revenue" and any(
        "not what the GPU-hour cost" in n for n in revenue["notes"]
    )
    assert results["headline"] is None and results["systems"] == {}


def test_real_vllm_runs_at_different_rates_are_flagged(tmp_path):
    results, outcome = results_of("llama70b-a100-tp8-vs-tp4pp2.cmp", tmp_path)
    assert "W515" in {d.code for d in outcome.diagnostics}
    assert results["load"]["comparable"] is False
    # total_token_throughput / 8 GPUs, as vLLM itself wrote it into the file
    raw = json.loads((SPECS / "data/llama70b/tp8_pp1_sharegpt_qps_04.json").read_text())
    at = results["systems"]["tp8"]["at_target"]
    assert at["throughput_per_gpu"] == pytest.approx(raw["total_token_throughput"] / 8, rel=1e-9)


def test_synthetic_sweep_flips_with_token_accounting(tmp_path):
    results, outcome = results_of("synthetic-sweep.cmp", tmp_path)
    assert results["synthetic"] is True
    rows = {
        r["alternative"]: r for r in results["sensitivity"]["rows"] if r["parameter"] == "tokens"
    }
    assert rows["output"]["winner"] != rows["input + output"]["winner"]
    assert rows["output"]["flips"] or rows["input + output"]["flips"]
    alpha = results["systems"]["alpha"]
    assert alpha["at_target"]["reachable"] and len(alpha["at_target"]["knots"]) == 2
    assert alpha["goodput"]["best"]["goodput_req_s_per_gpu"] > 0
    assert "W410" in {d.code for d in outcome.diagnostics}


def test_init_writes_a_clean_starter_and_never_overwrites(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "mine"]) == 0
    assert main(["check", "mine.cmp"]) == 0
    assert main(["fmt", "--check", "mine.cmp"]) == 0
    before = (tmp_path / "mine.cmp").read_text()
    assert main(["init", "mine"]) == 2
    assert (tmp_path / "mine.cmp").read_text() == before
    assert "already exists" in capsys.readouterr().err


def test_the_newcomers_spec_reads_a_lower_bound_and_names_what_it_cannot(tmp_path):
    """Issue 14's newcomer spec: one real llmk8s vLLM run per system, made-up prices."""
    results, outcome = results_of("llama70b-newcomer.cmp", tmp_path)
    tp8_raw = json.loads((SPECS / "data/llama70b/tp8_pp1_sharegpt_qps_04.json").read_text())
    tp4_raw = json.loads((SPECS / "data/llama70b/tp4_pp2_sharegpt_qps_inf.json").read_text())
    tp8 = results["systems"]["tp8"]
    # 20 tok/s/user is below TP8's one run (36.19): a lower bound at vLLM's own throughput / 8
    assert tp8["at_target"]["bound"] == "lower"
    assert tp8["at_target"]["throughput_per_gpu"] == pytest.approx(
        tp8_raw["total_token_throughput"] / 8, rel=1e-9
    )
    # and above TP4 x PP2's (9.9): unreachable, so no headline ratio and no winner
    assert results["systems"]["tp4pp2"]["at_target"]["reachable"] is False
    assert results["headline"]["throughput_ratio"] is None
    assert [d.code for d in outcome.diagnostics if d.code == "W411"] == ["W411"]
    # goodput under ttft <= 2 s, tpot <= 50 ms: every TP8 request is good (200 / duration / 8)
    assert tp8["goodput"]["best"]["goodput_req_s_per_gpu"] == pytest.approx(
        200 / tp8_raw["duration"] / 8, rel=1e-9
    )
    assert tp8["goodput"]["best"]["slo_attainment"] == 1.0
    assert results["systems"]["tp4pp2"]["goodput"]["best"]["slo_attainment"] == 14 / 200
    # at 5 tok/s/user both runs beat the target: two lower bounds, their ratio shown, no winner
    five = next(r for r in results["sensitivity"]["rows"] if r["alternative"] == "5 tok/s/user")
    assert five["throughput_ratio"] == pytest.approx(
        tp4_raw["total_token_throughput"] / tp8_raw["total_token_throughput"], rel=1e-9
    )
    assert five["bound"] == "neither" and five["winner"] is None and not five["flips"]
    # the prices are made up, and the spec says so where the report quotes it
    assert all(
        s["cost"]["price"]["basis"] == "assumed"
        and "made-up" in (s["cost"]["price"]["source"] or "")
        for s in results["systems"].values()
    )
