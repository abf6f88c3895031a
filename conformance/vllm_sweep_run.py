"""Run the real `vllm bench sweep serve` against the mock server and keep its folder as a fixture.

The sweep starts its "server" from `--serve-cmd`: here the suite's mock server (loopback, a
free port, stops by itself), so no vLLM engine is started; `--after-bench-cmd true` replaces
the cache reset, which only a vLLM server has. Output: fixtures/vllm-sweep/<version>/<case>/
with every file the sweep wrote, console.txt and sidecar.json.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venvs" / "vllm"
CASE = "sweep-ttft-conc"
SEED = 1701
SERVE_PARAMS = [{"ttft_median": 0.04}]
BENCH_PARAMS = [{"max_concurrency": 2}, {"max_concurrency": 4}]
NUM_RUNS = 2


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    vllm = VENV / "bin" / "vllm"
    version = subprocess.run(
        [
            str(VENV / "bin" / "python"),
            "-c",
            "import importlib.metadata as m;print(m.version('vllm'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    work = HERE / ".work" / "runs" / "vllm-sweep" / CASE
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "serve.json").write_text(json.dumps(SERVE_PARAMS))
    (work / "bench.json").write_text(json.dumps(BENCH_PARAMS))
    port = _free_port()
    serve_cmd = (
        f"{sys.executable} {HERE / 'mock_server.py'} --port {port} --seed {SEED} "
        f"--ttft-median 0.04 --max-seconds 300"
    )
    bench_cmd = (
        f"{vllm} bench serve --backend openai-chat --base-url http://127.0.0.1:{port} "
        f"--endpoint /v1/chat/completions --model cmpc-mock --tokenizer {HERE / 'tokenizer'} "
        f"--dataset-name random --random-input-len 64 --random-output-len 32 "
        f"--num-prompts 20 --max-concurrency 4 --seed {SEED}"
    )
    argv = [
        str(vllm),
        "bench",
        "sweep",
        "serve",
        "--serve-cmd",
        serve_cmd,
        "--bench-cmd",
        bench_cmd,
        "--after-bench-cmd",
        "true",
        "--serve-params",
        str(work / "serve.json"),
        "--bench-params",
        str(work / "bench.json"),
        "--num-runs",
        str(NUM_RUNS),
        "--server-ready-timeout",
        "60",
        "--output-dir",
        str(work / "out"),
        "--experiment-name",
        "sweep",
    ]
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(HERE / ".work" / "hf"),
    }
    began = time.monotonic()
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)
    console = done.stdout + done.stderr
    if done.returncode != 0:
        print(console[-4000:])
        return 1
    target = HERE / "fixtures" / "vllm-sweep" / version / CASE
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(work / "out" / "sweep", target)
    (target / "console.txt").write_text(console)
    files = sorted(p for p in target.rglob("*") if p.is_file() and p.name != "console.txt")
    sidecar = {
        "tool": "vllm-sweep",
        "package": "vllm",
        "version": version,
        "case": CASE,
        "note": "`vllm bench sweep serve` with the mock server as --serve-cmd; no vLLM engine",
        "command": " ".join(argv),
        "argv": argv,
        "serve_params": SERVE_PARAMS,
        "bench_params": BENCH_PARAMS,
        "env": {
            k: env[k]
            for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HOME")
        },
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "exit_code": done.returncode,
        "duration_s": round(time.monotonic() - began, 3),
        "mock_server": {"seed": SEED, "url": f"http://127.0.0.1:{port}"},
        "files": [
            {
                "file": str(p.relative_to(target)),
                "bytes": p.stat().st_size,
                "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
            }
            for p in files
        ],
    }
    (target / "sidecar.json").write_text(json.dumps(sidecar, indent=1) + "\n")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
