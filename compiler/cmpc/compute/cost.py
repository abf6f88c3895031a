"""Normalization denominators, price, utilization, TCO, power and the revenue economics."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from cmpc.compute.accounting import TokenRates, TokenWeights, weighted_tokens

SECONDS_PER_HOUR = 3600
HOURS_PER_YEAR = 8760
TOKENS_PER_MILLION = 1e6


# ---------------------------------------------------------------------------------------------
# GPU denominators


def gpus_from_parallelism(
    tp: int = 1,
    pp: int = 1,
    pcp: int = 1,
    *,
    dcp: int = 1,
    ep: int = 1,
    dp_attention: bool = False,
) -> int:
    """GPUs of one serving instance: tp·pp·pcp.

    Decode-context parallelism shards the KV cache over the tensor-parallel ranks, expert
    parallelism spreads experts over the same ranks, and DP-attention replicates attention
    inside them: none of the three adds a GPU, so they are accepted and ignored.
    """
    del dcp, ep, dp_attention
    return tp * pp * pcp


@dataclass(frozen=True, slots=True)
class Pool:
    """One pool of identical workers (all of an aggregated system, or its prefill or decode)."""

    tp: int = 1
    pp: int = 1
    pcp: int = 1
    workers: int = 1

    @property
    def gpus(self) -> int:
        return gpus_from_parallelism(self.tp, self.pp, self.pcp) * self.workers


@dataclass(frozen=True, slots=True)
class DisaggregatedGpus:
    """GPU counts of a disaggregated system: prefill pool, decode pool, and both."""

    prefill: int
    decode: int

    @property
    def total(self) -> int:
        return self.prefill + self.decode


def disaggregated_gpus(prefill: Pool, decode: Pool) -> DisaggregatedGpus:
    """GPU counts of a disaggregated deployment from its two pools."""
    return DisaggregatedGpus(prefill.gpus, decode.gpus)


class TokenBasis(StrEnum):
    """Which token rate a cost or ratio is stated on."""

    TOTAL = "total"
    INPUT = "input"
    OUTPUT = "output"


@dataclass(frozen=True, slots=True)
class PerGpuThroughput:
    """Tokens per second per GPU on each basis."""

    input: float
    output: float
    total: float

    def on(self, basis: TokenBasis | str) -> float:
        rate: float = getattr(self, TokenBasis(basis).value)
        return rate


def per_gpu_throughput(input_tok_s: float, output_tok_s: float, gpus: int) -> PerGpuThroughput:
    """Aggregated system: every token rate divided by the one GPU count."""
    return PerGpuThroughput(
        input_tok_s / gpus, output_tok_s / gpus, (input_tok_s + output_tok_s) / gpus
    )


def disaggregated_per_gpu_throughput(
    input_tok_s: float, output_tok_s: float, gpus: DisaggregatedGpus
) -> PerGpuThroughput:
    """Disaggregated system: input per prefill GPU, output per decode GPU, total per all GPUs."""
    return PerGpuThroughput(
        input_tok_s / gpus.prefill,
        output_tok_s / gpus.decode,
        (input_tok_s + output_tok_s) / gpus.total,
    )


def per_node(throughput_per_gpu: float, gpus_per_node: int) -> float:
    """Throughput per node (e.g. 8 for HGX or an 8-GPU MI355X platform)."""
    return throughput_per_gpu * gpus_per_node


def per_rack(throughput_per_gpu: float, gpus_per_rack: int) -> float:
    """Throughput per rack (e.g. 72 for an NVL72 rack)."""
    return throughput_per_gpu * gpus_per_rack


# ---------------------------------------------------------------------------------------------
# Prices and cost


def cost_per_million_tokens(
    usd_per_gpu_hour: float, tokens_per_s_per_gpu: float, utilization: float = 1.0
) -> float:
    """$ per million tokens = price / (throughput·3600·utilization) · 1e6; inf if none served."""
    tokens_per_hour = tokens_per_s_per_gpu * SECONDS_PER_HOUR * utilization
    if tokens_per_hour == 0:
        return math.inf
    return usd_per_gpu_hour / tokens_per_hour * TOKENS_PER_MILLION


@dataclass(frozen=True, slots=True)
class BlendedCost:
    """$ per million tokens of each kind when GPU time is shared out by token weights."""

    input: float
    input_cached: float
    output: float


def blended_cost_per_million(
    usd_per_gpu_hour: float,
    rates_per_gpu: TokenRates,
    weights: TokenWeights,
    utilization: float = 1.0,
) -> BlendedCost:
    """Cost per million of each token kind, GPU time split in proportion to weight × rate."""
    per_weight = cost_per_million_tokens(
        usd_per_gpu_hour, weighted_tokens(rates_per_gpu, weights), utilization
    )
    return BlendedCost(
        input=weights.input * per_weight,
        input_cached=weights.input_cached * per_weight,
        output=weights.output * per_weight,
    )


def tokens_per_usd(
    tokens_per_s_per_gpu: float, usd_per_gpu_hour: float, utilization: float = 1.0
) -> float:
    """Tokens bought by one dollar of GPU time."""
    return tokens_per_s_per_gpu * SECONDS_PER_HOUR * utilization / usd_per_gpu_hour


@dataclass(frozen=True, slots=True)
class TcoParts:
    """Parts of an hourly total cost of ownership per GPU."""

    capex_usd: float
    years: float
    power_kw: float
    pue: float
    usd_per_kwh: float
    hosting_usd_per_hour: float = 0.0
    ops_usd_per_hour: float = 0.0


@dataclass(frozen=True, slots=True)
class TcoPerGpuHour:
    """An hourly TCO per GPU and its parts."""

    capex: float
    power: float
    hosting: float
    ops: float

    @property
    def total(self) -> float:
        return self.capex + self.power + self.hosting + self.ops


def tco_per_gpu_hour(parts: TcoParts) -> TcoPerGpuHour:
    """Straight-line capex over the years, power × PUE × $/kWh, hosting and operations."""
    return TcoPerGpuHour(
        capex=parts.capex_usd / (parts.years * HOURS_PER_YEAR),
        power=parts.power_kw * parts.pue * parts.usd_per_kwh,
        hosting=parts.hosting_usd_per_hour,
        ops=parts.ops_usd_per_hour,
    )


# ---------------------------------------------------------------------------------------------
# Power


class PowerBasis(StrEnum):
    """Where a per-GPU power figure comes from."""

    MEASURED = "measured"
    TDP = "tdp"
    PROVISIONED = "provisioned"  # all-in: chip plus its share of host, NICs and cooling


@dataclass(frozen=True, slots=True)
class PowerDraw:
    """Kilowatts per GPU on a named basis."""

    kw_per_gpu: float
    basis: PowerBasis


@dataclass(frozen=True, slots=True)
class PowerNormalized:
    """Throughput per megawatt and energy per token, on the power figure's basis."""

    tokens_per_s_per_mw: float
    joules_per_token: float
    basis: PowerBasis


