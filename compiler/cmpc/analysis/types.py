"""The results model's shape (results.json): one TypedDict per object of results.schema.json.

tests/test_types.py walks the schema against these types, so a key added to one is added to both.
No `from __future__ import annotations`: TypedDict reads NotRequired from evaluated annotations.
"""

from typing import Literal, NotRequired, TypedDict

from cmpc.jsontypes import JsonObject
from cmpc.language.vocabulary import (
    ClaimKind,
    CostBasis,
    CostPriceBasis,
    Metric,
    NormalizeUnit,
    PercentileMethod,
    PowerBasis,
    ReadMethod,
    ReusedMode,
    Role,
    Scope,
    SensitivityParameter,
    Status,
    TargetForm,
    TokenKind,
    TtftMode,
)

HitRateBasis = Literal["measured", "declared", "unknown"]  # compute.accounting.CacheSource
ReadKind = Literal[ReadMethod, "reported", "peak"]
Verdict = Literal["comparable", "directional signal only"]
Bound = Literal["lower"]  # a read at a target easier than every measured point
RatioBound = Literal["lower", "upper", "neither"]  # what a ratio of reads with bounds is
ReadAxis = Literal["interactivity", "latency"]  # the frontier's x axis
PueFrom = Literal["system", "fleet", "tco"]  # `power ... pue`, `fleet { pue }`, `tco { pue }`


# -- conditions: the comparison's method, as the IR states it ---------------------------------


class TargetConditions(TypedDict):
    given_as: TargetForm
    value: float
    unit: str
    interactivity_tok_s_user: float
    latency_ms: float


class LatencyConditions(TypedDict):
    metric: Metric
    ttft: TtftMode
    statistic: str
    target: TargetConditions | None
    read: ReadMethod
    axis: ReadAxis
    percentile_method: PercentileMethod
    slo: tuple[tuple[str, float], ...]
    percentile_slo: tuple[tuple[str, str, float], ...]


class TokenConditions(TypedDict):
    count: list[TokenKind]
    reused: ReusedMode
    hit_rate_margin: float


class NormalizeConditions(TypedDict):
    per: NormalizeUnit
    unit: str
    power_basis: PowerBasis | None


class CostConditions(TypedDict):
    utilization: float
    per_million: CostBasis
    blend_input: float | None
    blend_output: float | None
    scenario: str | None


class PercentileSketch(TypedDict):
    library: str
    kind: str
    relative_accuracy: float
    bound: str
    exact: list[str]


class Conditions(TypedDict):
    latency: LatencyConditions
    tokens: TokenConditions
    normalize: NormalizeConditions
    cost: CostConditions
    percentile_sketch: NotRequired[PercentileSketch]  # only with `--sketch`


# -- one system ---------------------------------------------------------------------------------


class PointResult(TypedDict):
    interactivity_tok_s_user: float
    throughput_per_gpu: float
    concurrency: float | None
    label: str
    request_rate: float | str | None  # requests/s the client was set to; "inf": all at once
    load: str | None  # the load as a label: `c64`, `4 req/s`, `sync`; None when unstated


class Relative(TypedDict):
    ratio: float
    to: str | None


class AtTarget(TypedDict):
    interactivity_tok_s_user: float | None
    latency_ms: float | None
    throughput_per_gpu: float | None
    throughput_per_unit: float | None
    unit: str
    reachable: bool | None
    method: ReadKind
    knots: list[PointResult]
    relative: Relative | None
    bound: Bound | None
    measured_at_interactivity_tok_s_user: float | None
    measured_at_latency_ms: float | None


class TcoHourly(TypedDict):
    capex_usd_per_gpu_hour: float
    energy_usd_per_gpu_hour: float
    hosting_usd_per_gpu_hour: float
    ops_usd_per_gpu_hour: float
    usd_per_gpu_hour: float
    energy_share: float


class HourlyCost(TypedDict):
    usd_per_gpu_hour: float
    scenario: str
    basis: CostPriceBasis
    source: str | None
    as_of: str | None
    set_on_command_line: list[str]  # the parts given with `--set` (amount, source, as_of, ...)
    tco: NotRequired[TcoHourly]  # only when the cost is the system's TCO


class PriceScenario(TypedDict):
    scenario: str
    usd_per_gpu_hour: float
    basis: CostPriceBasis
    source: str | None
    as_of: str | None
    set_on_command_line: list[str]
    usd_per_million_tokens: float | None


