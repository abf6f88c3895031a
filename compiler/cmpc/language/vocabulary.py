"""The words of the language: which keys each block takes and which values an enum allows."""

from __future__ import annotations

from typing import Literal, TypeGuard, TypeVar, get_args

# Blocks and the keys they accept. True marks keys that may repeat.
COMPARISON_KEYS = {
    "question": False,
    "baseline": False,
    "source": True,
    "latency": False,
    "tokens": False,
    "normalize": False,
    "system": True,
    "cost": False,
    "capacity": False,
    "claim": True,
    "sensitivity": False,
    "disclosure": False,
}
SOURCE_KEYS = dict.fromkeys(
    ("title", "role", "snapshot", "run_date", "retrieved", "url", "status", "publisher", "notes"),
    False,
)
LATENCY_KEYS = dict.fromkeys(
    ("metric", "ttft", "statistic", "target", "read", "percentile_method", "slo"), False
)
SLO_OPTIONS = dict.fromkeys(("ttft", "tpot", "e2el"), False)
TOKENS_KEYS = dict.fromkeys(("count", "reused", "hit_rate_margin"), False)
NORMALIZE_OPTIONS = dict.fromkeys(("per", "basis"), False)
SYSTEM_KEYS = {
    "label": False,
    "accelerator": False,
    "nodes": False,
    "gpus_per_node": False,
    "gpus_per_rack": False,
    "memory": False,
    "interconnect": False,
    "engine": False,
    "image": False,
    "model": False,
    "precision": False,
    "parallel": False,
    "speculative": False,
    "scheduler": False,
    "price": True,
    "power": False,
    "tco": False,
    "cache_hit_rate": False,
    "runs": False,
    "reported": False,
}
ACCELERATOR_OPTIONS = {"x": False}
MEMORY_OPTIONS = {"usable": False}
ENGINE_OPTIONS = {"version": False}
PRECISION_OPTIONS = dict.fromkeys(("weights", "kv_cache", "activations"), False)
PARALLEL_OPTIONS = dict.fromkeys(
    ("tp", "pp", "ep", "dp", "dcp", "pcp", "dp_attention", "prefill", "decode"), False
)
POOL_OPTIONS = dict.fromkeys(
    ("workers", "tp", "pp", "ep", "dp", "dcp", "pcp", "dp_attention"), False
)
SPECULATIVE_OPTIONS = dict.fromkeys(("draft", "acceptance"), False)
PRICE_OPTIONS = dict.fromkeys(("basis", "scenario", "source", "as_of"), False)
POWER_OPTIONS = dict.fromkeys(("basis", "source"), False)
TCO_KEYS = dict.fromkeys(
    ("capex", "years", "power", "pue", "electricity", "hosting", "ops", "source", "as_of"), False
)
RUNS_OPTIONS = dict.fromkeys(("format", "source", "where"), False)
REPORTED_KEYS = {
    "source": False,
    "statistic": False,
    "throughput": False,
    "ratio": False,
    "point": True,
    "cache_hit_rate": False,
    "input_share": False,
    "notes": False,
}
THROUGHPUT_OPTIONS = {"at": False}
RATIO_OPTIONS = {"to": False}
POINT_OPTIONS = {"conc": False}
COST_KEYS = dict.fromkeys(
    ("utilization", "per_million", "blend", "scenario", "max_price_age"), False
)
BLEND_OPTIONS = dict.fromkeys(("input", "output"), False)
CAPACITY_KEYS = dict.fromkeys(
    (
        "weights",
        "params",
        "weight_dtype",
        "layers",
        "kv_heads",
        "head_dim",
        "latent_dim",
        "rope_dim",
        "kv_dtype",
        "context",
        "concurrency",
        "reserve",
    ),
    False,
)
CLAIM_KEYS = dict.fromkeys(
    (
        "value",
        "kind",
        "scope",
        "period",
        "source",
        "status",
        "about",
        "gpus",
        "nodes",
        "compare_to",
    ),
    False,
)
SensitivityParameter = Literal[
    "tokens", "statistic", "utilization", "read", "price", "normalize", "target"
]
SENSITIVITY_PARAMETERS: tuple[SensitivityParameter, ...] = get_args(SensitivityParameter)
SENSITIVITY_KEYS: dict[str, bool] = dict.fromkeys(SENSITIVITY_PARAMETERS, False)

# Enumerations: each closed word set is a Literal type (what the IR's fields hold) and the tuple
# of its words (what the checker offers), the tuple taken from the type so the two cannot drift.
Role = Literal["self", "third_party", "vendor", "synthetic"]
Status = Literal["verified", "unverified", "self_reported"]
Metric = Literal["ttft", "tpot", "chunk_gap", "e2el", "e2e_per_token"]
TtftMode = Literal["excluded", "included"]
ReadMethod = Literal["steffen", "linear", "nearest", "calculator"]
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
    "inferencex",
    "cmpc",
]
TargetForm = Literal["interactivity", "latency"]
PoolRole = Literal["prefill", "decode"]
ReportedUnit = Literal["tok/s/gpu", "tok/s/node", "tok/s"]

ROLES: tuple[Role, ...] = get_args(Role)
STATUSES: tuple[Status, ...] = get_args(Status)
METRICS: tuple[Metric, ...] = get_args(Metric)
PER_TOKEN_METRICS: tuple[Metric, ...] = ("tpot", "chunk_gap", "e2e_per_token")
TTFT_MODES: tuple[TtftMode, ...] = get_args(TtftMode)
READ_METHODS: tuple[ReadMethod, ...] = get_args(ReadMethod)
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
