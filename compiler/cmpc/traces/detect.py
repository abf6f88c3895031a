"""Which format a file is, from its content: every signature that fits, never a guess."""

from __future__ import annotations

import json
import re

from cmpc.traces.jsonscan import TraceError

HEAD_BYTES = 1 << 20

# Each format: regexes that must all match the head of the file, and its shape.
_VLLM_KEYS = r'"(request_throughput|total_token_throughput|mean_ttft_ms|median_ttft)"\s*:'
_SGLANG_KEYS = (
    r'"(total_output_tokens_retokenized|mean_e2e_latency_ms|output_throughput_retokenized)"\s*:'
)
_AIPERF_KEYS = r'"(x_request_id|timestamp_ns|credit_phase|benchmark_phase)"'
_SIGNATURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "vllm": ("object", (_VLLM_KEYS, r'"completed"\s*:', r'"duration"\s*:')),
    # a `vllm bench sweep serve` run (a vLLM result with `run_number`) or its summary (a list)
    "vllm-sweep": ("any", (_VLLM_KEYS, r'"run_number"\s*:', r'"completed"\s*:')),
    "sglang": ("lines", (_SGLANG_KEYS,)),
    "aiperf": ("lines", (r'"metadata"\s*:', r'"metrics"\s*:', _AIPERF_KEYS)),
    # 0.1 nests the metrics under `records` (each with `tag`, `header`); from 0.2 they are at
    # the top level beside `aiperf_version`
    "aiperf-summary": (
        "object",
        (
            r'"records"\s*:\s*\{|"aiperf_version"\s*:',
            r'"tag"\s*:|"benchmark_duration"\s*:',
            r'"header"\s*:|"aiperf_version"\s*:',
        ),
    ),
    "genai-perf": ("object", (r'"experiments"\s*:', r'"response_timestamps"\s*:')),
    "guidellm": (
        "object",
        (r'"benchmarks"\s*:', r'"(generative_benchmark|first_token_time|request_totals)"'),
    ),
    "llmperf": ("array", (r'"ttft_s"\s*:', r'"end_to_end_latency_s"\s*:')),
    "genai-bench": (
        "object",
        (
            r'"(individual_request_metrics|aggregated_metrics)"\s*:',
            r'"(e2e_latency|num_completed_requests)"',
        ),
    ),
    # per-request lifecycle list (`start_time` + `request_metrics`; a failed request's `info`
    # too) or a stage/summary report (`benchmark_time_seconds` + `load_summary`)
    "inference-perf": (
        "any",
        (
            r'"(start_time|benchmark_time_seconds)"\s*:',
            r'"(request_metrics|load_summary)"\s*:',
        ),
    ),
    "inferencex": (
        "any",
        (r'"(tput_per_gpu|request_metrics)"\s*:', r'"(hw|hardware|conc|scenario_type)"\s*:'),
    ),
    "cmpc": ("lines", (r'"cmpc_trace"\s*:',)),
    # an llm-d Benchmark Report v0.2: JSON, or YAML (text that is not JSON)
    "llmd-report": (
        "document",
        # literal-led, the rarer first: a JSON file without it costs one fast scan
        (r'request_performance"?\s*:', r'version"?\s*:\s*["\']?0\.2\b'),
    ),
    # LoadGen's text logs: only files that are not JSON are searched for these
    "mlperf": ("text", (r"\A\s*(?::::MLLOG \{|=+\s*\nMLPerf Results Summary\s*\n)",)),
}

# Files that sit beside benchmark outputs but are summaries only: what to pass instead. Each
# hint needs all of its patterns; none may scan unboundedly after a match (`[^}]*`, `[\s\S]*`),
# which made a 1 MiB head of repeated keys take minutes (quadratic backtracking).
_NOT_RUNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        (r'"results_ttft_s_mean"',),
        "an LLMPerf summary; pass the `individual_responses` file instead",
    ),
    (
        (r'"time_to_first_token"\s*:\s*\{[^{}]{0,400}"avg"',),
        "a GenAI-Perf summary; pass the profile export JSON",
    ),
    (
        (r'"benchmark_version"', r'"cmd"'),
        "genai-bench experiment metadata; pass a run JSON of that folder",
    ),
)


