"""Denominators, cost per million tokens, TCO, power and ratios (methodology.md §8)."""

from __future__ import annotations

import math

import pytest

from cmpc.compute.accounting import TokenRates, TokenWeights
from cmpc.compute.cost import (
    DisaggregatedGpus,
    Pool,
    PowerBasis,
    PowerDraw,
    TcoParts,
    TokenBasis,
    blended_cost_per_million,
    compare,
    cost_per_million_tokens,
    disaggregated_gpus,
    disaggregated_per_gpu_throughput,
    gpus_from_parallelism,
    per_gpu_throughput,
    per_node,
    per_power,
    per_rack,
    tco_per_gpu_hour,
    tokens_per_usd,
)


@pytest.mark.parametrize(
    ("parallel", "gpus"),
    [
        ({"tp": 8}, 8),
        ({"tp": 8, "ep": 8, "dp_attention": True}, 8),
        ({"tp": 8, "dcp": 8}, 8),
        ({"tp": 4, "pp": 2}, 8),
        ({"tp": 8, "pp": 2, "pcp": 2, "dcp": 4, "ep": 16, "dp_attention": True}, 32),
        ({}, 1),
    ],
)
def test_gpus_are_tp_pp_pcp_and_dcp_ep_dp_attention_add_none(parallel, gpus):
    assert gpus_from_parallelism(**parallel) == gpus


def test_disaggregated_pools_count_their_workers():
    gpus = disaggregated_gpus(Pool(tp=4, workers=2), Pool(tp=8, pp=1, workers=2))
    assert gpus == DisaggregatedGpus(prefill=8, decode=16)
    assert gpus.total == 24


def test_disaggregated_per_gpu_uses_each_pool_for_its_tokens():
    per_gpu = disaggregated_per_gpu_throughput(24_000, 4_800, DisaggregatedGpus(8, 16))
    assert (per_gpu.input, per_gpu.output, per_gpu.total) == (3000, 300, 1200)


def test_aggregated_per_gpu_divides_by_one_count():
    per_gpu = per_gpu_throughput(20_000, 4_000, gpus_from_parallelism(tp=8))
    assert (per_gpu.input, per_gpu.output, per_gpu.total) == (2500, 500, 3000)


def test_token_basis_picks_the_rate():
    per_gpu = per_gpu_throughput(20_000, 4_000, 8)
    assert [per_gpu.on(b) for b in TokenBasis] == [3000, 2500, 500]
    assert per_gpu.on("output") == 500


def test_nothing_served_costs_infinitely_much_per_token():
    assert cost_per_million_tokens(1.5, 0) == math.inf
    assert per_power(0, PowerDraw(1.4, PowerBasis.TDP)).joules_per_token == math.inf


def test_node_and_rack_scale_the_per_gpu_rate():
    assert per_node(2600.2, 8) == pytest.approx(20_801.6)
    assert per_rack(1000, 72) == 72_000


@pytest.mark.parametrize(("utilization", "published"), [(1.0, 0.392), (0.4, 0.979)])
def test_cost_per_million_of_the_methodology_example(utilization, published):
    # $1.41/h (H200, owning) at 1,000 tok/s/GPU; published to three decimals.
    assert cost_per_million_tokens(1.41, 1000, utilization) == pytest.approx(published, abs=5e-4)


def test_tokens_per_usd_is_the_reciprocal_of_cost_per_token():
    per_million = cost_per_million_tokens(1.50, 6115.37, 0.6)
    assert tokens_per_usd(6115.37, 1.50, 0.6) == pytest.approx(1e6 / per_million, rel=1e-12)


def test_throughput_lead_at_equal_price_is_a_smaller_cost_cut():
    ratios = compare(1244, 1000)
    assert ratios.throughput_ratio == pytest.approx(1.244)
    assert ratios.cost_ratio == pytest.approx(0.8039, abs=5e-5)
    assert round(ratios.throughput_change * 100, 1) == 24.4
    assert round(ratios.cost_change * 100, 1) == -19.6  # never -24.4


def test_cost_ratio_is_price_ratio_over_throughput_ratio():
    ratios = compare(1244, 1000, price=1.50, baseline_price=2.26)
    assert ratios.cost_ratio == pytest.approx((1.50 / 2.26) / 1.244, rel=1e-12)
    per_m_a = cost_per_million_tokens(1.50, 1244)
    per_m_b = cost_per_million_tokens(2.26, 1000)
    assert ratios.cost_ratio == pytest.approx(per_m_a / per_m_b, rel=1e-12)


def test_tco_from_parts():
    parts = TcoParts(
        capex_usd=30_000,
        years=5,
        power_kw=1.4,
        pue=1.3,
        usd_per_kwh=0.10,
        hosting_usd_per_hour=0.10,
        ops_usd_per_hour=0.05,
    )
    tco = tco_per_gpu_hour(parts)
    assert tco.capex == pytest.approx(30_000 / 43_800, rel=1e-12)
    assert tco.power == pytest.approx(0.182, rel=1e-12)
    assert tco.total == pytest.approx(30_000 / 43_800 + 0.182 + 0.15, rel=1e-12)


def test_per_megawatt_and_joules_per_token_name_their_basis():
    normalized = per_power(6115.374724599756, PowerDraw(2.09, PowerBasis.PROVISIONED))
    assert normalized.basis is PowerBasis.PROVISIONED
    assert normalized.tokens_per_s_per_mw == pytest.approx(
        6115.374724599756 * 1000 / 2.09, rel=1e-12
    )
    assert normalized.joules_per_token == pytest.approx(2090 / 6115.374724599756, rel=1e-12)


def test_blended_cost_shares_gpu_time_by_weighted_tokens():
    rates = TokenRates(input=1000, output=200, input_cached=600)
    equal = blended_cost_per_million(2.0, rates, TokenWeights(1, 1, 1))
    assert equal.output == pytest.approx(cost_per_million_tokens(2.0, 1200), rel=1e-12)
    weighted = blended_cost_per_million(
        2.0, rates, TokenWeights(input=1, output=5, input_cached=0.1)
    )
    # Every dollar is allocated: Σ cost_k · tokens_k = price per hour.
    spent = (
        (
            weighted.input * rates.input_uncached
            + weighted.input_cached * rates.input_cached
            + weighted.output * rates.output
        )
        * 3600
        / 1e6
    )
    assert spent == pytest.approx(2.0, rel=1e-12)
    assert weighted.output / weighted.input == pytest.approx(5)
