"""What a system's throughput costs and draws: $/GPU-hour, TCO, $/M tokens, energy, unit scale."""

from __future__ import annotations

from cmpc.analysis import types as T
from cmpc.analysis.hardware import billed_gpus, gpu_count, gpus_per_node, used_share
from cmpc.analysis.tokens import cost_basis_matches
from cmpc.compute.cost import (
    PowerBasis,
    PowerDraw,
    TcoParts,
    cost_per_million_tokens,
    per_power,
    tco_per_gpu_hour,
    tokens_per_usd,
)
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V

UNITS: dict[V.NormalizeUnit, str] = {
    "gpu": "tok/s/gpu",
    "node": "tok/s/node",
    "rack": "tok/s/rack",
    "dollar": "tokens/USD",
    "mw": "tok/s/MW",
    "joule": "tokens/J",
}


def _price(system: ir.System, scenario: str | None) -> ir.Price | None:
    if not system.prices:
        return None
    if scenario is None:
        return system.prices[0]
    return next((p for p in system.prices if p.scenario == scenario), None)


def _tco_hourly(tco: ir.Tco) -> T.TcoHourly:
    parts = tco_per_gpu_hour(
        TcoParts(
            capex_usd=tco.capex_usd_per_gpu,
            years=tco.years,
            power_kw=(tco.power_watts or 0.0) / 1000,
            pue=tco.pue,
            usd_per_kwh=tco.electricity_usd_per_kwh or 0.0,
            hosting_usd_per_hour=tco.hosting_usd_per_gpu_hour,
            ops_usd_per_hour=tco.ops_usd_per_gpu_hour,
        )
    )
    return {
        "capex_usd_per_gpu_hour": parts.capex,
        "energy_usd_per_gpu_hour": parts.power,
        "hosting_usd_per_gpu_hour": parts.hosting,
        "ops_usd_per_gpu_hour": parts.ops,
        "usd_per_gpu_hour": parts.total,
        "energy_share": parts.power / parts.total,
    }


def hourly_cost(system: ir.System, scenario: str | None) -> T.HourlyCost | None:
    """The $/GPU-hour a system's cost uses: the scenario's price, else its TCO parts."""
    price = None if scenario == "tco" else _price(system, scenario)
    if price is not None:
        return {
            "usd_per_gpu_hour": price.usd_per_gpu_hour,
            "scenario": price.scenario,
            "basis": price.basis,
            "source": price.source,
            "as_of": price.as_of,
            "set_on_command_line": list(price.set_on_command_line),
        }
    if system.tco is not None:
        parts = _tco_hourly(system.tco)
        return {
            "usd_per_gpu_hour": parts["usd_per_gpu_hour"],
            "scenario": "tco",
            "basis": "tco",
            "source": system.tco.source,
            "as_of": system.tco.as_of,
            "set_on_command_line": [],
            "tco": parts,
        }
    return None


def facility_pue(comparison: ir.Comparison, system: ir.System) -> tuple[float, T.PueFrom] | None:
    """The PUE where `system` runs and who states it: its `power ... pue`, else `fleet { pue }`,
    else its `tco { pue }` (a tco PUE of 1, its default, states none); None: IT power only."""
    if system.power is not None and system.power.pue is not None:
        return system.power.pue, "system"
    if comparison.fleet is not None and comparison.fleet.pue is not None:
        return comparison.fleet.pue, "fleet"
    if system.tco is not None and system.tco.pue != 1.0:
        return system.tco.pue, "tco"
    return None


def pue_of(comparison: ir.Comparison, system: ir.System) -> float | None:
    """The PUE `facility_pue` finds, without who states it."""
    found = facility_pue(comparison, system)
    return found[0] if found else None


