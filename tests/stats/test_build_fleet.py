"""`fleet { cost_cap ... pue ... }` in real builds: the reads, their intervals, what is absent."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.compute.frontier import Point, pareto_frontier, read_at, read_latency

from .builds import SPECS, build


def _edit(spec: Path, old: str, new: str) -> None:
    text = spec.read_text()
    assert old in text
    spec.write_text(text.replace(old, new))


def test_the_showcase_reads_both_fleet_figures(tmp_path):
    """alpha: $2.00/GPU-h at 70% under a $1.00/Mtok cap needs 2e6 / (3600 x 0.7) = 793.65
    tok/s/gpu, between its conc-8 (66.6, 800.6) and conc-4 (81.9, 480.8) runs; users per MW at
    30 tok/s/user = output tok/s per GPU / 30 x 1e6 / 1200 W."""
    results, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "o")
    fleet = results["fleet"]
    assert fleet["cost_cap_usd_per_million_tokens"] == 1.0 and fleet["utilization"] == 0.7
    alpha = fleet["systems"]["alpha"]
    read = alpha["cost_cap"][0]
    assert read["status"] == "met" and read["scenario"] == "assumed"
    assert read["required_throughput_per_gpu"] == pytest.approx(2e6 / (3600 * 0.7))
    assert [k["concurrency"] for k in read["knots"]] == [8.0, 4.0]
    frontier = pareto_frontier(
        Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
        for p in results["systems"]["alpha"]["frontier"]
    )
    at = read_at(frontier, read["interactivity_tok_s_user"], "steffen").value
    assert at == pytest.approx(read["required_throughput_per_gpu"], rel=1e-9)
    assert read["usd_per_million_tokens"] == pytest.approx(1.0)
    low, high = read["interactivity_ci"]
    assert low < read["interactivity_tok_s_user"] < high
    users = alpha["users_per_mw"]
    assert users["streams_per_gpu"] == pytest.approx(users["output_throughput_per_gpu"] / 30)
    assert users["gpus_per_mw"] == pytest.approx(1e6 / 1200)
    assert users["users_per_mw"] == pytest.approx(users["streams_per_gpu"] * 1e6 / 1200)
    assert users["basis"] == "provisioned" and users["source"] == "sample"
    low, high = users["users_per_mw_ci"]
    assert low < users["users_per_mw"] < high
    ratios = {r["quantity"]: r for r in fleet["ratios"]}
    beta = fleet["systems"]["beta"]
    assert ratios["users_per_mw"]["ratio"] == pytest.approx(
        users["users_per_mw"] / beta["users_per_mw"]["users_per_mw"]
    )
    assert ratios["interactivity_at_cost_cap"]["ratio"] == pytest.approx(
        read["interactivity_tok_s_user"] / beta["cost_cap"][0]["interactivity_tok_s_user"]
    )
    assert "## Fleet planning" in report and "[^fleet]:" in report
    low, high = ratios["interactivity_at_cost_cap"]["ratio_ci"]
    assert low < 1 < high  # both reach about 67 tok/s/user: the report says it is noise
    assert "1.000 (95% CI 0.929 to 1.090), within measurement noise" in report
    assert "1.972 (95% CI 1.806 to 2.060)." in report  # alpha serves more users per MW
    rows = {r["id"]: r for r in csv.DictReader((tmp_path / "o" / "figures.csv").open())}
    assert float(rows["alpha.fleet.users_per_mw"]["value"]) == pytest.approx(users["users_per_mw"])
    assert "alpha.fleet.cost_cap.assumed.interactivity_ci_low" in rows


def test_a_cap_no_run_meets_and_one_every_run_meets(sweep_copy, tmp_path):
    """$0.10/Mtok needs 7,937 tok/s/gpu of alpha, above every run: no read. $50/Mtok needs
    15.9, below the fastest run: at least its interactivity, a lower bound, no ratio."""
    _edit(sweep_copy, "cost_cap 1.00 USD/Mtok", "cost_cap 0.10 USD/Mtok")
    results, report, _ = build(sweep_copy, tmp_path / "low")
    for name in ("alpha", "beta"):
        read = results["fleet"]["systems"][name]["cost_cap"][0]
        assert read["status"] == "cannot_meet" and read["interactivity_tok_s_user"] is None
        assert read["usd_per_million_tokens"] > 0.10  # the frontier's lowest cost
    assert report.count("cannot meet the cap") == 2
    _edit(sweep_copy, "cost_cap 0.10 USD/Mtok", "cost_cap 50 USD/Mtok")
    results, report, _ = build(sweep_copy, tmp_path / "high")
    alpha = results["fleet"]["systems"]["alpha"]
    read = alpha["cost_cap"][0]
    fastest = max(p["interactivity_tok_s_user"] for p in results["systems"]["alpha"]["frontier"])
    assert read["status"] == "at_least" and read["interactivity_tok_s_user"] == fastest
    ratio = next(
        r for r in results["fleet"]["ratios"] if r["quantity"] == "interactivity_at_cost_cap"
    )
    assert ratio["ratio"] is None and "bound" in ratio["note"]
    assert "at least 104.3" in report
    with (tmp_path / "high" / "figures.csv").open() as f:
        row = next(
            r for r in csv.DictReader(f) if r["id"] == "alpha.fleet.cost_cap.assumed.interactivity"
        )
    assert "a lower bound" in row["quantity"]  # the csv says what the report's "at least" says
    assert "interval[^ci]" in report.split("## Fleet")[1].split("\n\n")[1]  # alpha's is read


def test_no_power_means_no_users_per_megawatt_and_a_warning(sweep_copy, tmp_path):
    _edit(sweep_copy, "    power 1.2 kW basis provisioned source sample\n", "")
    results, report, diagnostics = build(sweep_copy, tmp_path / "o")
    alpha = results["fleet"]["systems"]["alpha"]
    assert alpha["users_per_mw"] is None
    assert alpha["users_per_mw_note"] == "no power is declared for the system"
    assert [d.code for d in diagnostics if d.code.startswith("W45")] == ["W450"]
    assert "none: no power is declared for the system" in report
    ratio = next(r for r in results["fleet"]["ratios"] if r["quantity"] == "users_per_mw")
    assert ratio["ratio"] is None


def test_no_price_means_no_cost_cap_read_and_a_warning(sweep_copy, tmp_path):
    _edit(
        sweep_copy,
        '    price 2.50 USD/gpu/h basis assumed source "illustrative price, not a quote"\n',
        "",
    )
    outcome = build_spec(str(sweep_copy), out_dir=str(tmp_path / "o"))
    assert "W451" in [d.code for d in outcome.diagnostics]
    results = json.loads((tmp_path / "o" / "results.json").read_text())
    beta = results["fleet"]["systems"]["beta"]
    assert beta["cost_cap"] == [] and beta["cost_cap_note"] == "no price is declared for the system"


def test_a_pue_divides_users_per_megawatt(sweep_copy, tmp_path):
    """PUE 1.25: a megawatt of facility power is 800 kW of IT power, so 1/1.25 the users."""
    plain, _, _ = build(sweep_copy, tmp_path / "plain")
    _edit(sweep_copy, "cost_cap 1.00 USD/Mtok", "cost_cap 1.00 USD/Mtok\n    pue 1.25")
    with_pue, report, _ = build(sweep_copy, tmp_path / "pue")
    for name in ("alpha", "beta"):
        a = plain["fleet"]["systems"][name]["users_per_mw"]
        b = with_pue["fleet"]["systems"][name]["users_per_mw"]
        assert b["users_per_mw"] == pytest.approx(a["users_per_mw"] / 1.25, rel=1e-12)
        assert b["users_per_mw_ci"] == pytest.approx([v / 1.25 for v in a["users_per_mw_ci"]])
        assert b["pue"] == 1.25 and b["pue_from"] == "fleet"
    assert "(power per GPU × PUE)" in report and report.count("PUE 1.25 (the fleet's)") == 2


def test_each_system_counts_at_its_own_pue_the_fleet_one_the_default(sweep_copy, tmp_path):
    """alpha in a data centre at PUE 1.1 (its power line), beta at the fleet's 1.4: each
    system's users per MW are its IT-power read over its own PUE; the table and the footnote
    state each PUE and whose it is; the cost-cap read, which no PUE enters, is unchanged."""
    plain, _, _ = build(sweep_copy, tmp_path / "plain")
    _edit(sweep_copy, POWER_LINES[0], POWER_LINES[0].replace(" source", " pue 1.1 source"))
    _edit(sweep_copy, "cost_cap 1.00 USD/Mtok", "cost_cap 1.00 USD/Mtok\n    pue 1.4")
    results, report, diagnostics = build(sweep_copy, tmp_path / "o")
    assert "W144" not in [d.code for d in diagnostics]  # no tco: nothing to disagree with
    for name, pue, whose in (("alpha", 1.1, "system"), ("beta", 1.4, "fleet")):
        a = plain["fleet"]["systems"][name]["users_per_mw"]
        b = results["fleet"]["systems"][name]["users_per_mw"]
        assert b["users_per_mw"] == pytest.approx(a["users_per_mw"] / pue, rel=1e-12)
        assert b["gpus_per_mw"] == pytest.approx(1e6 / (b["watts_per_gpu"] * pue))
        assert (b["pue"], b["pue_from"]) == (pue, whose)
        cap = results["fleet"]["systems"][name]["cost_cap"]
        assert cap == plain["fleet"]["systems"][name]["cost_cap"]
    ratio = next(r for r in results["fleet"]["ratios"] if r["quantity"] == "users_per_mw")
    base = next(r for r in plain["fleet"]["ratios"] if r["quantity"] == "users_per_mw")
    assert ratio["ratio"] == pytest.approx(base["ratio"] * 1.4 / 1.1, rel=1e-12)
    assert "| 1,200 W (provisioned all-in), PUE 1.1 |" in report
    assert "| 1,500 W (provisioned all-in), PUE 1.4 |" in report
    note = _footnote(report)
    assert "PUE 1.1 (its own)" in note and "PUE 1.4 (the fleet's)" in note


def test_a_system_pue_without_a_fleet_pue_leaves_the_other_at_it_power(sweep_copy, tmp_path):
    _edit(sweep_copy, POWER_LINES[1], POWER_LINES[1].replace(" source", " pue 1.5 source"))
    results, report, _ = build(sweep_copy, tmp_path / "o")
    alpha = results["fleet"]["systems"]["alpha"]["users_per_mw"]
    assert alpha["pue"] is None and alpha["pue_from"] is None
    assert results["fleet"]["systems"]["beta"]["users_per_mw"]["pue_from"] == "system"
    note = _footnote(report)
    assert "1,200 W per GPU, provisioned all-in, no PUE (IT power)" in note
    assert "PUE 1.5 (its own)" in note and "no PUE declared" not in note


def test_a_tco_at_another_pue_than_the_users_per_megawatt_warns(sweep_copy, tmp_path):
    """W144: the tco costs alpha's electricity at PUE 1 (undeclared) while its users per MW
    use 1.3; declaring 1.3 in both clears it."""
    tco = "    tco { capex 30000 USD/gpu; years 5; power 1.2 kW; electricity 0.10 USD/kWh }\n"
    _edit(sweep_copy, POWER_LINES[0], POWER_LINES[0].replace(" source", " pue 1.3 source") + tco)
    _, _, diagnostics = build(sweep_copy, tmp_path / "o")
    (w,) = [d for d in diagnostics if d.code == "W144"]
    assert "PUE 1.3 (its `power` line), its `tco` energy PUE 1" in w.message
    _edit(sweep_copy, "power 1.2 kW; electricity", "power 1.2 kW; pue 1.3; electricity")
    _, _, diagnostics = build(sweep_copy, tmp_path / "fixed")
    assert "W144" not in [d.code for d in diagnostics]


def test_without_a_fleet_block_there_is_no_section(sweep_copy, tmp_path):
    _edit(sweep_copy, "  fleet {\n    cost_cap 1.00 USD/Mtok\n  }\n", "")
    results, report, _ = build(sweep_copy, tmp_path / "o")
    assert results["fleet"] is None and "Fleet planning" not in report


def test_reported_figures_have_no_frontier_to_read_and_say_so(tmp_path):
    """The MI355X/B300 spec states one published ratio: no frontier, no output throughput."""
    spec = tmp_path / "reported.cmp"
    text = (SPECS / "mi355x-vs-b300.cmp").read_text()
    spec.write_text(
        text.replace("  sensitivity {", "  fleet { cost_cap 0.25 USD/Mtok }\n\n  sensitivity {")
    )
    results, report, _ = build(spec, tmp_path / "o")
    for entry in results["fleet"]["systems"].values():
        assert entry["cost_cap"] == [] and "no frontier" in entry["cost_cap_note"]
        assert entry["users_per_mw"] is None
        assert entry["users_per_mw_note"] == (
            "reported figures state no output-token throughput at the target"
        )
    assert all(r["ratio"] is None for r in results["fleet"]["ratios"])
    assert "per million total tokens for 8x MI355X: no frontier" in report


@pytest.mark.parametrize("metric", ["ttft", "e2el"])
def test_a_latency_metric_without_a_target_says_why_it_has_no_users_per_mw(tmp_path, metric):
    """No target on ttft or e2el: the reason is the metric (no per-user token rate), which a
    target would not change, not "no target interactivity"."""
    out = tmp_path / "o"
    outcome = build_spec(
        str(SPECS / "synthetic-sweep.cmp"),
        out_dir=str(out),
        sets=[f"latency.metric={metric}"],
        unsets=["latency.target"],
    )
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    report = (out / "report.md").read_text()
    for entry in results["fleet"]["systems"].values():
        assert (
            entry["users_per_mw_note"] == f"the latency metric `{metric}` is not a per-token rate"
        )
    assert "no target interactivity" not in report


@pytest.mark.parametrize("metric", ["ttft", "e2el"])
def test_a_latency_metric_reads_the_lowest_latency_within_the_cap(tmp_path, metric):
    """A TTFT (or end-to-end latency) spec has no per-user token rate: the cost-cap read is
    the lowest latency within the cap along the spec's own axis (the frontier read along
    latency gives the cap's throughput there), in ms, never a tok/s/user; users per MW have no
    rate to divide by and say so."""
    out = tmp_path / "o"
    results, report, _ = build(
        SPECS / "synthetic-sweep.cmp", out, f"latency.metric={metric}",
        "latency.target=1000 ms",
    )  # fmt: skip
    for name, entry in results["fleet"]["systems"].items():
        assert entry["users_per_mw"] is None
        assert (
            entry["users_per_mw_note"] == f"the latency metric `{metric}` is not a per-token rate"
        )
        (read,) = entry["cost_cap"]
        assert read["axis"] == "latency" and read["status"] == "met"
        assert read["interactivity_tok_s_user"] is None and read["interactivity_ci"] is None
        frontier = pareto_frontier(
            Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
            for p in results["systems"][name]["frontier"]
        )
        at = read_latency(frontier, read["latency_ms"], "steffen").value
        assert at == pytest.approx(read["required_throughput_per_gpu"], rel=1e-9)
        slow, fast = (1000 / k["interactivity_tok_s_user"] for k in read["knots"])
        assert fast < read["latency_ms"] < slow
        low, high = read["latency_ms_ci"]
        assert low < read["latency_ms"] < high
    ratio = next(r for r in results["fleet"]["ratios"] if r["quantity"] == "latency_at_cost_cap")
    alpha, beta = (
        results["fleet"]["systems"][n]["cost_cap"][0]["latency_ms"] for n in ("alpha", "beta")
    )
    assert ratio["ratio"] == pytest.approx(alpha / beta)
    section = report.split("## Fleet planning")[1].split("\n## ")[0]
    assert f"| Lowest P90 {'TTFT' if metric == 'ttft' else 'end-to-end latency'} (ms) |" in section
    assert "tok/s/user" not in section and "interactivit" not in section
    rows = _rows(out)
    assert rows["alpha.fleet.cost_cap.assumed.latency_ms"]["unit"] == "ms"


def test_a_latency_read_that_is_a_bound_is_at_most_one_sided(tmp_path):
    """$50/Mtok: the fastest run (lowest TTFT) is within the cap, so the lowest TTFT is at
    most that run's; its one-sided bound is an upper one, the 95% quantile of the replicates."""
    out = tmp_path / "o"
    results, report, _ = build(
        SPECS / "synthetic-sweep.cmp", out, "latency.metric=ttft", "latency.target=1000 ms",
        "fleet.cost_cap=50 USD/Mtok",
    )  # fmt: skip
    rows = _rows(out)
    for name, entry in results["fleet"]["systems"].items():
        (read,) = entry["cost_cap"]
        fastest = max(p["interactivity_tok_s_user"] for p in results["systems"][name]["frontier"])
        assert read["status"] == "at_least"
        assert read["latency_ms"] == pytest.approx(1000 / fastest)
        bound = read["latency_ms_one_sided_ci"]
        assert read["latency_ms_ci"] is None and bound >= read["latency_ms"]
        assert f"| at most {bound:.1f} (one-sided) |" in report
        fid = f"{name}.fleet.cost_cap.assumed.latency_ms"
        assert "upper bound" in rows[f"{fid}_one_sided_high"]["quantity"]
        assert f"{fid}_ci_low" not in rows


