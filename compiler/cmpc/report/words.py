"""The report's words: names of metrics, reads, units and roles, and the phrases built from them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from cmpc.report.text import Md, number

METRICS = {
    "tpot": "TPOT, the time per output token of each request: (end-to-end latency \u2212 TTFT) / "
    "(output tokens \u2212 1)",
    "chunk_gap": "chunk gap: every gap between consecutive streamed chunks, pooled over all "
    "requests (what vLLM calls ITL)",
    "ttft": "TTFT, the time from sending a request to receiving its first token, at the client",
    "e2el": "end-to-end latency of each request, from sending it to receiving its last token",
    "e2e_per_token": "end-to-end latency per output token of each request: end-to-end latency / "
    "output tokens",
}
METRIC_NAMES = {
    "tpot": "TPOT",
    "chunk_gap": "chunk gap",
    "ttft": "TTFT",
    "e2el": "end-to-end latency",
    "e2e_per_token": "end-to-end latency per token",
}
READS = {
    "steffen": Md(
        "Steffen (1990) monotone cubic spline through the Pareto frontier (the curve d3's "
        "`curveMonotoneX` draws on the InferenceX dashboard), between the two frontier points "
        "around the target"
    ),
    "linear": Md("linear interpolation between the two frontier points around the target"),
    "nearest": Md("the nearest frontier point to the target (the faster one on a tie)"),
    "calculator": Md(
        "InferenceX's calculator rule (`interpolateForGPU`, and `iso_interactivity.py` for its "
        "blog tables): Steffen monotone cubic Hermite through the Pareto frontier with its end "
        "slopes applied on two knots too, so a two-knot segment bends where d3's curve is "
        "straight, clamped to the frontier's range"
    ),
}  # Markdown already: the Steffen read names d3's function as code
PER = {
    "gpu": "per GPU",
    "node": "per node",
    "rack": "per rack",
    "dollar": "per dollar",
    "mw": "per MW",
    "joule": "per joule",
}
ROLES = {
    "self": "measured by the author",
    "third_party": "third party",
    "vendor": "vendor",
    "synthetic": "synthetic",
}
PARAMETERS = {
    "tokens": "token accounting",
    "statistic": "statistic",
    "utilization": "utilization",
    "read": "read method",
    "price": "price scenario",
    "normalize": "normalization unit",
    "target": "target",
}


def latency_name(latency: Mapping[str, Any]) -> str:
    """The constrained statistic and metric of results' `conditions.latency`: `P90 TTFT`."""
    metric = latency.get("metric") or "latency"
    return f"{statistic_name(latency.get('statistic'))} {METRIC_NAMES.get(metric, metric)}"


def statistic_name(stat: str | None) -> str:
    if not stat:
        return "the statistic"
    if stat == "median":
        return "median (P50)"
    if stat == "mean":
        return "mean"
    if stat.startswith("p"):
        return "P" + stat[1:]
    return stat


def _natural(text: str) -> list:
    return [int(t) if t.isdigit() else t for t in _DIGITS.split(text)]


def load_text(conditions: Iterable[object]) -> Md:
    """Load conditions in natural order; `conc 1; conc 2; conc 4` becomes `conc 1, 2, 4`."""
    items = sorted((str(c) for c in conditions), key=_natural)
    pairs = [m for c in items if (m := _KEY_NUMBER.fullmatch(c))]
    if items and len(pairs) == len(items) and len({p.group(1) for p in pairs}) == 1:
        return Md("{} ").format(pairs[0].group(1)) + Md(", ").join(p.group(2) for p in pairs)
    return Md("; ").join(items)


def plural(n: int, word: str) -> Md:
    return Md("{} {}").format(number(n), word + ("" if n == 1 else "s"))


def token_phrase(count: Iterable[str] | None) -> str:
    kinds = list(count or [])
    if set(kinds) == {"input", "output"}:
        return "total tokens"
    if kinds == ["output"]:
        return "output tokens"
    words = {
        "input": "input",
        "output": "output",
        "uncached_input": "uncached input",
        "cached_input": "cached input",
    }
    return " + ".join(words.get(k, k) for k in kinds) + " tokens"


# compiled by the module's body: cmpc/_recache.py keeps their programs
_DIGITS = re.compile(r"(\d+)")
_KEY_NUMBER = re.compile(r"(\w+) ([\d.]+)")

# Who states a system's PUE (results' `pue_from`), as the report names it.
PUE_FROM = {"system": "its `power` line", "fleet": "the `fleet` block's", "tco": "its `tco`"}