class CostResult(TypedDict):
    usd_per_gpu_hour: float | None
    # the price per GPU-hour the tokens cost: x billed / used GPUs (= the price when all are used)
    usd_per_used_gpu_hour: float | None
    gpus_billed: int | None
    gpus_used: int | None
    price: HourlyCost | None
    utilization: float
    token_basis: CostBasis
    usd_per_million_tokens: float | None
    tokens_per_usd: float | None
    scenarios: list[PriceScenario]


class Energy(TypedDict):
    watts_per_gpu: float
    basis: PowerBasis
    pue: float | None  # facility over IT power where the system runs; None: none stated
    pue_from: PueFrom | None
    joules_per_token: float | None
    tok_s_per_mw: float | None


class GoodputRun(TypedDict):
    concurrency: float | None
    label: str
    goodput_req_s_per_gpu: float | None
    slo_attainment: float | None


class Goodput(TypedDict):
    slo_ms: dict[str, float]
    runs: list[GoodputRun]
    best: GoodputRun | None


class Spread(TypedDict):
    mean: float | None
    std: float | None  # sample standard deviation (n - 1) between repetitions
    cv: float | None


class Repetition(TypedDict):
    concurrency: float | None
    runs: int
    labels: list[str]
    throughput_per_gpu: Spread
    latency_s: Spread


class RunInterval(TypedDict):
    label: str
    concurrency: float | None
    latency_s: float | None
    latency_s_ci: list[float] | None
    interactivity_ci: list[float] | None
    throughput_per_gpu_ci: list[float] | None


IntervalBasis = Literal["computed", "declared", "derived"]


class PublishedInterval(TypedDict):
    figure: Literal["throughput", "ratio"]
    confidence: float
    low: float
    high: float
    unit: str  # the figure's: its reported throughput unit, or `x` for a ratio
    source: str
    source_title: str | None
    as_of: str
    basis: Literal["declared"]


class SystemUncertainty(TypedDict):
    throughput_per_gpu_ci: list[float] | None
    throughput_per_gpu_one_sided_ci: float | None  # a lower-bound read's: see the schema
    interval_basis: IntervalBasis | None  # computed by cmpc, or declared (published by a source)
    published_intervals: list[PublishedInterval]
    reachable_share: float | None  # replicates whose frontier reaches the target
    runs: list[RunInterval]
    repetitions: list[Repetition]
    run_to_run: Literal["measured", "unknown"]
    note: str | None


class SloLimit(TypedDict):
    statistic: str
    metric: str
    limit_ms: float


class CapacityAtSlo(TypedDict):
    limits: list[SloLimit]
    load_key: Literal["concurrency", "request_rate"]
    method: str
    met: bool
    load: float | None
    load_ci: list[float] | None
    load_one_sided_ci: float | None  # bounded_by_sweep: "at least", so one-sided
    bracket: list[float]
    bounded_by_sweep: bool
    limiting: str | None
    throughput_per_gpu: float | None
    throughput_per_gpu_ci: list[float] | None
    usd_per_million_tokens: float | None
    usd_per_million_tokens_ci: list[float] | None
    note: str | None


class LatencyCdf(TypedDict):
    label: str  # the run, as points name it
    concurrency: float | None
    percentiles: list[float]
    ttft_s: list[float]
    tpot_s: list[float]


class PooledResult(TypedDict):
    load: dict[str, str]  # the load fields the pooled runs share, as the files state them
    runs: list[str]  # the runs pooled, as points name them
    metric: str
    values: int  # requests (values of `metric`) pooled
    method: str  # the percentile method (exact), or "ddsketch" (`--sketch`)
    relative_accuracy: float | None  # the sketch's α; None when exact
    latency_s: dict[str, float]  # statistic -> seconds, over every pooled value


class SystemResult(TypedDict):
    name: str
    label: str
    accelerator: str | None
    gpus: int | None
    engine: str | None
    engine_version: str | None
    data: Literal["runs", "reported"]
    source: str | None
    points: list[PointResult]
    frontier: list[PointResult]
    hit_rate: float | None
    hit_rate_basis: HitRateBasis
    notes: list[str]
    goodput: Goodput | None
    latency_cdf: LatencyCdf | None
    # which of a measured system's runs hold per-request data (the rest: the tool's aggregates)
    per_request: NotRequired[Literal["all", "some", "none"]]
    pooled: NotRequired[list[PooledResult]]  # only where repetitions share a load
    at_target: AtTarget
    cost: CostResult
    energy: Energy | None
    uncertainty: SystemUncertainty | None
    capacity_at_slo: CapacityAtSlo | None