def test_without_intervals_the_section_claims_none(tmp_path):
    """`uncertainty off`: the cost-cap sentence names no interval it does not show."""
    _, report, _ = build(SPECS / "synthetic-sweep.cmp", tmp_path / "o", "uncertainty=off")
    intro = report.split("## Fleet planning")[1].split("\n\n")[1]
    assert intro.startswith("The highest interactivity") and "interval" not in intro


VLLM = SPECS.parents[1] / "shared" / "oracle" / "vllm"
TP8 = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"
TP4PP2 = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp4_pp2_sharegpt_qps_inf.json"


def _vllm_fleet_spec(tmp_path: Path, fleet: str) -> Path:
    """The real TP8 vs TP4 x PP2 spec over the shared vLLM outputs, priced, with `fleet`."""
    data = tmp_path / "data" / "llama70b"
    data.mkdir(parents=True)
    shutil.copy(VLLM / TP8, data / "tp8_pp1_sharegpt_qps_04.json")
    shutil.copy(VLLM / TP4PP2, data / "tp4_pp2_sharegpt_qps_inf.json")
    text = (SPECS / "llama70b-a100-tp8-vs-tp4pp2.cmp").read_text()
    price = '    price 1.00 USD/gpu/h basis assumed source "illustrative"\n'
    text = text.replace("    cache_hit_rate unknown\n", "    cache_hit_rate unknown\n" + price)
    text = text.replace("  disclosure {", f"  {fleet}\n\n  disclosure {{")
    spec = tmp_path / "llama.cmp"
    spec.write_text(text)
    return spec


