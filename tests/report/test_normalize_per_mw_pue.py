"""`normalize per mw` divides by facility power: the GPU's power times the PUE where the system
runs (InferenceX's power planning: facility W = IT W x PUE), and says so in the [^norm]
footnote; without a PUE the megawatt is IT power and the footnote says no PUE was applied.

Worked example over the real vLLM 0.8.3 runs in ../shared/oracle, whose summaries publish
total_token_throughput 1,351.17 tok/s (TP8) and 1,865.54 tok/s (TP4 x PP2), 8 GPUs each, at a
declared 1.2 kW per GPU: TP8 at PUE 1.25 is 1,351.17 / 8 x 10^6 / (1,200 x 1.25) = 112,597.6
tok/s per facility MW; TP4 x PP2 without a PUE is 1,865.54 / 8 x 10^6 / 1,200 = 194,326.9 tok/s
per IT MW.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO.parent / "shared" / "oracle" / "vllm"
RUN = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_{}_sharegpt_qps_{}.json"
FILES = {"tp8": RUN.format("tp8_pp1", "04"), "tp4pp2": RUN.format("tp4_pp2", "inf")}
TCO = "tco { capex 30000 USD/gpu; years 5; power 1.2 kW; pue PUE; electricity 0.10 USD/kWh }"


def published(name: str) -> float:
    """vLLM's own total tokens/s of the run, per GPU (8 GPUs)."""
    return json.loads((ORACLE / FILES[name]).read_text())["total_token_throughput"] / 8


def spec(power: dict[str, str], extra: dict[str, str] | None = None, fleet: str = "") -> str:
    systems = "".join(
        f"""
  system {name} {{
    accelerator "NVIDIA A100 SXM4 40GB" x 8
    engine vllm version "0.8.3"
    model "meta-llama/Llama-3.3-70B-Instruct"
    {power[name]}
    {(extra or {}).get(name, "")}
    runs "data/{file}" format vllm
  }}
"""
        for name, file in FILES.items()
    )
    return f"""comparison "per MW" {{
  question "Which serves more tokens per megawatt?"
  baseline tp8
  latency {{
    metric tpot
    statistic p90
  }}
  tokens {{
    count input + output
    reused included
  }}
  normalize per mw
  uncertainty off
  {fleet}
{systems}}}
"""


def build(tmp: Path, text: str) -> dict[str, Any]:
    (tmp / "data").mkdir()
    for f in FILES.values():
        shutil.copy(ORACLE / f, tmp / "data" / f)
    (tmp / "s.cmp").write_text(text)
    outcome = build_spec(str(tmp / "s.cmp"), out_dir=str(tmp / "out"))
    assert not has_errors(outcome.diagnostics), outcome.diagnostics
    report = (tmp / "out" / "report.md").read_text()
    return {
        "results": json.loads((tmp / "out" / "results.json").read_text()),
        "norm": re.search(r"^\[\^norm\]: (.*)$", report, re.M).group(1),  # type: ignore[union-attr]
    }


def per_unit(built: dict[str, Any], name: str) -> float:
    return built["results"]["systems"][name]["at_target"]["throughput_per_unit"]


POWER = "power 1.2 kW basis provisioned"


def test_a_systems_own_pue_makes_facility_megawatts(tmp_path: Path) -> None:
    built = build(tmp_path, spec({"tp8": f"{POWER} pue 1.25", "tp4pp2": POWER}))
    assert per_unit(built, "tp8") == pytest.approx(published("tp8") * 1e6 / 1500, rel=1e-9)
    assert per_unit(built, "tp8") == pytest.approx(112_597.6, abs=0.05)
    assert per_unit(built, "tp4pp2") == pytest.approx(published("tp4pp2") * 1e6 / 1200, rel=1e-9)
    assert per_unit(built, "tp4pp2") == pytest.approx(194_326.9, abs=0.05)
    head = built["results"]["headline"]
    assert head["throughput_ratio"] == pytest.approx(
        published("tp4pp2") / 1200 / (published("tp8") / 1500), rel=1e-9
    )
    assert head["throughput_ratio"] == pytest.approx(head["per_gpu_throughput_ratio"] * 1.25)
    energy = built["results"]["systems"]["tp8"]["energy"]
    assert (energy["pue"], energy["pue_from"]) == (1.25, "system")
    assert energy["tok_s_per_mw"] == pytest.approx(per_unit(built, "tp8"), rel=1e-12)
    assert "tp8 1,200 W × PUE 1.25 (its `power` line) = 1,500 W" in built["norm"]
    assert "tp4pp2 1,200 W (no PUE declared: IT power)" in built["norm"]
    assert "compares facility megawatts with IT megawatts" in built["norm"]


def test_without_a_pue_the_megawatt_is_it_power_and_the_footnote_says_so(tmp_path: Path) -> None:
    built = build(tmp_path, spec({"tp8": POWER, "tp4pp2": POWER}))
    assert per_unit(built, "tp8") == pytest.approx(published("tp8") * 1e6 / 1200, rel=1e-9)
    head = built["results"]["headline"]
    assert head["throughput_ratio"] == pytest.approx(head["per_gpu_throughput_ratio"], rel=1e-12)
    assert built["results"]["systems"]["tp8"]["energy"]["pue"] is None
    assert "a megawatt of IT power: no PUE is declared, so none was applied" in built["norm"]


@pytest.mark.parametrize(
    ("extra", "fleet", "pue", "whose"),
    [
        ({"tp8": TCO.replace("PUE", "1.3")}, "", 1.3, "its `tco`"),
        ({}, "fleet { pue 1.4 }", 1.4, "the `fleet` block's"),
    ],
)
def test_the_fleets_or_the_tcos_pue_applies_when_the_power_line_has_none(
    tmp_path: Path, extra: dict[str, str], fleet: str, pue: float, whose: str
) -> None:
    built = build(tmp_path, spec({"tp8": POWER, "tp4pp2": POWER}, extra, fleet))
    watts = 1200 * pue
    assert per_unit(built, "tp8") == pytest.approx(published("tp8") * 1e6 / watts, rel=1e-9)
    assert f"tp8 1,200 W × PUE {pue:g} ({whose}) = {watts:,.0f} W" in built["norm"]
    if fleet:  # the fleet's PUE is every system's: both count facility megawatts
        assert "compares facility megawatts with IT megawatts" not in built["norm"]


def test_users_per_mw_take_the_same_pue_as_the_normalization(tmp_path: Path) -> None:
    text = spec({"tp8": POWER, "tp4pp2": POWER}, {"tp8": TCO.replace("PUE", "1.3")}, "fleet { }")
    text = text.replace("statistic p90\n", "statistic p90\n    target 5 tok/s/user\n")
    built = build(tmp_path, text)
    users = built["results"]["fleet"]["systems"]["tp8"]["users_per_mw"]
    assert (users["pue"], users["pue_from"]) == (1.3, "tco")
    assert users["gpus_per_mw"] == pytest.approx(1e6 / 1560)