# -- between systems ------------------------------------------------------------------------------


class Ratios(TypedDict):
    system: str
    baseline: str
    throughput_ratio: float | None
    per_gpu_throughput_ratio: float | None
    price_ratio: float | None
    cost_ratio: float | None
    cost_ratio_at_equal_price: float | None
    throughput_change: float | None
    cost_change: float | None
    winner: str | None
    cost_winner: str | None
    cost_unavailable: str | None
    goodput_ratio: float | None
    bound: RatioBound | None


class Load(TypedDict):
    comparable: bool | None
    systems: dict[str, list[str] | None]


class SensitivityRow(TypedDict):
    parameter: SensitivityParameter
    alternative: str
    available: bool
    reason: str | None
    throughput_ratio: float | None
    cost_ratio: float | None
    winner: str | None
    cost_winner: str | None
    bound: RatioBound | None  # as Ratios.bound: a winner is named only where it is established
    tie: bool  # the throughput ratio is within the tie band of 1
    cost_tie: bool
    throughput_ratio_ci: list[float] | None
    within_noise: bool | None  # the ratio's interval holds 1 or lies within the tie band
    flips: bool
    cost_flips: bool


class Sensitivity(TypedDict):
    declared: bool
    tie_band: float  # a ratio within this share of 1 is a tie, never a flip
    rows: list[SensitivityRow]


# -- claims, capacity, disclosure -----------------------------------------------------------------


class Derived(TypedDict):
    quantity: str
    value: float
    unit: str


class CannotDerive(TypedDict):
    quantity: str
    missing: str


class ClaimComparison(TypedDict):
    system: str
    scope: str  # gpu or node
    unit: str
    claim_value: float | None
    system_value: float | None
    ratio: float | None  # claim / system
    system_tokens: str  # which tokens the system's figure counts (a claim rarely says)
    note: str | None  # why there is no ratio


class ClaimResult(TypedDict):
    name: str
    value: float
    unit: str
    kind: ClaimKind
    scope: Scope
    period: str | None
    status: Status
    about: str | None
    source: str | None
    source_title: str | None
    derived: list[Derived]
    cannot_derive: list[CannotDerive]
    notes: list[str]
    compared_with: ClaimComparison | None  # with `compare_to`


class ClaimCombination(TypedDict):
    claims: list[str]
    quantity: str
    formula: str
    value: float | None
    missing: str | None
    note: str


class CapacitySystem(TypedDict):
    system: str
    usable_bytes_per_card: float | None
    usable_is_nominal: bool
    cards_needed: int | None
    cards_declared: int | None
    fits: bool | None  # the declared load fits on the declared cards (W517 when it does not)


class CapacityResult(TypedDict):
    weight_bytes: float | None
    kv_bytes_per_token: float
    kv_bytes: float
    bytes_needed: float
    context_tokens: int | None
    concurrency: int
    reserve: float
    systems: list[CapacitySystem]


DisclosureFrom = Literal["answer", "spec", "files"] | None

# `from` is a keyword: this one is spelled the functional way
DisclosureItem = TypedDict(
    "DisclosureItem",
    {
        "key": str,
        "question": str,
        "answer": str | None,
        "answered": bool,
        "from": DisclosureFrom,
        "five_questions": bool,
        "from_files": str | None,  # what the run files state, when the spec gives no answer
    },
)


class Disclosure(TypedDict):
    items: list[DisclosureItem]
    score: int
    total: int
    five_answered: int
    five_total: int
    verdict: Verdict


# -- the whole document -------------------------------------------------------------------------


# -- uncertainty (bootstrap intervals) and capacity at percentile SLOs ---------------------------


class HeadlineUncertainty(TypedDict):
    throughput_ratio_ci: list[float] | None
    cost_ratio_ci: list[float] | None
    # a bound ratio's one-sided bound, in the direction of `bound` (the cost's: the inverse)
    throughput_ratio_one_sided_ci: float | None
    cost_ratio_one_sided_ci: float | None
    cost_ratio_at_equal_price_one_sided_ci: float | None
    confidence: float | None
    within_noise: bool | None
    cost_within_noise: bool | None
    interval_note: str | None
    interval_basis: IntervalBasis | None  # computed, declared (as published) or derived from those
    interval_assumption: str | None  # how a declared or derived interval was found


