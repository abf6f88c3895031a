"""Ingest benchmark: `cmpc stats` against vLLM's own way (json.load, lists, np.percentile).

Generates (seeded) a vLLM `--save-detailed` result file with 10^7 chunk gaps (~100 MB), then
times both in fresh subprocesses, several rounds, and reads each child's peak RSS with
`os.wait4`. Prints the time and peak-memory ratios and checks that both agree on the figures.

    python benchmarks/ingest.py [--requests 10000] [--gaps 1000] [--rounds 3] [--keep FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# What vLLM's benchmark_serving.py / `vllm bench serve` does with a result, in one script:
# stdlib json, Python lists per metric, numpy statistics on each list (calculate_metrics()).
BASELINE = r"""
import json, sys
import numpy as np

with open(sys.argv[1]) as f:
    d = json.load(f)
pcts = [50.0, 90.0, 99.0]
ttfts, tpots, itls, e2els = [], [], [], []
completed = total_input = total_output = 0
for i in range(len(d["ttfts"])):
    if d["errors"][i] == "":
        out = d["output_lens"][i]
        total_output += out
        total_input += d["input_lens"][i]
        if out > 1:
            tpots.append((d["latencies"][i] - d["ttfts"][i]) / (out - 1))
        itls += d["itls"][i]
        ttfts.append(d["ttfts"][i])
        e2els.append(d["latencies"][i])
        completed += 1
res = {"completed": completed, "input": total_input, "output": total_output,
       "output_tokens_per_s": total_output / d["duration"]}
for name, x in (("ttft", ttfts), ("tpot", tpots), ("chunk_gap", itls), ("e2el", e2els)):
    res[name] = {"mean": np.mean(x or 0) * 1000, "median": np.median(x or 0) * 1000,
                 "std": np.std(x or 0) * 1000,
                 **{f"p{p:g}": np.percentile(x or 0, p) * 1000 for p in pcts}}
