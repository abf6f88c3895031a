"""Run the real MLPerf Inference LoadGen against a dummy LLM SUT and keep its logs as fixtures.

LoadGen (`mlcommons-loadgen` on PyPI, installed into `.venvs/mlperf`) issues the queries and
writes `mlperf_log_summary.txt` / `mlperf_log_detail.txt` itself; the SUT here answers each
query from a few worker threads (a bounded number of "slots"), reporting the first token
with `FirstTokenComplete` after a seeded lognormal TTFT and the whole answer with
`QuerySamplesComplete` after seeded gamma inter-token gaps, so LoadGen's LLM fields
(TTFT, TPOT, tokens per second) are its own figures over real timings. No accelerator and
no model: the token ids are zeros. Output: fixtures/mlperf/<version>/<case>/ with the two
logs LoadGen wrote, console.txt and sidecar.json.

    python conformance/mlperf_run.py            # every case
    python conformance/mlperf_run.py server-valid
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venvs" / "mlperf"
PACKAGE = "mlcommons-loadgen"
KEEP = ("mlperf_log_summary.txt", "mlperf_log_detail.txt")
# case -> scenario, seed, slots (concurrent answers), LoadGen settings
CASES: dict[str, dict] = {
    "server-valid": {
        "scenario": "Server",
        "seed": 1801,
        "slots": 16,
        "settings": {
            "server_target_qps": 80.0,
            "ttft_latency": 200_000_000,
            "tpot_latency": 20_000_000,
            "min_duration_ms": 3000,
            "min_query_count": 700,  # enough for LoadGen's early-stopping test to pass
        },
    },
    "server-invalid": {
        # the TPOT bound is below the SUT's mean gap: LoadGen must call the run INVALID
        "scenario": "Server",
        "seed": 1802,
        "slots": 8,
        "settings": {
            "server_target_qps": 40.0,
            "ttft_latency": 200_000_000,
            "tpot_latency": 4_000_000,
            "min_duration_ms": 3000,
            "min_query_count": 100,
        },
    },
    "offline": {
        "scenario": "Offline",
        "seed": 1803,
        "slots": 16,
        "settings": {
            "offline_expected_qps": 150.0,
            "min_duration_ms": 3000,
            "min_query_count": 100,
        },
    },
}
SAMPLES = 64  # the QSL's sample count (all loaded: performance_sample_count)
TTFT_MEDIAN_S, TTFT_SIGMA = 0.030, 0.35
GAP_MEAN_S, GAP_SHAPE = 0.006, 4.0
OUTPUT_TOKENS = (8, 24)  # uniform, inclusive


def outside() -> int:
    """Make the venv, then run the cases inside it and keep their logs."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", PACKAGE], check=True)
    version = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m;print(m.version('{PACKAGE}'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    wanted = sys.argv[1:] or list(CASES)
    for case in wanted:
        work = HERE / ".work" / "runs" / "mlperf" / case
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        argv = [str(python), str(Path(__file__).resolve()), "--inside", case, str(work)]
        started = datetime.datetime.now(datetime.UTC)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr)
            return 1
        dest = HERE / "fixtures" / "mlperf" / version / case
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for name in KEEP:
            shutil.copy2(work / name, dest / name)
        (dest / "console.txt").write_text(done.stdout + done.stderr)
        sidecar = {
            "tool": "mlperf",
            "package": PACKAGE,
            "module": "mlperf_loadgen",
            "version": version,
            "case": case,
            "command": ["python", "conformance/mlperf_run.py", case],
            "runs": "LoadGen StartTestWithLogSettings, TestMode.PerformanceOnly, "
            "use_token_latencies=True",
            "scenario": CASES[case]["scenario"],
            "loadgen_settings": CASES[case]["settings"],
            "sut": {
                "what": "dummy LLM SUT in Python (no model): worker threads answer queries",
                "slots": CASES[case]["slots"],
                "seed": CASES[case]["seed"],
                "ttft": f"lognormal median {TTFT_MEDIAN_S} s sigma {TTFT_SIGMA}",
                "gap": f"gamma mean {GAP_MEAN_S} s shape {GAP_SHAPE}",
                "output_tokens": f"uniform {OUTPUT_TOKENS[0]}..{OUTPUT_TOKENS[1]}",
                "qsl_samples": SAMPLES,
            },
            "date": started.strftime("%Y-%m-%d"),
            "files": {
                name: hashlib.sha256((dest / name).read_bytes()).hexdigest() for name in KEEP
            },
        }
        (dest / "sidecar.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        print(f"mlperf {version} {case}: kept {', '.join(KEEP)} in {dest.relative_to(HERE)}")
    return 0


def inside(case: str, out: str) -> int:
    """One LoadGen run (only in the venv, where `mlperf_loadgen` is installed)."""
    import array

    import mlperf_loadgen as lg

    spec = CASES[case]
    rng = random.Random(spec["seed"])
    work: queue.Queue = queue.Queue()
    tokens = array.array("i", [0] * (OUTPUT_TOKENS[1] + 1))
    address, _ = tokens.buffer_info()

    def answer() -> None:
        while True:
            sample = work.get()
            if sample is None:
                return
            ttft, gaps = sample[1], sample[2]
            time.sleep(ttft)
            lg.FirstTokenComplete([lg.QuerySampleResponse(sample[0], address, 4, 1)])
            time.sleep(sum(gaps))
            n = len(gaps) + 1
            lg.QuerySamplesComplete([lg.QuerySampleResponse(sample[0], address, 4 * n, n)])

    def issue(samples) -> None:
        for s in samples:  # the draws are seeded; the order is LoadGen's (seeded too)
            n = rng.randint(*OUTPUT_TOKENS)
            ttft = rng.lognormvariate(0.0, TTFT_SIGMA) * TTFT_MEDIAN_S
            gaps = [rng.gammavariate(GAP_SHAPE, GAP_MEAN_S / GAP_SHAPE) for _ in range(n - 1)]
            work.put((s.id, ttft, gaps))

    workers = [threading.Thread(target=answer, daemon=True) for _ in range(spec["slots"])]
    for w in workers:
        w.start()
    settings = lg.TestSettings()
    settings.scenario = getattr(lg.TestScenario, spec["scenario"])
    settings.mode = lg.TestMode.PerformanceOnly
    settings.use_token_latencies = True
    for key, value in spec["settings"].items():
        setattr(settings, key, value)
    log = lg.LogSettings()
    log.log_output.outdir = out
    log.log_output.copy_summary_to_stdout = True
    log.enable_trace = False
    sut = lg.ConstructSUT(issue, lambda: None)
    qsl = lg.ConstructQSL(SAMPLES, SAMPLES, lambda _: None, lambda _: None)
    lg.StartTestWithLogSettings(sut, qsl, settings, log)
    for _ in workers:
        work.put(None)
    lg.DestroyQSL(qsl)
    lg.DestroySUT(sut)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--inside":
        os.environ.setdefault("PYTHONHASHSEED", "0")
        sys.exit(inside(sys.argv[2], sys.argv[3]))
    sys.exit(outside())
