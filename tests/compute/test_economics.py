"""The InferenceX profit-per-gigawatt worked example (inferencex.md §5.4), to published digits.

Every expected figure is parsed from the whitepaper input JSON, never typed in.
"""

from __future__ import annotations

import re

import pytest

from cmpc.compute.cost import (
    blended_price_per_million,
    break_even_utilization,
    chips_per_gigawatt,
    gigawatt_year,
    revenue_per_gpu_hour,
)

# The JSON's figures are the whitepaper's float64 results; the same formulas agree to rounding.
RTOL = 1e-12


def _percent(text: str) -> float:
    return float(text.rstrip("%")) / 100


def _prices(chart: dict) -> dict[str, float]:
    found = dict(re.findall(r"(Input|Cached Input|Output) \$([\d.]+)", chart["selling_prices"]))
    return {kind: float(value) for kind, value in found.items()}


@pytest.fixture
def economics(kimi_whitepaper):
    op = kimi_whitepaper["operating_point"]
    chart = kimi_whitepaper["chart"]
    prices = _prices(chart)
    blended = blended_price_per_million(
        op["input_share"],
        op["cache_hit"],
        input_price=prices["Input"],
        cached_input_price=prices["Cached Input"],
        output_price=prices["Output"],
    )
    return {
        "op": op,
        "blended": blended,
        "revenue_per_gpu_hour": revenue_per_gpu_hour(op["tput_per_gpu"], blended),
        "utilization": _percent(chart["utilization"]),
        "licence": _percent(chart["license_fee"]),
    }


def test_prices_are_read_from_the_chart(kimi_whitepaper):
    assert _prices(kimi_whitepaper["chart"]) == {"Input": 3.0, "Cached Input": 0.3, "Output": 15.0}


def test_blended_price_and_revenue_per_gpu_hour(economics):
    op = economics["op"]
    assert economics["blended"] == pytest.approx(op["blended_price_per_m"], rel=RTOL)
    assert economics["revenue_per_gpu_hour"] == pytest.approx(op["rev_per_gpu_hr_gross"], rel=RTOL)


def test_gpus_and_gpu_hours_per_gigawatt(economics):
    op = economics["op"]
    assert chips_per_gigawatt(op["power_kw"]) == pytest.approx(op["chips_per_gw"], rel=RTOL)
    year = gigawatt_year(economics["revenue_per_gpu_hour"], 1.5, op["power_kw"], 0.6, 0.3)
    assert year.gpu_hours == pytest.approx(op["gpu_hours_per_gw_year"], rel=RTOL)


@pytest.mark.parametrize("scenario", [0, 1])
def test_revenue_compute_licence_profit_margin(kimi_whitepaper, economics, scenario):
    published = kimi_whitepaper["scenarios"][scenario]
    year = gigawatt_year(
        economics["revenue_per_gpu_hour"],
        published["cost_per_gpu_hr"],
        economics["op"]["power_kw"],
        economics["utilization"],
        economics["licence"],
    )
    assert year.revenue == pytest.approx(published["revenue"], rel=RTOL)
    assert year.compute == pytest.approx(published["compute"], rel=RTOL)
    assert year.licence == pytest.approx(published["license"], rel=RTOL)
    assert year.profit == pytest.approx(published["profit"], rel=RTOL)
    assert year.margin == pytest.approx(published["margin"], rel=RTOL)
    assert year.profit_per_gpu_hour == pytest.approx(published["profit_per_chip_hr"], rel=RTOL)


def _billions(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"\$([\d.]+) billion", text)]


def test_prose_figures_round_to_the_published_digits(kimi_whitepaper, economics):
    op = economics["op"]
    owned, rented = (
        gigawatt_year(
            economics["revenue_per_gpu_hour"],
            s["cost_per_gpu_hr"],
            op["power_kw"],
            economics["utilization"],
            economics["licence"],
        )
        for s in kimi_whitepaper["scenarios"]
    )
    (revenue,) = _billions(kimi_whitepaper["summary"][0])
    assert round(owned.revenue / 1e9, 1) == revenue
    callout = kimi_whitepaper["callout"]
    assert [round(owned.profit / 1e9, 1), round(rented.profit / 1e9, 1)] == _billions(callout)
    margins = [float(m) for m in re.findall(r"([\d.]+)%", callout)]
    assert [round(owned.margin * 100, 1), round(rented.margin * 100, 1)] == margins
    method = " ".join(kimi_whitepaper["method"])
    (per_million,) = re.findall(r"\$([\d.]+) per million", method)
    assert round(economics["blended"], 2) == float(per_million)
    (gpus,) = re.findall(r"([\d,]+) GPUs per gigawatt", method)
    assert round(owned.gpus) == int(gpus.replace(",", ""))


def test_break_even_utilizations_of_the_caption(kimi_whitepaper, economics):
    caption = kimi_whitepaper["scenarios"][1]["caption"]
    rented_pct, owned_pct = (float(x) for x in re.findall(r"at ([\d.]+)%", caption))
    rented, owned = (
        break_even_utilization(economics["revenue_per_gpu_hour"], price, economics["licence"])
        for price in (3.0, 1.5)
    )
    assert round(rented * 100) == rented_pct
    assert round(owned * 100, 1) == owned_pct