print(json.dumps(res, default=float))
"""


def generate(
    path: Path, requests: int, gaps: int, digits: int = 6, seed: int = 0, latencies: bool = True
) -> None:
    """A vLLM result file: per-request arrays, `itls` with `requests * gaps` chunk gaps; without
    `latencies` as vLLM writes it unless asked for per-request end-to-end latencies."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ttfts = rng.gamma(2.0, 0.05, requests)
    out_lens = np.full(requests, gaps + 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"backend": "vllm", "model_id": "synthetic", "duration": 0.0, ')
        f.write(f'"completed": {requests}, "failed": 0, "request_throughput": 0.0, ')
        f.write(f'"input_lens": {json.dumps([512] * requests)}, ')
        f.write(f'"output_lens": {json.dumps(out_lens.tolist())}, ')
        f.write(f'"ttfts": {json.dumps(ttfts.tolist())}, "itls": [')
        end_to_end = np.empty(requests)
        for i in range(requests):
            row = rng.gamma(4.0, 0.005, gaps)
            row = np.round(row, digits) if digits else row
            end_to_end[i] = ttfts[i] + row.sum()
            f.write(("[" if i == 0 else ", [") + ", ".join(map(repr, row.tolist())) + "]")
        duration = float(end_to_end.max() * 1.05)
        f.write("], ")
        if latencies:
            f.write(f'"latencies": {json.dumps(end_to_end.tolist())}, ')
        f.write(f'"errors": {json.dumps([""] * requests)}, "duration_s_note": "synthetic"}}')
    # the duration goes in place, keeping the layout of a real file (summary keys first)
    text = path.read_bytes()
    path.write_bytes(text.replace(b'"duration": 0.0', f'"duration": {duration!r}'.encode(), 1))


def measure(cmd: list[str]) -> tuple[float, float, int, str]:
    """Wall time (s), CPU time (s), peak RSS (bytes) and stdout of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed with exit code {proc.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, out


def byte_compile_cmpc() -> None:
    """Byte code for cmpc's modules beside them, as an installed package has it. Without it
    (PYTHONDONTWRITEBYTECODE set, or an unwritable checkout) every timed run would recompile
    each module it imports: about 0.15 s of CPU a run, which no installed cmpc pays. The peers'
    packages come byte-compiled from pip."""
    spec = importlib.util.find_spec("cmpc")  # found, not imported: this process stays small
    assert spec is not None and spec.submodule_search_locations
    folder = spec.submodule_search_locations[0]
    subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True)
    print(f"byte code: compiled in {folder}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--gaps", type=int, default=1_000, help="chunk gaps per request")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--digits", type=int, default=6, help="decimals of each gap; 0 = full repr (17 digits)"
    )
    parser.add_argument("--keep", type=Path, help="write the generated file here and keep it")
    parser.add_argument(
        "--no-latencies", action="store_true", help="leave `latencies` out, as vLLM does by default"
    )
    parser.add_argument("--generate", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        generate(
            args.generate, args.requests, args.gaps, args.digits, latencies=not args.no_latencies
        )
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "vllm_result.json"
        # Generated in a child: Linux counts the parent's resident memory at fork time into
        # each child's peak RSS, so this process must stay small while it measures.
        gen = [sys.executable, __file__, "--generate", str(path)]
        gen += ["--requests", str(args.requests), "--gaps", str(args.gaps)]
        gen += ["--digits", str(args.digits)]
        subprocess.run(gen, check=True)
        byte_compile_cmpc()
        size = path.stat().st_size
        print(f"file: {size / 1e6:.1f} MB, {args.requests * args.gaps:,} chunk gaps")
        script = Path(tmp) / "baseline.py"
        script.write_text(BASELINE, encoding="utf-8")
        runs = {
            "cmpc": [sys.executable, "-m", "cmpc.cli", "stats", "--json", str(path)],
            "baseline": [sys.executable, str(script), str(path)],
        }
        times: dict[str, list[float]] = {k: [] for k in runs}
        cpu: dict[str, list[float]] = {k: [] for k in runs}
        peaks: dict[str, list[int]] = {k: [] for k in runs}
        outputs: dict[str, str] = {}
        for _ in range(args.rounds):
            for name, cmd in runs.items():  # interleaved, so drift hits both alike
                elapsed, used, peak, out = measure(cmd)
                times[name].append(elapsed)
                cpu[name].append(used)
                peaks[name].append(peak)
                outputs[name] = out
        _check_agreement(json.loads(outputs["cmpc"]), json.loads(outputs["baseline"]))
        for name in runs:
            t, m = statistics.median(times[name]), max(peaks[name])
            c = statistics.median(cpu[name])
            print(f"{name:9s} wall {t:7.3f} s  cpu {c:7.3f} s  peak RSS {m / 1e6:7.1f} MB")
        print(f"(medians of {args.rounds} interleaved rounds; peak = max over rounds)")
        speed = statistics.median(times["baseline"]) / statistics.median(times["cmpc"])
        cpu_speed = statistics.median(cpu["baseline"]) / statistics.median(cpu["cmpc"])
        memory = max(peaks["cmpc"]) / max(peaks["baseline"])
        print(f"speed-up: {speed:.2f}x wall time, {cpu_speed:.2f}x CPU time (goal >= 5x)")
        print(f"peak memory: {memory:.3f} of baseline (goal <= 1/3)")
        print("figures agree to 1e-9: yes")
        return 0 if speed >= 5 and memory <= 1 / 3 else 1


def _check_agreement(ours: dict, base: dict) -> None:
    assert ours["requests"]["succeeded"] == base["completed"]
    assert ours["tokens"]["output"] == base["output"]
    for metric in ("ttft", "tpot", "chunk_gap", "e2el"):
        for stat, value in base[metric].items():
            got = ours["metrics"][f"{metric}_ms"][stat]
            if abs(got - value) > 1e-9 * abs(value):
                raise SystemExit(f"disagreement on {metric} {stat}: {got} vs {value}")


if __name__ == "__main__":
    sys.exit(main())