_NOT_SPACE = re.compile(r"\S")  # \s is str.isspace's set: `after` is where lstrip() stops


def _shape(head: str) -> str:
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return "empty"
    if text[0] == "[":
        return "array"
    if text[0] != "{":
        return "other"
    # one search for the first line's end: a head is up to 1 MiB, often one line (0.5 ms a scan)
    end = text.find("\n")
    after = _NOT_SPACE.search(text, end + 1) if end >= 0 else None
    if after is not None and after[0] == "{":
        try:
            json.loads(text[:end].strip())
        except ValueError:
            return "object"
        except RecursionError:
            raise TraceError("JSON nested too deeply", "line 1", "E301") from None
        return "lines"
    return "object"


# A format's signature can also fit a file of these formats, which then win (rules below).
_RIVALS = {"vllm": ("sglang",), "aiperf": ("aiperf-summary",)}


def candidates(head: bytes, among: str | None = None) -> list[str]:
    """Every format whose signature fits the first bytes of a file (only `among` and its
    rivals when given: all a declared format needs, at a fraction of the regex searches).
    A first line nested too deeply to tell its shape is a TraceError (E301)."""
    text = head.decode("utf-8", errors="replace")
    shape = _shape(text)
    found = []
    names = _SIGNATURES if among is None else (among, *_RIVALS.get(among, ()))
    for name in names:
        want, patterns = _SIGNATURES[name]
        if want == "lines" and shape not in ("lines", "object"):
            continue
        if want == "object" and shape not in ("object", "lines"):
            continue
        if want == "array" and shape != "array":
            continue
        if want == "text" and shape != "other":
            continue
        if want == "document" and shape not in ("object", "other"):
            continue
        if all(_found(p, text) for p in patterns):
            found.append(name)
    if "sglang" in found and "vllm" in found:
        found.remove("vllm")  # SGLang's result lines carry vLLM's keys plus their own
    if "vllm-sweep" in found and "vllm" in found:
        found.remove("vllm")  # a sweep run is a vLLM result that also names its repetition
    if "aiperf" in found and shape == "object" and "aiperf-summary" in found:
        found.remove("aiperf")
    return found


def _found(pattern: str, text: str) -> bool:
    """`re.search(pattern, text)`, SGLang's keys found from their underscores."""
    if pattern is _SGLANG_KEYS:
        return _sglang_keys_in(text)
    return re.search(pattern, text) is not None


_SGLANG = re.compile(_SGLANG_KEYS)
# each key's first underscore, after its opening quote: `"mean_` 5, `"total_` 6, `"output_` 7
_BEFORE_UNDERSCORE = (5, 6, 7)
_UNDERSCORES = 256  # tried one by one at most; past them, one search of the rest


def _sglang_keys_in(text: str) -> bool:
    """`_SGLANG.search(text)`, in a vLLM file's head of digits (where it fails) at memchr's
    speed, not the regex's byte loop (0.3 ms a MiB): a match holds its key's first underscore
    at 5, 6 or 7 characters after its start, so it is matched there, at each underscore."""
    at, seen = text.find("_"), 0
    while at >= 0:
        seen += 1
        if seen > _UNDERSCORES:  # a match whose first underscore is here or later starts here on
            return _SGLANG.search(text, max(0, at - max(_BEFORE_UNDERSCORE))) is not None
        if any(at >= back and _SGLANG.match(text, at - back) for back in _BEFORE_UNDERSCORE):
            return True
        at = text.find("_", at + 1)
    return False


def not_a_run_hint(head: bytes) -> str | None:
    """What a known summary-only file is, so the error can say what to pass instead."""
    text = head.decode("utf-8", errors="replace")
    for patterns, hint in _NOT_RUNS:
        if all(re.search(p, text) for p in patterns):
            return hint
    return None


_CONTENT = re.compile(rb"[^\xef\xbb\xbf \t\r\n]")  # a byte that is not blank (or a BOM's)


def is_empty(head: bytes) -> bool:
    """Whether the head holds only blanks and BOM bytes: found at its first byte, not by a
    stripped copy of up to 1 MiB."""
    return _CONTENT.search(head) is None
