#!/usr/bin/env python3
"""Compare cmpc's reading of each fixture with the harness's own summary.

    python conformance/compare.py [--cmpc /tmp/venv/bin/cmpc] [--markdown out.md]

For every ``fixtures/<tool>/<version>/<case>/`` it runs ``cmpc stats FILE --json`` on the
fixture's main file and puts the figures next to the ones the tool itself wrote in its
summary (read here with plain ``json``, from the tool's own summary fields, never
recomputed).  Units are converted to ms / s / tokens.  A figure differs when the
relative difference is above 1e-6 (both present) or when one side is null.
The output is the table that FINDINGS.md quotes.
"""

from __future__ import annotations

import argparse
import glob
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
STATS = ("mean", "p50", "p90", "p99")


def g(d, *path, scale=1.0):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return None if d is None else (d * scale if isinstance(d, (int, float)) else d)


# ---- the tools' own summaries ----------------------------------------------------------
# Each returns (main file for cmpc, {figure: value}); the figure names are cmpc's.


def aiperf(folder):
    s = json.loads((folder / "profile_export_aiperf.json").read_text())
    out = {
        "requests.succeeded": g(s, "request_count", "avg"),
        "requests.failed": g(s, "error_request_count", "avg"),
        "duration_s": g(s, "benchmark_duration", "avg"),
        "tokens.input": g(s, "total_isl", "avg"),
        "tokens.output": g(s, "total_osl", "avg"),
        "tokens.cached_input": g(s, "total_usage_prompt_cache_read_tokens", "avg"),
        "throughput.output_tokens_per_s": g(s, "output_token_throughput", "avg"),
        "throughput.requests_per_s": g(s, "request_throughput", "avg"),
    }
    for cm, tm in (
        ("ttft_ms", "time_to_first_token"),
        ("tpot_ms", "inter_token_latency"),
        ("chunk_gap_ms", "inter_chunk_latency"),
        ("e2el_ms", "request_latency"),
    ):
        for st in STATS:
            out[f"{cm}.{st}"] = g(s, tm, "avg" if st == "mean" else st)
    return folder / "profile_export.jsonl", out


def guidellm(folder):
    s = json.loads((folder / "benchmarks.json").read_text())
    m = s["benchmarks"][0]["metrics"]
    b = s["benchmarks"][0]
    out = {
        "requests.succeeded": g(m, "request_totals", "successful"),
        "requests.failed": g(m, "request_totals", "errored"),
        "duration_s": g(b, "duration"),
        "tokens.input": g(m, "prompt_token_count", "successful", "total_sum"),
        "tokens.output": g(m, "output_token_count", "successful", "total_sum"),
        "throughput.requests_per_s": g(m, "requests_per_second", "successful", "mean"),
    }
    for cm, tm, scale in (
        ("ttft_ms", "time_to_first_token_ms", 1),
        ("tpot_ms", "inter_token_latency_ms", 1),
        ("e2el_ms", "request_latency", 1000),
    ):
        for st in STATS:
            key = ("mean",) if st == "mean" else ("percentiles", st)
            out[f"{cm}.{st}"] = g(m, tm, "successful", *key, scale=scale)
    for st in STATS:
        key = ("mean",) if st == "mean" else ("percentiles", st)
        out[f"guidellm.time_per_output_token_ms.{st}"] = g(
            m, "time_per_output_token_ms", "successful", *key
        )
    return folder / "benchmarks.json", out


def genai_bench(folder):
    path = pathlib.Path(sorted(glob.glob(str(folder / "experiment" / "*_text-to-text_*.json")))[0])
    s = json.loads(path.read_text())["aggregated_metrics"]
    st_ = s["stats"]
    out = {
        "requests.succeeded": s.get("num_completed_requests"),
        "requests.failed": s.get("num_error_requests"),
        "duration_s": s.get("run_duration"),
        "tokens.input": g(st_, "num_input_tokens", "sum"),
        "tokens.output": g(st_, "num_output_tokens", "sum"),
        "throughput.output_tokens_per_s": s.get("mean_output_throughput_tokens_per_s"),
        "throughput.requests_per_s": s.get("requests_per_second"),
    }
    for cm, tm in (("ttft_ms", "ttft"), ("tpot_ms", "tpot"), ("e2el_ms", "e2e_latency")):
        for st in STATS:
            out[f"{cm}.{st}"] = g(st_, tm, st, scale=1000)
    return path, out


def inference_perf(folder):
    s = json.loads((folder / "summary_lifecycle_metrics.json").read_text())
    lat = g(s, "successes", "latency") or {}
    out = {
        "requests.succeeded": g(s, "successes", "count"),
        "requests.failed": g(s, "failures", "count"),
        "duration_s": g(s, "benchmark_time_seconds"),
        "throughput.output_tokens_per_s": g(s, "successes", "throughput", "output_tokens_per_sec"),
        "throughput.requests_per_s": g(s, "successes", "throughput", "requests_per_sec"),
    }
    for cm, tm in (
        ("ttft_ms", "time_to_first_token"),
        ("tpot_ms", "time_per_output_token"),
        ("chunk_gap_ms", "inter_token_latency"),
        ("e2el_ms", "request_latency"),
    ):
        for st in STATS:
            out[f"{cm}.{st}"] = g(lat, tm, "median" if st == "p50" else st, scale=1000)
    return folder / "per_request_lifecycle_metrics.json", out


