"""Per MW with a PUE: every place the power is stated names the PUE and the facility watts,
and a PUE on one system only (facility MW against IT MW) warns and cautions the headline.

The synthetic sweep (SYNTHETIC data, scripts/make_sample_traces.py) normalized per MW, alpha
at 1.2 kW provisioned and PUE 1.3 (1,200 x 1.3 = 1,560 W of facility power per GPU), beta at
1.5 kW provisioned.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .builds import build

ALPHA_POWER = "    power 1.2 kW basis provisioned source sample\n"
BETA_POWER = "    power 1.5 kW basis provisioned source sample\n"


def _per_mw(spec: Path, beta_pue: str | None = None) -> None:
    text = spec.read_text().replace("  normalize per gpu\n", "  normalize per mw\n")
    text = text.replace(ALPHA_POWER, ALPHA_POWER.replace(" source", " pue 1.3 source"))
    if beta_pue:
        text = text.replace(BETA_POWER, BETA_POWER.replace(" source", f" pue {beta_pue} source"))
    spec.write_text(text)


def test_the_pue_is_stated_wherever_the_power_is(sweep_copy: Path, tmp_path: Path) -> None:
    _per_mw(sweep_copy)
    results, report, _ = build(sweep_copy, tmp_path / "o")
    alpha = results["systems"]["alpha"]
    assert (alpha["energy"]["pue"], alpha["energy"]["pue_from"]) == (1.3, "system")
    # tok/s per facility MW: the per-GPU read over 1,560 W, by hand
    per_gpu = alpha["at_target"]["throughput_per_gpu"]
    assert abs(alpha["energy"]["tok_s_per_mw"] - per_gpu * 1e6 / 1560) < 1e-6
    power_row = next(line for line in report.splitlines() if line.startswith("| Power |"))
    assert "1,200 W per GPU (provisioned); PUE 1.3 (its `power` line): 1,560 W of facility " in (
        power_row
    )
    assert "1,500 W per GPU (provisioned); no PUE stated (IT power)" in power_row
    assert "| alpha (synthetic) | PUE | 1.3 | facility power = power per GPU × PUE" in report
    disclosed = next(line for line in report.splitlines() if line.startswith("| `power_basis`"))
    assert "PUE 1.3" in disclosed
    rows = csv.DictReader(io.StringIO((tmp_path / "o" / "figures.csv").read_text()))
    figures = {r["id"]: r for r in rows}
    assert float(figures["alpha.pue"]["value"]) == 1.3
    assert abs(float(figures["alpha.facility_watts_per_gpu"]["value"]) - 1200 * 1.3) < 1e-9
    assert "beta.facility_watts_per_gpu" not in figures


def test_a_pue_on_one_system_only_warns_and_cautions(sweep_copy: Path, tmp_path: Path) -> None:
    _per_mw(sweep_copy)
    _, report, diagnostics = build(sweep_copy, tmp_path / "o")
    assert [d.code for d in diagnostics if d.code == "W145"] == ["W145"]
    caution = next(line for line in report.splitlines() if "the megawatts differ" in line)
    assert caution.startswith("Caution: the megawatts differ: facility power")
    assert "IT power only (no PUE stated) for beta (synthetic)" in caution


def test_a_pue_on_every_system_neither_warns_nor_cautions(sweep_copy: Path, tmp_path: Path) -> None:
    _per_mw(sweep_copy, beta_pue="1.2")
    _, report, diagnostics = build(sweep_copy, tmp_path / "o")
    assert "W145" not in [d.code for d in diagnostics]
    assert "the megawatts differ" not in report and "no PUE stated" not in report
    assert "1,500 W per GPU (provisioned); PUE 1.2 (its `power` line): 1,800 W" in report