def test_fleet_knots_carry_the_request_rate_the_vllm_run_states(tmp_path):
    """vLLM's TP8 run states `request_rate: 4.0` (TP4 x PP2: inf): the cost-cap read's knot is
    that run, so it carries 4.0 as the frontier point does, not null."""
    assert json.loads((VLLM / TP8).read_text())["request_rate"] == 4.0
    spec = _vllm_fleet_spec(tmp_path, "fleet { cost_cap 1.00 USD/Mtok }")
    results, _, _ = build(spec, tmp_path / "o")
    rates = {}
    for name in ("tp8", "tp4pp2"):
        (read,) = results["fleet"]["systems"][name]["cost_cap"]
        (knot,) = read["knots"]  # one run: the one knot, at_least or cannot_meet
        (point,) = results["systems"][name]["frontier"]
        assert knot == point
        rates[name] = knot["request_rate"]
    assert rates == {"tp8": 4.0, "tp4pp2": "inf"}


def _rows(out: Path) -> dict[str, dict[str, str]]:
    with (out / "figures.csv").open() as f:
        return {r["id"]: r for r in csv.DictReader(f)}


@pytest.mark.parametrize(
    ("cap", "target"),
    [("0.10", "30"), ("1.00", "30"), ("50", "30"), ("50", "5"), ("1.00", "5")],
    ids=["cannot", "met", "at-least", "at-least-users-bound", "met-users-bound"],
)
def test_a_bound_carries_a_one_sided_interval_and_never_two_ends(tmp_path, cap, target):
    """A read that is a lower bound (the fastest run within the cap; a target easier than every
    run) has its one-sided bound, the (1 - 95%) quantile of its replicates, and no two-sided
    interval, in results.json, report.md and figures.csv alike; an exact read the reverse."""
    out = tmp_path / "o"
    results, report, _ = build(
        SPECS / "synthetic-sweep.cmp", out, f"fleet.cost_cap={cap} USD/Mtok",
        f"latency.target={target} tok/s/user",
    )  # fmt: skip
    rows = _rows(out)
    section = report.split("## Fleet planning")[1].split("\n## ")[0]
    for name, entry in results["fleet"]["systems"].items():
        label = results["systems"][name]["label"]
        (read,) = entry["cost_cap"]
        fid = f"{name}.fleet.cost_cap.assumed.interactivity"
        line = next(x for x in section.splitlines() if x.startswith(f"| {label} | $"))
        if read["status"] == "at_least":
            bound = read["interactivity_one_sided_ci"]
            assert read["interactivity_ci"] is None and bound <= read["interactivity_tok_s_user"]
            assert f"| at least {bound:.1f} (one-sided) |" in line
            assert float(rows[f"{fid}_one_sided_low"]["value"]) == bound
            assert f"{fid}_ci_low" not in rows
        elif read["status"] == "met":
            low, high = read["interactivity_ci"]
            assert read["interactivity_one_sided_ci"] is None
            assert f"| {low:.1f} to {high:.1f} |" in line and f"{fid}_one_sided_low" not in rows
        users = entry["users_per_mw"]
        fid = f"{name}.fleet.users_per_mw"
        line = next(x for x in section.splitlines() if x.startswith(f"| {label} | ") and "W (" in x)
        if users["bound"] == "lower":
            bound = users["users_per_mw_one_sided_ci"]
            assert users["users_per_mw_ci"] is None and bound <= users["users_per_mw"]
            assert line.endswith(f"| at least {bound:,.0f} (one-sided) |")
            assert f"{fid}_ci_low" not in rows and f"{fid}_one_sided_low" in rows
        else:
            assert users["users_per_mw_one_sided_ci"] is None and users["users_per_mw_ci"]
            assert " to " in line.rsplit("|", 2)[1] and f"{fid}_one_sided_low" not in rows
    assert " to " not in "".join(x for x in section.splitlines() if "at least" in x)