def per_power(tokens_per_s_per_gpu: float, power: PowerDraw) -> PowerNormalized:
    """tok/s per MW = throughput·1000/kW; J/token = kW·1000/throughput (inf if none served)."""
    watts = power.kw_per_gpu * 1000
    return PowerNormalized(
        tokens_per_s_per_mw=tokens_per_s_per_gpu * 1000 / power.kw_per_gpu,
        joules_per_token=watts / tokens_per_s_per_gpu if tokens_per_s_per_gpu else math.inf,
        basis=power.basis,
    )


# ---------------------------------------------------------------------------------------------
# Ratios


@dataclass(frozen=True, slots=True)
class Ratios:
    """A system against the baseline: throughput ratio and the cost ratio it implies."""

    throughput_ratio: float
    price_ratio: float

    @property
    def cost_ratio(self) -> float:
        return self.price_ratio / self.throughput_ratio

    @property
    def throughput_change(self) -> float:
        return self.throughput_ratio - 1

    @property
    def cost_change(self) -> float:
        return self.cost_ratio - 1


def compare(
    throughput: float,
    baseline_throughput: float,
    price: float = 1.0,
    baseline_price: float = 1.0,
) -> Ratios:
    """Ratios of a system to the baseline; at equal price a 1.244 lead is a 0.8039 cost ratio."""
    return Ratios(throughput / baseline_throughput, price / baseline_price)


# ---------------------------------------------------------------------------------------------
# Revenue economics (InferenceX profit per gigawatt)


def blended_price_per_million(
    input_share: float,
    cache_hit: float,
    input_price: float,
    cached_input_price: float,
    output_price: float,
) -> float:
    """$/M over all tokens: s·(h·p_cached + (1−h)·p_in) + (1−s)·p_out."""
    input_price_blended = cache_hit * cached_input_price + (1 - cache_hit) * input_price
    return input_share * input_price_blended + (1 - input_share) * output_price


def revenue_per_gpu_hour(tokens_per_s_per_gpu: float, price_per_million: float) -> float:
    """Gross token revenue of one fully busy GPU-hour."""
    return tokens_per_s_per_gpu * SECONDS_PER_HOUR / TOKENS_PER_MILLION * price_per_million


def chips_per_gigawatt(kw_per_gpu: float) -> float:
    """GPUs one gigawatt of provisioned power feeds."""
    return 1e6 / kw_per_gpu


@dataclass(frozen=True, slots=True)
class GigawattYear:
    """Revenue, compute cost, model licence and profit of one gigawatt for one year."""

    gpus: float
    gpu_hours: float
    revenue: float
    compute: float
    licence: float

    @property
    def profit(self) -> float:
        return self.revenue - self.compute - self.licence

    @property
    def margin(self) -> float:
        return self.profit / self.revenue

    @property
    def profit_per_gpu_hour(self) -> float:
        return self.profit / self.gpu_hours


def gigawatt_year(
    revenue_per_busy_gpu_hour: float,
    usd_per_gpu_hour: float,
    kw_per_gpu: float,
    utilization: float,
    licence_fee: float,
) -> GigawattYear:
    """Revenue on sold hours, compute on every provisioned hour, licence as a share of revenue."""
    gpus = chips_per_gigawatt(kw_per_gpu)
    gpu_hours = gpus * HOURS_PER_YEAR
    revenue = revenue_per_busy_gpu_hour * gpu_hours * utilization
    return GigawattYear(
        gpus=gpus,
        gpu_hours=gpu_hours,
        revenue=revenue,
        compute=usd_per_gpu_hour * gpu_hours,
        licence=licence_fee * revenue,
    )


def break_even_utilization(
    revenue_per_busy_gpu_hour: float, usd_per_gpu_hour: float, licence_fee: float
) -> float:
    """Utilization at which revenue after the licence fee pays for every provisioned hour."""
    return usd_per_gpu_hour / (revenue_per_busy_gpu_hour * (1 - licence_fee))