def sglang(folder):
    s = json.loads((folder / "result.jsonl").read_text().splitlines()[-1])
    out = {
        "requests.succeeded": s.get("completed"),
        "duration_s": s.get("duration"),
        "tokens.input": s.get("total_input_tokens"),
        "tokens.output": s.get("total_output_tokens"),
        "throughput.output_tokens_per_s": s.get("output_throughput"),
        "throughput.requests_per_s": s.get("request_throughput"),
    }
    for cm, tm in (
        ("ttft_ms", "ttft"),
        ("tpot_ms", "tpot"),
        ("chunk_gap_ms", "itl"),
        ("e2el_ms", "e2e_latency"),
    ):
        for st in STATS:
            out[f"{cm}.{st}"] = s.get(f"{'median' if st == 'p50' else st}_{tm}_ms")
    return folder / "result.jsonl", out


def vllm(folder):
    s = json.loads((folder / "result.json").read_text())
    out = {
        "requests.succeeded": s.get("completed"),
        "requests.failed": s.get("failed"),
        "duration_s": s.get("duration"),
        "tokens.input": s.get("total_input_tokens"),
        "tokens.output": s.get("total_output_tokens"),
        "throughput.output_tokens_per_s": s.get("output_throughput"),
        "throughput.requests_per_s": s.get("request_throughput"),
    }
    for cm, tm in (
        ("ttft_ms", "ttft"),
        ("tpot_ms", "tpot"),
        ("chunk_gap_ms", "itl"),
        ("e2el_ms", "e2el"),
    ):
        for st in STATS:
            out[f"{cm}.{st}"] = s.get(f"{'median' if st == 'p50' else st}_{tm}_ms")
    return folder / "result.json", out


READERS = {
    "aiperf": aiperf,
    "guidellm": guidellm,
    "genai-bench": genai_bench,
    "inference-perf": inference_perf,
    "sglang": sglang,
    "vllm": vllm,
}
FORMAT_HINT = {
    "genai-bench": "genai-bench",
    "inference-perf": None,
    "sglang": "sglang",
    "vllm": "vllm",
    "aiperf": "aiperf",
    "guidellm": "guidellm",
}


def cmpc_figures(doc: dict) -> dict:
    out = {}
    for k in ("succeeded", "failed"):
        out[f"requests.{k}"] = g(doc, "requests", k)
    out["duration_s"] = doc.get("duration_s")
    for k in ("input", "output", "cached_input"):
        out[f"tokens.{k}"] = g(doc, "tokens", k)
    for k in ("output_tokens_per_s", "requests_per_s"):
        out[f"throughput.{k}"] = g(doc, "throughput", k)
    for m in ("ttft_ms", "tpot_ms", "chunk_gap_ms", "e2el_ms"):
        for st in STATS:
            out[f"{m}.{st}"] = g(doc, "metrics", m, st)
    return out


def run_cmpc(cmpc: str, path: pathlib.Path, tool: str):
    argv = [cmpc, "stats", str(path), "--json"]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    used = argv
    if res.returncode != 0 and FORMAT_HINT.get(tool):
        used = [*argv, "--format", FORMAT_HINT[tool]]
        res = subprocess.run(used, capture_output=True, text=True, timeout=120)
    try:
        doc = json.loads(res.stdout)
        doc = doc[0] if isinstance(doc, list) else doc
    except ValueError:
        doc = None
    return doc, res, used


def differs(a, b) -> bool:
    if a is None or b is None:
        return a is not b
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return a != b
    return abs(a - b) > 1e-6 * max(1.0, abs(a), abs(b))


def fmt(v):
    if v is None:
        return "null"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cmpc", default="/tmp/venv/bin/cmpc")
    p.add_argument("--markdown", help="write the table here")
    args = p.parse_args(argv)
    lines = []
    for folder in sorted(FIXTURES.glob("*/*/*")):
        tool, version, case = folder.relative_to(FIXTURES).parts
        if not (folder / "sidecar.json").exists():
            continue
        main_file, tool_figs = READERS[tool](folder)
        doc, res, used = run_cmpc(args.cmpc, main_file, tool)
        rel = main_file.relative_to(HERE)
        lines.append(f"\n### {tool} {version} / {case}\n")
        lines.append(
            f"`cmpc stats {rel} --json`"
            + (" " + " ".join(used[4:]) if len(used) > 4 else "")
            + (f" → format `{doc.get('format')}`" if doc else "")
        )
        if doc is None:
            err = [ln for ln in (res.stderr + res.stdout).strip().splitlines() if ln.strip()]
            lines.append(
                f"\ncmpc failed (exit {res.returncode}):\n\n```\n" + "\n".join(err[:4]) + "\n```\n"
            )
            continue
        ours = cmpc_figures(doc)
        lines.append("\n| figure | tool's own summary | cmpc | |")
        lines.append("|---|---|---|---|")
        for key in list(tool_figs) + [k for k in ours if k not in tool_figs]:
            t, c = tool_figs.get(key), ours.get(key)
            if t is None and c is None:
                continue
            mark = "" if key not in tool_figs else ("**differs**" if differs(t, c) else "=")
            if key not in tool_figs:
                mark = "(tool has no such summary figure)"
            lines.append(f"| {key} | {fmt(t) if key in tool_figs else '—'} | {fmt(c)} | {mark} |")
        warns = doc.get("warnings") or doc.get("diagnostics")
        if warns:
            lines.append(f"\ncmpc warnings: `{json.dumps(warns)[:600]}`")
        if res.stderr.strip():
            lines.append(f"\ncmpc stderr: `{res.stderr.strip().splitlines()[-1][:300]}`")
    text = "\n".join(lines) + "\n"
    if args.markdown:
        pathlib.Path(args.markdown).write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