def _footnote(report: str) -> str:
    (line,) = [x for x in report.splitlines() if x.startswith("[^fleet]: ")]
    return line


POWER_LINES = (
    "    power 1.2 kW basis provisioned source sample\n",
    "    power 1.5 kW basis provisioned source sample\n",
)
CAP = "fleet {\n    cost_cap 1.00 USD/Mtok\n  }"
STEFFEN = "by bisection on the Steffen cubic"


@pytest.mark.parametrize(
    ("edits", "sets", "present", "absent"),
    [
        ((), (), [STEFFEN, "Intervals: every bootstrap", "no PUE declared", "Power: alpha"],
         ["cannot be met", "is a bound", "one-sided", "linear segment", "× PUE"]),
        ((), ("latency.read=linear",), ["exactly on the linear segment"], ["Steffen"]),
        ((), ("latency.read=nearest",), ["at the fastest measured point within the cap"],
         ["Steffen", "bisection"]),
        ((), ("uncertainty=off",), [STEFFEN], ["Intervals", "bootstrap", "one-sided"]),
        ((), ("fleet.cost_cap=50 USD/Mtok",),
         ["the read is a bound: at least that run's interactivity", "one-sided 95% bound",
          "the 5% quantile for a lower bound"],
         ["bisection", "Steffen", "cannot be met", "upper bound"]),
        ((), ("fleet.cost_cap=50 USD/Mtok", "latency.metric=ttft", "latency.target=1000 ms"),
         ["as the P90 TTFT falls", "down to the latency", "at most that run's P90 TTFT",
          "the 95% quantile for an upper bound"],
         ["interactivity", "lower bound", "Users per MW", "bisection"]),
        ((), ("fleet.cost_cap=0.10 USD/Mtok",), ["the cap cannot be met"],
         ["bisection", "is a bound"]),
        ((), ("latency.target=5 tok/s/user",), ["a lower bound", "one-sided"], []),
        (POWER_LINES, (), ["Cost per million", STEFFEN], ["Users per MW", "Power:", "PUE"]),
        (((CAP, "fleet {\n    pue 1.2\n  }"),), (),
         ["Users per MW", "× PUE", "PUE 1.2 (the fleet's)"],
         ["Cost per million", "cap", "Steffen", "no PUE declared"]),
    ],
    ids=["sweep", "linear", "nearest", "uncertainty-off", "all-bounds", "ttft-bounds", "none-meet",
         "users-bound", "cost-cap-only", "users-per-mw-only"],
)  # fmt: skip
def test_the_fleet_footnote_states_only_what_this_build_did(
    sweep_copy, tmp_path, edits, sets, present, absent
):
    """Each sentence of `[^fleet]` holds for this build: the read method it names is the spec's,
    a bound or an unmet cap is described only where a read is one, intervals only where shown,
    power and PUE only where users per MW are read, the cost only where a cap is read."""
    for edit in edits:
        old, new = edit if isinstance(edit, tuple) else (edit, "")
        _edit(sweep_copy, old, new)
    note = _footnote(build(sweep_copy, tmp_path / "o", *sets)[1])
    assert [p for p in present if p not in note] == []
    assert [a for a in absent if a in note] == []