def scale(
    system: ir.System,
    per: V.NormalizeUnit,
    hourly: T.HourlyCost | None,
    utilization: float,
    pue: float | None = None,
) -> float | None:
    """The factor from tok/s per GPU to the normalization unit (None when a fact is missing);
    per MW counts facility power, the GPU's times `pue` (IT power alone without one)."""
    if per == "gpu":
        return 1.0
    if per == "node":
        return gpus_per_node(system)
    if per == "rack":
        return system.gpus_per_rack
    if per == "dollar":  # tokens per dollar: the dollars buy the billed GPUs
        if hourly is None:
            return None
        return 3600 * utilization / hourly["usd_per_gpu_hour"] * used_share(system)
    if per == "mw":
        return 1e6 / (system.power.watts_per_gpu * (pue or 1.0)) if system.power else None
    if per == "joule":
        return 1 / system.power.watts_per_gpu if system.power else None
    return None


def cost(
    comparison: ir.Comparison,
    system: ir.System,
    hourly: T.HourlyCost | None,
    per_gpu: float | None,
) -> T.CostResult:
    """$/M tokens and tokens/$ at the read throughput, for the cost scenario and every price."""
    terms = comparison.cost
    share = used_share(system)
    out: T.CostResult = {
        "usd_per_gpu_hour": hourly["usd_per_gpu_hour"] if hourly else None,
        "usd_per_used_gpu_hour": hourly["usd_per_gpu_hour"] / share if hourly else None,
        "gpus_billed": billed_gpus(system),
        "gpus_used": gpu_count(system),
        "price": hourly,
        "utilization": terms.utilization,
        "token_basis": terms.per_million,
        "usd_per_million_tokens": None,
        "tokens_per_usd": None,
        "scenarios": [],
    }
    if hourly is None:
        return out
    # the tokens of the used GPUs, paid for at the billed GPUs' price: per billed GPU
    counted = _cost_basis_throughput(per_gpu, comparison)
    basis_per_gpu = counted * share if counted else counted
    if basis_per_gpu:
        usd = hourly["usd_per_gpu_hour"]
        out["usd_per_million_tokens"] = cost_per_million_tokens(
            usd, basis_per_gpu, terms.utilization
        )
        out["tokens_per_usd"] = tokens_per_usd(basis_per_gpu, usd, terms.utilization)
    for price in system.prices:
        entry: T.PriceScenario = {
            "scenario": price.scenario,
            "usd_per_gpu_hour": price.usd_per_gpu_hour,
            "basis": price.basis,
            "source": price.source,
            "as_of": price.as_of,
            "set_on_command_line": list(price.set_on_command_line),
            "usd_per_million_tokens": None,
        }
        if basis_per_gpu:
            entry["usd_per_million_tokens"] = cost_per_million_tokens(
                price.usd_per_gpu_hour, basis_per_gpu, terms.utilization
            )
        out["scenarios"].append(entry)
    return out


def _cost_basis_throughput(per_gpu: float | None, comparison: ir.Comparison) -> float | None:
    """Per-GPU tokens/s on the cost's token basis; a read knows only the counted basis."""
    return per_gpu if per_gpu is not None and cost_basis_matches(comparison) else None


def energy(comparison: ir.Comparison, system: ir.System, per_gpu: float | None) -> T.Energy | None:
    """The system's power per GPU, its J/token (at the GPU's power) and tok/s per facility MW
    (the GPU's power times the PUE, when one is stated)."""
    if system.power is None:
        return None
    watts = system.power.watts_per_gpu
    pue = facility_pue(comparison, system)
    normalized = (
        per_power(per_gpu, PowerDraw(watts / 1000, PowerBasis(system.power.basis)))
        if per_gpu
        else None
    )
    return {
        "watts_per_gpu": watts,
        "basis": system.power.basis,
        "pue": pue[0] if pue else None,
        "pue_from": pue[1] if pue else None,
        "joules_per_token": normalized.joules_per_token if normalized else None,
        "tok_s_per_mw": normalized.tokens_per_s_per_mw / (pue[0] if pue else 1.0)
        if normalized
        else None,
    }
