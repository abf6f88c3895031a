"""The checked comparison: names resolved, units canonical, defaults filled (see ir.schema.json)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from cmpc.jsontypes import JsonObject
from cmpc.language.vocabulary import (
    ClaimKind,
    CostBasis,
    CostPriceBasis,
    Format,
    IntervalFigure,
    IntervalMethod,
    Metric,
    NormalizeUnit,
    PercentileMethod,
    PoolRole,
    PowerBasis,
    PricePart,
    ReadMethod,
    ReportedUnit,
    ReusedMode,
    Role,
    Scope,
    SensitivityParameter,
    Status,
    TargetForm,
    TokenKind,
    TtftMode,
)

IR_VERSION = "1"
# Two values whose ratio is within this share of 1 are a tie: the default for `sensitivity { tie }`
DEFAULT_TIE_BAND = 0.005
# A price older than the data it prices by more than this many days warns (W130)
DEFAULT_MAX_PRICE_AGE_DAYS = 365.0


@dataclass(frozen=True)
class Source:
    """Who produced a set of figures, when, and whether anyone verified them."""

    name: str
    title: str | None = None
    role: Role = "self"
    snapshot: str | None = None
    run_date: str | None = None
    retrieved: str | None = None
    url: str | None = None
    status: Status = "unverified"
    publisher: str | None = None
    notes: str | None = None


@dataclass(frozen=True)
class Target:
    """The latency constraint's target, as given and in both equivalent forms."""

    given_as: TargetForm
    value: float
    unit: str
    interactivity_tok_s_user: float
    latency_ms: float


@dataclass(frozen=True)
class Latency:
    """Which latency is constrained, by which statistic, at which target, read how."""

    metric: Metric = "tpot"
    ttft: TtftMode = "excluded"
    statistic: str = "median"  # mean, median or pNN (p50 is median)
    target: Target | None = None
    read: ReadMethod = "steffen"
    percentile_method: PercentileMethod = "linear"
    slo: tuple[tuple[str, float], ...] = ()  # per-request limits in seconds, for goodput
    # run-level limits (statistic, metric, seconds): `slo p99 ttft 2 s`, for capacity at SLO
    percentile_slo: tuple[tuple[str, str, float], ...] = ()


@dataclass(frozen=True)
class Uncertainty:
    """Bootstrap confidence intervals: on or off, level, method, replicate count and seed."""

    enabled: bool = True
    confidence: float = 0.95
    method: IntervalMethod = "percentile"
    resamples: int = 2000
    seed: int = 1


@dataclass(frozen=True)
class Fleet:
    """Fleet-planner reads: the highest interactivity within a cost cap, users per megawatt."""

    cost_cap_usd_per_million_tokens: float | None = None
    pue: float | None = None  # facility over IT power; None: IT power only


@dataclass(frozen=True)
class Tokens:
    """Which tokens a throughput counts, and whether prefix-cached input counts."""

    count: tuple[TokenKind, ...] = ("input", "output")
    reused: ReusedMode = "included"
    hit_rate_margin: float = 0.05


@dataclass(frozen=True)
class Normalization:
    """The unit that throughput and cost are divided by."""

    per: NormalizeUnit = "gpu"
    power_basis: PowerBasis | None = None


@dataclass(frozen=True)
class Price:
    """A price per GPU-hour with its basis, source and date."""

    scenario: str
    usd_per_gpu_hour: float
    basis: CostPriceBasis
    source: str | None = None
    as_of: str | None = None
    # the parts given on the command line (`--set`): amount, basis, scenario, source, as_of
    set_on_command_line: tuple[PricePart, ...] = ()


@dataclass(frozen=True)
class Power:
    """Power per GPU and what it measures (measured, tdp or all-in provisioned)."""

    watts_per_gpu: float
    basis: PowerBasis
    source: str | None = None
    pue: float | None = None  # the facility's, where this system runs; None: the fleet's


@dataclass(frozen=True)
class Tco:
    """Parts of an hourly total cost of ownership per GPU."""

    capex_usd_per_gpu: float
    years: float
    power_watts: float | None = None
    pue: float = 1.0
    electricity_usd_per_kwh: float | None = None
    hosting_usd_per_gpu_hour: float = 0.0
    ops_usd_per_gpu_hour: float = 0.0
    source: str | None = None
    as_of: str | None = None


@dataclass(frozen=True)
class Pool:
    """One worker pool of a disaggregated deployment (prefill or decode)."""

    role: PoolRole
    workers: int = 1
    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    dcp: int = 1
    pcp: int = 1
    dp_attention: bool = False
    gpus: int = 1