def test_one_run_per_system_the_footnote_names_no_crossing(tmp_path):
    """The real vLLM TP8 and TP4 x PP2 runs, one each, both cost more than $1.00/Mtok: no
    crossing was solved, no interval shown, no power declared, so the footnote says only the
    cost formula and that the cap cannot be met."""
    spec = _vllm_fleet_spec(tmp_path, "fleet { cost_cap 1.00 USD/Mtok }")
    results, report, _ = build(spec, tmp_path / "o")
    statuses = {e["cost_cap"][0]["status"] for e in results["fleet"]["systems"].values()}
    assert statuses == {"cannot_meet"}
    note = _footnote(report)
    assert "the cap cannot be met" in note
    for absent in ("bisection", "Steffen", "Intervals", "bound", "Users per MW", "Power:"):
        assert absent not in note


def test_a_tco_pue_is_named_as_the_tco_s_in_the_footnote(sweep_copy, tmp_path):
    """alpha's PUE stated only in its tco (1.4): its users per MW are its IT-power read over
    1.4, and the footnote says whose PUE it is (it printed `PUE 1.4 ()`)."""
    plain, _, _ = build(sweep_copy, tmp_path / "plain")
    tco = "    tco { capex 30000 USD/gpu; years 5; power 1.2 kW; pue 1.4; "
    tco += "electricity 0.10 USD/kWh }\n"
    _edit(sweep_copy, POWER_LINES[0], POWER_LINES[0] + tco)
    results, report, _ = build(sweep_copy, tmp_path / "o")
    a = plain["fleet"]["systems"]["alpha"]["users_per_mw"]
    b = results["fleet"]["systems"]["alpha"]["users_per_mw"]
    assert (b["pue"], b["pue_from"]) == (1.4, "tco")
    assert b["users_per_mw"] == pytest.approx(a["users_per_mw"] / 1.4, rel=1e-12)
    note = _footnote(report)
    assert "PUE 1.4 (its tco)" in note and "()" not in note
