"""The words of the language: which keys each block takes and which values an enum allows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard, TypeVar, get_args

from cmpc.language import ranges, units

SensitivityParameter = Literal[
    "tokens", "statistic", "utilization", "read", "price", "normalize", "target"
]
SENSITIVITY_PARAMETERS: tuple[SensitivityParameter, ...] = get_args(SensitivityParameter)

# Enumerations: each closed word set is a Literal type (what the IR's fields hold) and the tuple
# of its words (what the checker offers), the tuple taken from the type so the two cannot drift.
Role = Literal["self", "third_party", "vendor", "synthetic"]
Status = Literal["verified", "unverified", "self_reported"]
Metric = Literal["ttft", "tpot", "chunk_gap", "e2el", "e2e_per_token"]
TtftMode = Literal["excluded", "included"]
ReadMethod = Literal["steffen", "linear", "nearest", "calculator"]
IntervalMethod = Literal["percentile"]  # bootstrap confidence interval methods offered
# numpy's names for its percentile methods (`numpy.percentile(method=...)`)
PercentileMethod = Literal[
    "linear",
    "lower",
    "higher",
    "nearest",
    "midpoint",
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
]
TokenKind = Literal["input", "output", "uncached_input", "cached_input"]
ReusedMode = Literal["included", "excluded"]
NormalizeUnit = Literal["gpu", "node", "rack", "dollar", "mw", "joule"]
PowerBasis = Literal["measured", "tdp", "provisioned"]
CostPriceBasis = Literal["on_demand", "reserved", "rental", "owning", "tco", "spot", "assumed"]
# the bases a price may state; a revenue price is refused as a cost (E115), so none reaches the IR
PriceBasis = Literal[CostPriceBasis, "revenue"]
CostBasis = Literal["total", "output", "input", "blended"]
ClaimKind = Literal["volume", "throughput", "revenue", "price", "cost", "other"]
Scope = Literal["gpu", "node", "cluster", "fleet"]
# the parts of a price `--set` can give (ir.Price.set_on_command_line)
PricePart = Literal["amount", "basis", "scenario", "source", "as_of"]
Format = Literal[
    "vllm",
    "vllm-sweep",
    "sglang",
    "aiperf",
    "aiperf-summary",
    "genai-perf",
    "guidellm",
    "llmperf",
    "genai-bench",
    "inference-perf",
    "mlperf",
    "llmd-report",
    "inferencex",
    "cmpc",
]
TargetForm = Literal["interactivity", "latency"]
PoolRole = Literal["prefill", "decode"]
ReportedUnit = Literal["tok/s/gpu", "tok/s/node", "tok/s"]
IntervalFigure = Literal["throughput", "ratio"]

ROLES: tuple[Role, ...] = get_args(Role)
STATUSES: tuple[Status, ...] = get_args(Status)
METRICS: tuple[Metric, ...] = get_args(Metric)
PER_TOKEN_METRICS: tuple[Metric, ...] = ("tpot", "chunk_gap", "e2e_per_token")
TTFT_MODES: tuple[TtftMode, ...] = get_args(TtftMode)
READ_METHODS: tuple[ReadMethod, ...] = get_args(ReadMethod)
INTERVAL_METHODS: tuple[IntervalMethod, ...] = get_args(IntervalMethod)
# Methods no longer offered, with why (E135): BCa's 95% intervals of a frontier read held the
# truth in 88-91% of simulated sweeps (docs/statistics.md, "Coverage")
WITHDRAWN_INTERVAL_METHODS: dict[str, str] = {
    "bca": "its 95% intervals of a frontier read held the truth in only 88-91% of simulated "
    "sweeps, short of the 90-99% an interval must meet",
}
READ_ALIASES: dict[str, ReadMethod] = {"spline": "steffen", "monotone": "steffen"}
PERCENTILE_METHODS: tuple[PercentileMethod, ...] = get_args(PercentileMethod)
TOKEN_KINDS: tuple[TokenKind, ...] = get_args(TokenKind)
REUSED_MODES: tuple[ReusedMode, ...] = get_args(ReusedMode)
NORMALIZATIONS: tuple[NormalizeUnit, ...] = get_args(NormalizeUnit)
POWER_BASES: tuple[PowerBasis, ...] = get_args(PowerBasis)
PRICE_BASES: tuple[PriceBasis, ...] = get_args(PriceBasis)
COST_BASES: tuple[CostBasis, ...] = get_args(CostBasis)
DTYPES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5}
CLAIM_KINDS: tuple[ClaimKind, ...] = get_args(ClaimKind)
SCOPES: tuple[Scope, ...] = get_args(Scope)
FORMATS: tuple[Format, ...] = get_args(Format)

W = TypeVar("W", bound=str)


def is_word(value: str, words: tuple[W, ...]) -> TypeGuard[W]:
    """True when `value` is one of `words` (and from then on typed as that word set)."""
    return value in words


# The disclosure checklist (reference/methodology.md §6): key -> the question a reader asks.
# The first five are the article's five questions.
FIVE_QUESTIONS = {
    "latency_metric": "Which latency metric and statistic is the constraint, and is TTFT in it?",
    "token_accounting": "Which tokens are counted, and what were each side's cache hit rates?",
    "normalization": "What is the throughput divided by, and at what price?",
    "load_conditions": "Under what load (concurrency or rate, sweep range) was it measured?",
    "measured_by": "Who measured it, and when?",
}
CHECKLIST = FIVE_QUESTIONS | {
    "measured_at": "When were the runs made, and when was the snapshot taken?",
    "source": "Where can the raw results be found (URL, run ID, commit)?",
    "verification": "Has anyone independent verified the figures?",
    "availability": "Are the hardware and software generally available, preview or internal?",
    "benchmark_version": "Which benchmark version and scenario produced the numbers?",
    "accelerator_model": "Which exact accelerator SKU (memory, power cap) was used?",
    "accelerator_count": "How many accelerators in total, over all pools and nodes?",
    "memory": "What is each accelerator's nominal and usable memory?",
    "interconnect": "Which interconnect and topology join the accelerators?",
    "host": "What host CPU, memory, storage and cooling did the systems have?",
    "engine_version": "Which engine version and container image ran?",
    "driver_stack": "Which driver stack (CUDA/ROCm, NCCL/RCCL, OS) ran?",
    "model_revision": "Which model revision, and was accuracy checked?",
    "precision": "Which precision for weights, activations and KV cache?",
    "parallelism": "Which parallel layout (TP/PP/EP/DP, disaggregation)?",
    "speculative_decoding": "Was speculative decoding used, and at what acceptance rate?",
    "scheduler": "Which scheduler parameters (batch sizes, chunked prefill)?",
    "dataset": "Which dataset or trace, with which input/output length distribution?",
    "output_length_control": "Was output length controlled (ignore_eos, min_tokens)?",
    "prefix_cache": "Was prefix caching on, and what was the hit rate per run?",
    "tokenizer": "Were token counts from the server or re-tokenized by the client?",
    "load_mode": "Closed loop at fixed concurrency, Poisson rate, or offline?",
    "num_requests": "How many requests, over how long?",
    "warmup": "Was there a warm-up, and was it excluded?",
    "repetitions": "How many repetitions and seeds; what is the run-to-run spread?",
    "client_placement": "Where did the load client run relative to the server?",
    "ttft_definition": "How is TTFT defined (client or server, queueing included)?",
    "tpot_definition": "How is the per-token latency defined?",
    "slo": "Which SLO thresholds apply, and what attainment is required?",
    "utilization": "What utilization does the cost assume?",
    "cost_token_basis": "Is cost per total, input or output token?",
    "revenue_vs_cost": "Are any figures token revenue rather than infrastructure cost?",
    "power_basis": "Is power measured, TDP or all-in provisioned, and at what PUE?",
}


# Blocks and the keys they accept: each key's kind (how check.decode reads it), whether it may
# repeat, whether it is required, and for some kinds what they read against. A missing optional
# key takes the default of the IR dataclass field it fills (`field`, else the key's own name).
KeyKind = Literal[
    "text",  # a string
    "word",  # a name out of `words` (or an alias)
    "date",  # YYYY-MM-DD, a calendar day
    "integer",  # a positive integer
    "number",  # a positive number within `range` (a count, unless given)
    "fraction",  # a percentage in (0, 100%]
    "share",  # a percentage in [0, 100%]
    "quantity",  # a number with a unit of `dimension`, canonical
    "statistic",  # mean, median or pNN
    "value",  # read by the block's own checker (references, sums, nested options)
    "block",  # a nested `{ ... }` block, decoded by its own checker
]


@dataclass(frozen=True)
class KeySpec:
    """One key a block takes: how it is read, and whether it repeats or must be given."""

    name: str
    kind: KeyKind = "value"
    repeats: bool = False
    required: bool = False
    words: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    dimension: units.Dimension | None = None
    range: ranges.Range = ranges.COUNT
    field: str = ""  # the IR field it fills, when not named like the key
    example: str = ""  # a value, for the help of a missing or malformed key


@dataclass(frozen=True)
class BlockSpec:
    """The keys of one block (or of one entry's inline options)."""

    name: str
    keys: tuple[KeySpec, ...]

    def allowed(self) -> dict[str, bool]:
        """key -> may repeat, in declaration order."""
        return {k.name: k.repeats for k in self.keys}

    def key(self, name: str) -> KeySpec:
        return next(k for k in self.keys if k.name == name)


# Keys whose value is one name (a declared source, system or scenario): the word after one of
# them is that name even when it is also a key word (`runs "x.json" source runs`).
NAME_VALUED = frozenset({"source", "to", "compare_to", "scenario", "baseline"})


def _words(*names: str, kind: KeyKind = "value") -> tuple[KeySpec, ...]:
    return tuple(KeySpec(n, kind) for n in names)


COMPARISON = BlockSpec(
    "comparison",
    (
        KeySpec("question", "text"),
        KeySpec("baseline"),
        KeySpec("source", "block", repeats=True, field="sources"),
        KeySpec("latency", "block"),
        KeySpec("tokens", "block"),
        KeySpec("normalize"),
        KeySpec("system", "block", repeats=True, field="systems"),
        KeySpec("cost", "block"),
        KeySpec("capacity", "block"),
        KeySpec("claim", "block", repeats=True, field="claims"),
        KeySpec("sensitivity", "block"),
        KeySpec("uncertainty", "block"),
        KeySpec("fleet", "block"),
        KeySpec("disclosure", "block"),
    ),
)
SOURCE = BlockSpec(
    "source",
    (
        KeySpec("title", "text"),
        KeySpec("role", "word", words=ROLES),
        KeySpec("snapshot", "date"),
        KeySpec("run_date", "date"),
        KeySpec("retrieved", "date"),
        KeySpec("url", "text"),
        KeySpec("status", "word", words=STATUSES),
        KeySpec("publisher", "text"),
        KeySpec("notes", "text"),
    ),
)
SLO = BlockSpec(
    "slo", tuple(KeySpec(m, "quantity", dimension=units.TIME) for m in ("ttft", "tpot", "e2el"))
)
TOKENS = BlockSpec(
    "tokens",
    (
        KeySpec("count"),
        KeySpec("reused", "word", words=REUSED_MODES),
        KeySpec("hit_rate_margin", "share"),
    ),
)
NORMALIZE_OPTIONS = dict.fromkeys(("per", "basis"), False)
SYSTEM = BlockSpec(
    "system",
    (
        KeySpec("label", "text"),
        KeySpec("accelerator"),
        KeySpec("nodes", "integer"),
        KeySpec("gpus_per_node", "integer"),
        KeySpec("gpus_per_rack", "integer"),
        KeySpec("billed_gpus", "integer"),
        KeySpec("memory"),
        KeySpec("interconnect", "text"),
        KeySpec("engine"),
        KeySpec("image", "text"),
        KeySpec("model", "text"),
        KeySpec("precision"),
        KeySpec("parallel"),
        KeySpec("speculative"),
        KeySpec("scheduler"),
        KeySpec("price", repeats=True, field="prices"),
        KeySpec("power"),
        KeySpec("tco", "block"),
        KeySpec("cache_hit_rate"),
        KeySpec("runs"),
        KeySpec("reported", "block"),
        KeySpec("interval", repeats=True, field=""),  # belongs in `reported`: W139
    ),
)
ACCELERATOR = BlockSpec("accelerator", (KeySpec("x", "integer", field="count"),))
MEMORY = BlockSpec("memory", (KeySpec("usable", "quantity", dimension=units.BYTES),))
ENGINE = BlockSpec("engine", (KeySpec("version"),))
PRECISION = BlockSpec("precision", _words("weights", "kv_cache", "activations"))
_DEGREES = tuple(KeySpec(k, "integer") for k in ("tp", "pp", "ep", "dp", "dcp", "pcp"))
PARALLEL = BlockSpec(
    "parallel",
    (*_DEGREES, KeySpec("dp_attention"), KeySpec("prefill"), KeySpec("decode")),
)
POOL = BlockSpec("pool", (KeySpec("workers", "integer"), *_DEGREES, KeySpec("dp_attention")))
SPECULATIVE = BlockSpec("speculative", _words("draft", "acceptance"))
PRICE = BlockSpec(
    "price",
    (
        KeySpec("basis", "word", words=PRICE_BASES),
        KeySpec("scenario"),
        KeySpec("source"),
        KeySpec("as_of", "date"),
    ),
)
# `power 1.2 kW basis provisioned pue 1.25 source S`: `pue` is where this system runs (users/MW)
POWER = BlockSpec(
    "power",
    (
        KeySpec("basis", "word", words=POWER_BASES),
        KeySpec("pue", "number", range=ranges.PUE, example="1.25"),
        KeySpec("source"),
    ),
)
TCO = BlockSpec(
    "tco",
    (
        KeySpec(
            "capex",
            "quantity",
            required=True,
            dimension=units.MONEY_PER_GPU,
            field="capex_usd_per_gpu",
            example="45000 USD/gpu",
        ),
        KeySpec("years", "number", required=True, range=ranges.YEARS, example="5"),
        KeySpec("power", "quantity", dimension=units.POWER, field="power_watts"),
        KeySpec("pue", "number", range=ranges.PUE),
        KeySpec(
            "electricity",
            "quantity",
            dimension=units.ENERGY_PRICE,
            field="electricity_usd_per_kwh",
        ),
        KeySpec(
            "hosting",
            "quantity",
            dimension=units.GPU_HOUR_PRICE,
            field="hosting_usd_per_gpu_hour",
        ),
        KeySpec("ops", "quantity", dimension=units.GPU_HOUR_PRICE, field="ops_usd_per_gpu_hour"),
        KeySpec("source"),
        KeySpec("as_of", "date"),
    ),
)
RUNS = BlockSpec(
    "runs", (KeySpec("format", "word", words=FORMATS), KeySpec("source"), KeySpec("where"))
)
REPORTED = BlockSpec(
    "reported",
    (
        KeySpec("source", required=True, example="NAME"),
        KeySpec("statistic", "statistic"),
        KeySpec("throughput"),
        KeySpec("ratio"),
        KeySpec("point", repeats=True, field="points"),
        KeySpec("interval", repeats=True, field="intervals"),
        KeySpec("cache_hit_rate", "share"),
        KeySpec("input_share", "share"),
        KeySpec("notes", "text"),
    ),
)
THROUGHPUT = BlockSpec("throughput", (KeySpec("at", "quantity", dimension=units.INTERACTIVITY),))
RATIO = BlockSpec("ratio", (KeySpec("to"),))
POINT = BlockSpec("point", (KeySpec("conc", "number", range=ranges.RATIO),))
# a published interval: `interval throughput 95% 2480 to 2720 tok/s/gpu source ix as_of DATE`
INTERVAL = BlockSpec("interval", (KeySpec("source"), KeySpec("as_of", "date")))
INTERVAL_FIGURES: tuple[IntervalFigure, ...] = get_args(IntervalFigure)
COST = BlockSpec(
    "cost",
    (
        KeySpec("utilization", "fraction"),
        KeySpec("per_million", "word", words=COST_BASES),
        KeySpec("blend"),
        KeySpec("scenario"),
        KeySpec("max_price_age", "quantity", dimension=units.TIME),
    ),
)
BLEND = BlockSpec(
    "blend", tuple(KeySpec(k, "number", range=ranges.RATIO) for k in ("input", "output"))
)
_INTEGERS = ("layers", "kv_heads", "head_dim", "latent_dim", "rope_dim")
CAPACITY = BlockSpec(
    "capacity",
    (
        KeySpec("weights", "quantity", dimension=units.BYTES, field="weight_bytes"),
        KeySpec("params", "number", range=ranges.PARAMS),
        KeySpec("weight_dtype", "word", words=tuple(DTYPES)),
        *(KeySpec(k, "integer", required=k == "layers") for k in _INTEGERS),
        KeySpec("kv_dtype", "word", words=tuple(DTYPES)),
        KeySpec("context", field="context_tokens"),
        KeySpec("concurrency", "integer"),
        KeySpec("reserve", "share"),
    ),
)
CLAIM = BlockSpec(
    "claim",
    (
        KeySpec("value", required=True, example="155e12 tokens/day"),
        KeySpec("kind", "word", words=CLAIM_KINDS),
        KeySpec("scope", "word", words=SCOPES),
        KeySpec("period"),
        KeySpec("source"),
        KeySpec("status", "word", words=STATUSES),
        KeySpec("about", "text"),
        KeySpec("gpus", "integer"),
        KeySpec("nodes", "integer"),
        KeySpec("compare_to"),
    ),
)
LATENCY = BlockSpec(
    "latency",
    (
        KeySpec("metric", "word", words=METRICS),
        KeySpec("ttft", "word", words=TTFT_MODES),
        KeySpec("statistic", "statistic"),
        KeySpec("target"),
        KeySpec("read", "word", words=READ_METHODS, aliases=tuple(READ_ALIASES.items())),
        KeySpec("percentile_method", "word", words=PERCENTILE_METHODS),
        # `slo ttft 2 s tpot 50 ms` (per request: goodput) and `slo p99 ttft 2 s ...` (per run)
        KeySpec("slo", repeats=True),
    ),
)
# `tie`: two values whose ratio lies within this share of 1 are a tie, never a flipped winner
SENSITIVITY = BlockSpec(
    "sensitivity", (*_words(*SENSITIVITY_PARAMETERS), KeySpec("tie", "share", field="tie_band"))
)
# `uncertainty { confidence 95%  method percentile  resamples 2000  seed 1 }`, or `uncertainty off`
UNCERTAINTY = BlockSpec(
    "uncertainty",
    (
        KeySpec("confidence", "share", example="95%"),
        KeySpec("method", "word", words=INTERVAL_METHODS + tuple(WITHDRAWN_INTERVAL_METHODS)),
        KeySpec("resamples", "integer", range=ranges.RESAMPLES, example="2000"),
        KeySpec("seed", "integer", range=ranges.SEED, example="1"),
    ),
)
# `fleet { cost_cap 2.00 USD/Mtok  pue 1.3 }`: InferenceX's fleet-planner reads
FLEET = BlockSpec(
    "fleet",
    (
        KeySpec(
            "cost_cap",
            "quantity",
            dimension=units.TOKEN_PRICE,
            field="cost_cap_usd_per_million_tokens",
            example="2.00 USD/Mtok",
        ),
        KeySpec("pue", "number", range=ranges.PUE, example="1.3"),
    ),
)
DISCLOSURE = BlockSpec(
    "disclosure",
    tuple(KeySpec(k, "text", example='"closed loop, concurrency 1-70"') for k in CHECKLIST),
)

# Each block's keys as {key: may repeat}, for the readers of inline options and `--set`.
COMPARISON_KEYS = COMPARISON.allowed()
SOURCE_KEYS = SOURCE.allowed()
LATENCY_KEYS = LATENCY.allowed()
SLO_OPTIONS = SLO.allowed()
TOKENS_KEYS = TOKENS.allowed()
SYSTEM_KEYS = SYSTEM.allowed()
ACCELERATOR_OPTIONS = ACCELERATOR.allowed()
MEMORY_OPTIONS = MEMORY.allowed()
ENGINE_OPTIONS = ENGINE.allowed()
PRECISION_OPTIONS = PRECISION.allowed()
PARALLEL_OPTIONS = PARALLEL.allowed()
POOL_OPTIONS = POOL.allowed()
SPECULATIVE_OPTIONS = SPECULATIVE.allowed()
PRICE_OPTIONS = PRICE.allowed()
POWER_OPTIONS = POWER.allowed()
TCO_KEYS = TCO.allowed()
RUNS_OPTIONS = RUNS.allowed()
REPORTED_KEYS = REPORTED.allowed()
THROUGHPUT_OPTIONS = THROUGHPUT.allowed()
RATIO_OPTIONS = RATIO.allowed()
POINT_OPTIONS = POINT.allowed()
COST_KEYS = COST.allowed()
BLEND_OPTIONS = BLEND.allowed()
CAPACITY_KEYS = CAPACITY.allowed()
CLAIM_KEYS = CLAIM.allowed()
SENSITIVITY_KEYS = SENSITIVITY.allowed()
UNCERTAINTY_KEYS = UNCERTAINTY.allowed()
FLEET_KEYS = FLEET.allowed()