@dataclass(frozen=True)
class Parallelism:
    """Parallel layout; `gpus` is the derived denominator (tp·pp·pcp, pools summed)."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    dcp: int = 1
    pcp: int = 1
    dp_attention: bool = False
    pools: tuple[Pool, ...] = ()
    gpus: int = 1
    declared: bool = False


@dataclass(frozen=True)
class Runs:
    """Benchmark output files: a glob relative to the spec and their format."""

    glob: str
    format: Format | None = None
    where: tuple[tuple[str, str], ...] = ()
    source: str | None = None


@dataclass(frozen=True)
class ReportedPoint:
    """One point of a reported sweep."""

    interactivity_tok_s_user: float
    throughput: float
    concurrency: float | None = None
    throughput_unit: ReportedUnit = "tok/s/gpu"


@dataclass(frozen=True)
class PublishedInterval:
    """An interval a source published for one reported figure; cmpc carries it, never computes it.

    `low`/`high` are in the figure's own unit (the reported throughput's, or a plain ratio).
    """

    figure: IntervalFigure
    confidence: float
    low: float
    high: float
    source: str
    as_of: str


@dataclass(frozen=True)
class Reported:
    """Figures published by a source instead of measured here; never re-aggregated."""

    source: str
    statistic: str | None = None
    throughput: float | None = None
    throughput_unit: ReportedUnit | None = None
    at_interactivity_tok_s_user: float | None = None
    ratio: float | None = None
    ratio_to: str | None = None
    points: tuple[ReportedPoint, ...] = ()
    intervals: tuple[PublishedInterval, ...] = ()
    cache_hit_rate: float | None = None
    input_share: float | None = None
    notes: str | None = None

    def interval(self, figure: IntervalFigure) -> PublishedInterval | None:
        """The interval published for `figure`, if one is declared."""
        return next((i for i in self.intervals if i.figure == figure), None)


@dataclass(frozen=True)
class System:
    """One side of the comparison."""

    name: str
    label: str
    accelerator: str | None = None
    count: int | None = None
    nodes: int = 1
    memory_bytes: float | None = None
    usable_memory_bytes: float | None = None
    interconnect: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    image: str | None = None
    model: str | None = None
    precision: tuple[tuple[str, str], ...] = ()
    parallel: Parallelism = field(default_factory=Parallelism)
    speculative: tuple[tuple[str, str], ...] = ()
    scheduler: tuple[tuple[str, str], ...] = ()
    prices: tuple[Price, ...] = ()
    power: Power | None = None
    tco: Tco | None = None
    cache_hit_rate: float | None = None
    cache_hit_rate_unknown: bool = False
    runs: Runs | None = None
    reported: Reported | None = None
    gpus_per_node: int | None = None
    gpus_per_rack: int | None = None
    billed_gpus: int | None = None  # GPUs paid for, when more than those used (whole VMs)


@dataclass(frozen=True)
class Cost:
    """How prices become cost per token."""

    utilization: float = 1.0
    per_million: CostBasis = "total"
    blend_input: float | None = None
    blend_output: float | None = None
    scenario: str | None = None
    max_price_age_days: float = DEFAULT_MAX_PRICE_AGE_DAYS  # older than the data by more: W130


@dataclass(frozen=True)
class Capacity:
    """Model memory needs: weights, KV cache per token, context and concurrency."""

    weight_bytes: float | None = None
    params: float | None = None
    weight_dtype: str | None = None
    layers: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    latent_dim: int | None = None
    rope_dim: int | None = None
    kv_dtype: str = "bf16"
    context_tokens: int | None = None
    concurrency: int = 1
    reserve: float = 0.0


@dataclass(frozen=True)
class Claim:
    """A free-standing published figure with its scope, period and provenance."""

    name: str
    value: float
    unit: str
    dimension: str
    canonical_value: float
    canonical_unit: str
    kind: ClaimKind = "volume"
    scope: Scope = "cluster"
    period: str | None = None
    source: str | None = None
    status: Status = "unverified"
    about: str | None = None
    gpus: int | None = None
    nodes: int | None = None
    compare_to: str | None = None


@dataclass(frozen=True)
class Alternative:
    """One alternative value of a sensitivity parameter (text for display, value for IR)."""

    text: str
    value: Any


@dataclass(frozen=True)
class SensitivityAxis:
    """A parameter varied in the sensitivity table."""

    parameter: SensitivityParameter
    alternatives: tuple[Alternative, ...]


@dataclass(frozen=True)
class Comparison:
    """A whole checked spec."""

    file: str
    title: str
    question: str | None
    baseline: str | None  # None only in a claims audit (claims, no systems)
    systems: tuple[System, ...]
    sources: tuple[Source, ...] = ()
    latency: Latency = field(default_factory=Latency)
    tokens: Tokens = field(default_factory=Tokens)
    normalize: Normalization = field(default_factory=Normalization)
    cost: Cost = field(default_factory=Cost)
    capacity: Capacity | None = None
    claims: tuple[Claim, ...] = ()
    sensitivity: tuple[SensitivityAxis, ...] = ()
    tie_band: float = DEFAULT_TIE_BAND  # a ratio within it of 1 is a tie, never a flip
    uncertainty: Uncertainty = field(default_factory=Uncertainty)
    fleet: Fleet | None = None
    disclosure: tuple[tuple[str, str], ...] = ()
    synthetic: bool = False

    def system(self, name: str) -> System:
        return next(s for s in self.systems if s.name == name)

    def source(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.name == name), None)

    def to_json(self) -> JsonObject:
        """The IR as JSON data, in the shape ir.schema.json describes."""
        doc: JsonObject = _jsonable(self)
        doc["ir_version"] = IR_VERSION
        return doc

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, indent=2) + "\n"


_KEYED = {"precision", "speculative", "scheduler", "disclosure", "slo"}


# each record class's field names, and False for every other type met: a warm rebuild turns
# seven IRs into JSON (its price-free digests), 1,300 values, and dataclasses.fields() per
# record was most of it
_FIELD_NAMES: dict[type, tuple[str, ...] | bool] = {}


def _jsonable(value: Any, key: str = "") -> Any:
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        record = dataclasses.is_dataclass(value) and not isinstance(value, type)
        names = _FIELD_NAMES[kind] = (
            tuple(f.name for f in dataclasses.fields(value)) if record else False
        )
    if isinstance(names, tuple):
        return {name: _jsonable(getattr(value, name), name) for name in names}
    if isinstance(value, tuple):
        if key in _KEYED or key == "where":
            return {k: v for k, v in value}
        return [_jsonable(v) for v in value]
    return value