class Headline(Ratios, HeadlineUncertainty):
    capacity_at_slo_ratio: float | None
    capacity_at_slo_ratio_ci: list[float] | None


class UncertaintyConditions(TypedDict):
    enabled: bool
    confidence: float
    method: Literal["percentile"]
    resamples: int
    seed: int


# -- fleet-planner reads (`fleet { cost_cap ... }`) ----------------------------------------------

CapStatus = Literal["met", "at_least", "cannot_meet"]
CapAxis = Literal["interactivity", "latency"]  # highest interactivity, or lowest latency


class CostCapRead(TypedDict):
    scenario: str
    usd_per_gpu_hour: float
    basis: str
    source: str | None
    status: CapStatus
    required_throughput_per_gpu: float
    interactivity_tok_s_user: float | None
    interactivity_ci: list[float] | None
    interactivity_one_sided_ci: float | None
    axis: CapAxis
    latency_ms: float | None
    latency_ms_ci: list[float] | None
    latency_ms_one_sided_ci: float | None  # axis latency, at_least: "at most", an upper bound
    throughput_per_gpu: float | None
    usd_per_million_tokens: float | None
    knots: list[PointResult]
    replicates_met: float | None


class UsersPerMw(TypedDict):
    users_per_mw: float
    users_per_mw_ci: list[float] | None
    users_per_mw_one_sided_ci: float | None
    bound: Bound | None
    interactivity_tok_s_user: float
    output_throughput_per_gpu: float
    streams_per_gpu: float
    watts_per_gpu: float
    pue: float | None
    pue_from: PueFrom | None  # the system's `power ... pue`, the fleet's, or its tco's
    gpus_per_mw: float
    basis: PowerBasis
    source: str | None


class FleetSystem(TypedDict):
    cost_cap: list[CostCapRead]
    cost_cap_note: str | None
    users_per_mw: UsersPerMw | None
    users_per_mw_note: str | None


class FleetRatio(TypedDict):
    system: str
    baseline: str
    quantity: Literal["interactivity_at_cost_cap", "latency_at_cost_cap", "users_per_mw"]
    scenario: str | None
    ratio: float | None
    ratio_ci: list[float] | None
    note: str | None


class Fleet(TypedDict):
    cost_cap_usd_per_million_tokens: float | None
    token_basis: CostBasis
    utilization: float
    pue: float | None
    method: str
    systems: dict[str, FleetSystem]
    ratios: list[FleetRatio]


class Analysis(TypedDict):
    """What `analysis.results.analyze` computes from the IR and the reduced runs."""

    title: str
    question: str | None
    baseline: str | None
    synthetic: bool
    conditions: Conditions
    systems: dict[str, SystemResult]
    headline: Headline | None
    load: Load | None
    comparisons: list[Ratios]
    claims: list[ClaimResult]
    claim_combinations: list[ClaimCombination]
    sensitivity: Sensitivity
    capacity: CapacityResult | None
    disclosure: Disclosure
    uncertainty: UncertaintyConditions
    fleet: Fleet | None


class SpecFile(TypedDict):
    file: str
    sha256: str


class OverrideResult(TypedDict):
    path: str
    value: str | None  # None: `--unset PATH` removed the key
    was: str | None  # the reviewed spec's own value, as written there; None: the spec had none


class SourceResult(TypedDict):
    name: str
    title: str | None
    role: Role
    snapshot: str | None
    run_date: str | None
    retrieved: str | None
    url: str | None
    status: Status
    publisher: str | None
    notes: str | None


class InputFile(TypedDict):
    path: str
    sha256: str
    format: str
    system: str
    runs: int
    reader: str


class WarningResult(TypedDict):
    code: str
    message: str


class Results(Analysis):
    """results.json: the analysis with what it was computed from (spec, inputs, IR, warnings)."""

    results_version: str
    cmpc_version: str
    spec: SpecFile
    overrides: list[OverrideResult]
    sources: list[SourceResult]
    inputs: list[InputFile]
    ir: JsonObject
    warnings: list[WarningResult]
