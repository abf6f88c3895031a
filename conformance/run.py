#!/usr/bin/env python3
"""Live conformance suite: run the real benchmark harnesses against the mock server.

    python conformance/run.py                 # every case
    python conformance/run.py aiperf guidellm # only these tools (or tool/case)
    python conformance/run.py --no-upgrade    # reuse the installed harness versions
    python conformance/run.py --list

For each case it creates (or reuses) a virtualenv for the harness under
``conformance/.venvs/<tool>`` (git-ignored), installs the harness's current release from
the package index (``pip index versions``), starts ``mock_server.py`` on 127.0.0.1 with a
seed of its own, runs the harness with a small bounded workload, and copies the files the
harness wrote into ``conformance/fixtures/<tool>/<version>/<case>/`` together with
``console.txt`` (what the harness printed, ANSI codes removed) and ``sidecar.json``
(tool, version, exact command line, date, mock-server seed, settings and counts).  It then
reports what changed against the fixture that was there before (files added or removed,
JSON key sets changed).  A harness that cannot be installed or run is recorded in
``conformance/blocked/<tool>.json`` with the exact error, and the suite goes on.

Only stdlib is needed to run this script; the harnesses bring their own dependencies.
No model hub is reached: the tokenizer is the local one in ``conformance/tokenizer/``
(``tokenizer.py``), also laid out as a Hugging Face cache entry ``cmpc/mock-tokenizer``
under ``conformance/.work/hf`` for harnesses that, offline, only accept hub names.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable

HERE = pathlib.Path(__file__).resolve().parent
VENVS = HERE / ".venvs"
WORK = HERE / ".work"
FIXTURES = HERE / "fixtures"
BLOCKED = HERE / "blocked"
TOKENIZER = HERE / "tokenizer"
HF_HOME = WORK / "hf"
HF_REPO = "cmpc/mock-tokenizer"
HF_REVISION = "0" * 39 + "1"
MODEL = "cmpc-mock"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")
MAX_FIXTURE_FILE = 2_000_000  # bytes; larger files are a sign the workload is too big

PYTHONS = {
    "3.11": [
        sys.executable if sys.version_info[:2] == (3, 11) else "python3.11",
        "/root/.pyenv/versions/3.11.7/bin/python",
    ],
    "3.12": ["python3.12", "/root/.pyenv/versions/3.12.1/bin/python"],
}


@dataclasses.dataclass
class Ctx:
    port: int
    out: pathlib.Path  # fresh empty folder the harness writes into
    bin: pathlib.Path  # the venv's bin folder
    seed: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclasses.dataclass
class Case:
    tool: str
    case: str
    package: str
    argv: Callable[[Ctx], list[str]]
    collect: tuple[str, ...]  # globs relative to ctx.out
    python: str = "3.11"
    extra_install: tuple[str, ...] = ()
    no_deps: bool = False
    seed: int = 1234
    server_args: tuple[str, ...] = ()
    timeout: float = 300.0
    prepare: Callable[[Ctx], None] | None = None
    note: str = ""
    env: dict = dataclasses.field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.tool}/{self.case}"


# --------------------------------------------------------------------------- cases


def aiperf_argv(extra: list[str]) -> Callable[[Ctx], list[str]]:
    def argv(c: Ctx) -> list[str]:
        return [
            str(c.bin / "aiperf"),
            "profile",
            "--model",
            MODEL,
            "--url",
            c.url,
            "--tokenizer",
            HF_REPO,
            "--concurrency",
            "4",
            "--request-count",
            "30",
            "--prompt-input-tokens-mean",
            "64",
            "--prompt-input-tokens-stddev",
            "8",
            "--prompt-output-tokens-mean",
            "32",
            "--prompt-output-tokens-stddev",
            "4",
            "--random-seed",
            str(c.seed),
            "--ui-type",
            "none",
            "--no-server-metrics",
            "--no-gpu-telemetry",
            "--output-artifact-dir",
            str(c.out),
            *extra,
        ]

    return argv


AIPERF_FILES = (
    "profile_export.jsonl",
    "profile_export_aiperf.json",
    "profile_export_aiperf.csv",
    "profile_export_console.txt",
    "inputs.json",
)


def guidellm_argv(profile: str, data: str, extra: list[str] | None = None):
    def argv(c: Ctx) -> list[str]:
        return [
            str(c.bin / "guidellm"),
            "run",
            "--backend",
            f"kind=openai_http,target={c.url},model={MODEL}",
            "--profile",
            profile,
            "--tokenizer",
            f"kind=huggingface_auto,model={TOKENIZER}",
            "--data",
            data,
            "--seed",
            f"kind=static,value={c.seed}",
            "--output",
            f"kind=json,path={c.out / 'benchmarks.json'}",
            "--output",
            f"kind=csv,path={c.out / 'benchmarks.csv'}",
            "--disable-console-interactive",
            *(extra or []),
        ]

    return argv


def genai_bench_argv(extra: list[str]):
    def argv(c: Ctx) -> list[str]:
        return [
            str(c.bin / "genai-bench"),
            "benchmark",
            "--api-backend",
            "openai",
            "--api-base",
            c.url,
            "--api-key",
            "mock-key",
            "--api-model-name",
            MODEL,
            "--model-tokenizer",
            str(TOKENIZER),
            "--task",
            "text-to-text",
            "--num-concurrency",
            "4",
            "--traffic-scenario",
            "N(64,8)/(32,4)",
            "--max-requests-per-run",
            "30",
            "--max-time-per-run",
            "1",
            "--server-engine",
            "vLLM",
            "--server-gpu-type",
            "H100",
            "--server-gpu-count",
            "1",
            "--experiment-base-dir",
            str(c.out),
            "--experiment-folder-name",
            "experiment",
            *extra,
        ]

    return argv


def inference_perf_prepare(streaming: bool, api: str):
    def prepare(c: Ctx) -> None:
        config = {
            "api": {"type": api, "streaming": streaming},
            # random datagen supports completions only; for chat, shared_prefix (which
            # also exercises the mock server's prefix cache: cached_tokens > 0)
            "data": (
                {
                    "type": "random",
                    "input_distribution": {"min": 48, "max": 80, "mean": 64, "std_dev": 8},
                    "output_distribution": {"min": 24, "max": 40, "mean": 32, "std_dev": 4},
                }
                if api == "completion"
                else {
                    "type": "shared_prefix",
                    "shared_prefix": {
                        "num_groups": 3,
                        "num_prompts_per_group": 10,
                        "system_prompt_len": 48,
                        "question_len": 16,
                        "output_len": 32,
                        "seed": c.seed,
                    },
                }
            ),
            "load": {
                "type": "concurrent",
                "stages": [{"num_requests": 30, "concurrency_level": 4}],
                "num_workers": 1,
                "base_seed": c.seed,
            },
            "server": {"type": "vllm", "model_name": MODEL, "base_url": c.url, "ignore_eos": True},
            "tokenizer": {"pretrained_model_name_or_path": str(TOKENIZER)},
            "report": {
                "request_lifecycle": {"summary": True, "per_stage": True, "per_request": True}
            },
            "storage": {"local_storage": {"path": str(c.out)}},
        }
        (c.out.parent / "config.yml").write_text(json.dumps(config, indent=1))  # JSON is YAML

    return prepare


def inference_perf_argv(c: Ctx) -> list[str]:
    return [str(c.bin / "inference-perf"), "--config_file", str(c.out.parent / "config.yml")]


def vllm_argv(extra: list[str]):
    def argv(c: Ctx) -> list[str]:
        return [
            str(c.bin / "vllm"),
            "bench",
            "serve",
            "--backend",
            "openai-chat",
            "--base-url",
            c.url,
            "--endpoint",
            "/v1/chat/completions",
            "--model",
            MODEL,
            "--tokenizer",
            str(TOKENIZER),
            "--dataset-name",
            "random",
            "--random-input-len",
            "64",
            "--random-output-len",
            "32",
            "--num-prompts",
            "30",
            "--max-concurrency",
            "4",
            "--seed",
            str(c.seed),
            "--save-result",
            "--result-dir",
            str(c.out),
            "--result-filename",
            "result.json",
            "--percentile-metrics",
            "ttft,tpot,itl,e2el",
            "--metric-percentiles",
            "50,90,99",
            *extra,
        ]

    return argv


def sglang_argv(extra: list[str]):
    def argv(c: Ctx) -> list[str]:
        return [
            str(c.bin / "python"),
            "-m",
            "sglang.bench_serving",
            "--backend",
            "sglang-oai-chat",
            "--base-url",
            c.url,
            "--model",
            MODEL,
            "--tokenizer",
            str(TOKENIZER),
            # "random" samples ShareGPT (a hub download); "random-ids" needs no download
            "--dataset-name",
            "random-ids",
            "--random-input-len",
            "64",
            "--random-output-len",
            "32",
            "--random-range-ratio",
            "0.5",
            "--num-prompts",
            "30",
            "--max-concurrency",
            "4",
            "--seed",
            str(c.seed),
            "--output-file",
            str(c.out / "result.jsonl"),
            "--output-details",
            *extra,
        ]

    return argv


CASES: list[Case] = [
    Case(
        "aiperf",
        "chat-stream-c4",
        "aiperf",
        aiperf_argv(["--endpoint-type", "chat", "--streaming"]),
        AIPERF_FILES,
        seed=1101,
    ),
    Case(
        "aiperf",
        "completions-stream-usage-c4",
        "aiperf",
        aiperf_argv(
            [
                "--endpoint-type",
                "completions",
                "--streaming",
                "--use-server-token-count",
                "--extra-inputs",
                "ignore_eos:true",
            ]
        ),
        AIPERF_FILES,
        seed=1102,
        note="server token counts (stream_options.include_usage) and ignore_eos",
    ),
    Case(
        "aiperf",
        "chat-stream-tdigest-c4",
        "aiperf",
        aiperf_argv(["--endpoint-type", "chat", "--streaming"]),
        AIPERF_FILES,
        seed=1103,
        env={"AIPERF_METRICS_LIST_BACKEND": "tdigest"},
        note="inter_chunk_latency aggregated with the crick t-digest sketch, not exact values",
    ),
    Case(
        "guidellm",
        "concurrent-c4",
        "guidellm",
        guidellm_argv(
            "kind=concurrent,streams=4", "kind=synthetic_text,prompt_tokens=64,output_tokens=32"
        ),
        ("benchmarks.json", "benchmarks.csv"),
        seed=1201,
        server_args=(),
        note="max_requests=30 via --constraint",
    ),
    Case(
        "guidellm",
        "concurrent-c4-warmup-cooldown",
        "guidellm",
        guidellm_argv(
            "kind=concurrent,streams=4,warmup.value=6,warmup.mode=requests,"
            "cooldown.value=6,cooldown.mode=requests",
            "kind=synthetic_text,prompt_tokens=64,output_tokens=32",
        ),
        ("benchmarks.json", "benchmarks.csv"),
        seed=1202,
        note="warmup 6 requests, cooldown 6 requests out of 40",
    ),
    Case(
        "genai-bench",
        "chat-c4",
        "genai-bench",
        genai_bench_argv([]),
        ("experiment/**/*.json",),
        seed=1301,
    ),
    Case(
        "inference-perf",
        "chat-stream-c4",
        "inference-perf",
        inference_perf_argv,
        ("**/*.json",),
        python="3.12",
        seed=1401,
        prepare=inference_perf_prepare(True, "chat"),
    ),
    Case(
        "inference-perf",
        "completions-stream-c4",
        "inference-perf",
        inference_perf_argv,
        ("**/*.json",),
        python="3.12",
        seed=1402,
        prepare=inference_perf_prepare(True, "completion"),
    ),
    Case(
        "vllm",
        "bench-serve-chat-c4",
        "vllm",
        vllm_argv([]),
        ("result.json",),
        seed=1501,
        note="vllm bench serve needs the vllm package (torch) installed",
    ),
    Case(
        "sglang",
        "bench-serving-chat-c4",
        "sglang",
        sglang_argv([]),
        ("result.jsonl",),
        seed=1602,
        no_deps=True,  # seed 1601 fails request 0, the warmup: sglang then aborts
        extra_install=(
            "transformers==5.19.0",
            "tokenizers==0.23.2",
            "python-dateutil<3",
            "torch==2.14.1",
            "torchvision==0.29.1",
            "aiohttp",
            "numpy",
            "requests",
            "tqdm",
            "msgspec",
            "pybase64",
            "pillow",
            "datasets",
            "orjson",
            "psutil",
            "triton",
            "starlette",
            "pyzmq",
            "IPython",
            "apache-tvm-ffi",
            "sentencepiece",
            "compressed-tensors",
            "gguf",
        ),
        note="sglang installed --no-deps (the server's GPU stack is not needed for the client); "
        "the client's imports installed one by one",
    ),
]

# guidellm: bound the request count (30, and 40 for the warmup/cooldown case)
for _c in CASES:
    if _c.tool == "guidellm":
        n = 40 if "warmup" in _c.case else 30
        _inner = _c.argv
        _c.argv = (
            lambda inner, n: lambda c: [*inner(c), "--constraint", f"kind=max_requests,count={n}"]  # noqa: B023 (n bound by the outer lambda)
        )(_inner, n)


# --------------------------------------------------------------------------- helpers


def log(msg: str) -> None:
    print(f"[conformance] {msg}", flush=True)


def find_python(version: str) -> str:
    for cand in PYTHONS[version]:
        path = shutil.which(cand) or (cand if os.path.exists(cand) else None)
        if path:
            return path
    raise RuntimeError(f"no Python {version} found (tried {PYTHONS[version]})")


def run_quiet(argv: list[str], timeout: float = 900, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)


def pip_lines(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if "is ignored: it is neither a file" not in ln)


def latest_version(pip: pathlib.Path, package: str) -> str | None:
    res = run_quiet([str(pip), "index", "versions", package], timeout=120)
    m = re.search(rf"^{re.escape(package)} \(([^)]+)\)", res.stdout, re.M)
    return m.group(1) if m else None


def installed_version(py: pathlib.Path, package: str) -> str | None:
    res = run_quiet([str(py), "-m", "pip", "show", package], timeout=60)
    m = re.search(r"^Version: (\S+)", res.stdout, re.M)
    return m.group(1) if m else None


def ensure_venv(case: Case, upgrade: bool) -> tuple[pathlib.Path, str]:
    venv = VENVS / case.tool
    py = venv / "bin" / "python"
    if not py.exists():
        log(f"creating {venv.relative_to(HERE.parent)} (Python {case.python})")
        subprocess.run([find_python(case.python), "-m", "venv", str(venv)], check=True)
    have = installed_version(py, case.package)
    want = latest_version(venv / "bin" / "pip", case.package) if (upgrade or not have) else have
    if want is None:
        raise RuntimeError(
            f"`pip index versions {case.package}` found no release for Python {case.python}"
        )
    if have != want:
        log(f"installing {case.package}=={want}")
        cmd = [str(py), "-m", "pip", "install", "-q", f"{case.package}=={want}"]
        if case.no_deps:
            cmd.insert(-1, "--no-deps")
        res = run_quiet(cmd, timeout=1800)
        if res.returncode:
            raise RuntimeError(
                f"pip install {case.package}=={want} failed:\n"
                + pip_lines(res.stdout + res.stderr)[-4000:]
            )
        if case.extra_install:
            res = run_quiet(
                [str(py), "-m", "pip", "install", "-q", *case.extra_install], timeout=1800
            )
            if res.returncode:
                raise RuntimeError(
                    "pip install of the client's dependencies failed:\n"
                    + pip_lines(res.stdout + res.stderr)[-4000:]
                )
    return venv / "bin", installed_version(py, case.package) or want


def ensure_tokenizer() -> None:
    if not (TOKENIZER / "tokenizer.json").exists():
        log("building the tokenizer")
        subprocess.run([sys.executable, str(HERE / "tokenizer.py"), str(TOKENIZER)], check=True)
    snap = HF_HOME / "hub" / ("models--" + HF_REPO.replace("/", "--"))
    (snap / "refs").mkdir(parents=True, exist_ok=True)
    (snap / "refs" / "main").write_text(HF_REVISION)
    files = snap / "snapshots" / HF_REVISION
    files.mkdir(parents=True, exist_ok=True)
    for f in TOKENIZER.glob("*.json"):
        shutil.copy2(f, files / f.name)


def harness_env() -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "CONDA"))
    }
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(HF_HOME),
        HF_HUB_DISABLE_TELEMETRY="1",
        DO_NOT_TRACK="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        TOKENIZERS_PARALLELISM="false",
        PYTHONUNBUFFERED="1",
        TERM="dumb",
        COLUMNS="160",
        NO_COLOR="1",
        MPLBACKEND="Agg",
    )
    env.pop("HTTP_PROXY", None)
    env.pop("http_proxy", None)
    return env


class MockServer:
    def __init__(self, seed: int, args: tuple[str, ...], folder: pathlib.Path, max_seconds: float):
        self.summary = folder / "mock-summary.json"
        self.argv = [
            sys.executable,
            str(HERE / "mock_server.py"),
            "--seed",
            str(seed),
            "--model",
            MODEL,
            "--max-seconds",
            str(int(max_seconds)),
            "--log",
            str(folder / "mock-requests.jsonl"),
            "--summary",
            str(self.summary),
            *args,
        ]
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("LISTENING "):
            self.proc.kill()
            raise RuntimeError(f"mock server did not start: {line!r}")
        self.port = int(line.split()[1])

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:
            return json.loads(self.summary.read_text())
        except (OSError, ValueError):
            return {}


def key_paths(obj, prefix: str = "", depth: int = 0, out: set | None = None) -> set:
    """Dotted key paths of a JSON value (list elements merged as [])."""
    out = set() if out is None else out
    if depth > 6:
        return out
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            out.add(p)
            key_paths(v, p, depth + 1, out)
    elif isinstance(obj, list):
        for v in obj[:50]:
            key_paths(v, prefix + "[]", depth + 1, out)
    return out


def file_keys(path: pathlib.Path) -> set | None:
    try:
        if path.suffix == ".jsonl":
            keys: set = set()
            with path.open(encoding="utf-8") as f:
                for i, line in enumerate(f):
                    if i >= 200:
                        break
                    if line.strip():
                        key_paths(json.loads(line), "", 0, keys)
            return keys
        if path.suffix == ".json":
            return key_paths(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None
    return None


def snapshot(folder: pathlib.Path) -> dict:
    files = {}
    if folder.is_dir():
        for f in sorted(folder.rglob("*")):
            if f.is_file() and f.name not in ("sidecar.json", "console.txt"):
                files[str(f.relative_to(folder))] = {"keys": file_keys(f), "size": f.stat().st_size}
    return files


def previous_fixture(tool: str, case: str, version: str) -> pathlib.Path | None:
    same = FIXTURES / tool / version / case
    if same.is_dir():
        return same
    others = sorted(p for p in (FIXTURES / tool).glob(f"*/{case}") if p.is_dir())
    return others[-1] if others else None


def compare(old: dict, new: dict, label: str) -> list[str]:
    lines = []
    for name in sorted(set(old) - set(new)):
        lines.append(f"  - removed file {name}")
    for name in sorted(set(new) - set(old)):
        lines.append(f"  + added file {name}")
    for name in sorted(set(old) & set(new)):
        ok, nk = old[name]["keys"], new[name]["keys"]
        if ok is None or nk is None:
            continue
        gone, came = sorted(ok - nk), sorted(nk - ok)
        if gone or came:
            lines.append(
                f"  ~ {name}: keys removed {gone[:20]}{' …' if len(gone) > 20 else ''}; "
                f"keys added {came[:20]}{' …' if len(came) > 20 else ''}"
            )
    if not lines:
        lines.append(f"  = same files and key sets as {label}")
    else:
        lines.insert(0, f"  against {label}:")
    return lines


def sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------- one case


def run_case(case: Case, upgrade: bool, changes: list[str]) -> dict:
    t_start = time.time()
    try:
        bindir, version = ensure_venv(case, upgrade)
    except Exception as e:  # install blocked: record and go on
        return blocked(case, "install", str(e))
    folder = WORK / "runs" / case.tool / case.case
    shutil.rmtree(folder, ignore_errors=True)
    out = folder / "out"
    out.mkdir(parents=True)
    server = MockServer(case.seed, case.server_args, folder, case.timeout + 60)
    ctx = Ctx(port=server.port, out=out, bin=bindir, seed=case.seed)
    if case.prepare:
        case.prepare(ctx)
    argv = case.argv(ctx)
    log(f"{case.name} ({case.package} {version}): {shlex.join(argv)}")
    env = harness_env()
    env.update(case.env)
    t0 = time.time()
    try:
        proc = subprocess.run(
            argv,
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=case.timeout,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        rc, console = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as e:
        rc, console = (
            "timeout",
            (e.stdout or b"").decode(errors="replace")
            if isinstance(e.stdout, bytes)
            else (e.stdout or ""),
        )
    elapsed = time.time() - t0
    mock = server.stop()
    console = ANSI.sub("", console)
    (folder / "console.txt").write_text(console)
    files = []
    for pattern in case.collect:
        files.extend(p for p in sorted(out.glob(pattern)) if p.is_file())
    files = list(dict.fromkeys(files))
    if rc != 0 or not files:
        written = [str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()]
        return blocked(
            case,
            "run",
            f"exit code {rc}; files written: {written}\n" + "\n".join(console.splitlines()[-60:]),
            version=version,
            argv=argv,
        )

    dest = FIXTURES / case.tool / version / case.case
    prev = previous_fixture(case.tool, case.case, version)
    before = snapshot(prev) if prev else None
    prev_label = str(prev.relative_to(HERE)) if prev else None
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    copied = []
    for src in files:
        rel = src.relative_to(out)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
        size = target.stat().st_size
        if size > MAX_FIXTURE_FILE:
            log(f"WARNING {rel} is {size} bytes: trim the workload, not the file")
        copied.append({"file": str(rel), "bytes": size, "sha256": sha256(target)})
    (dest / "console.txt").write_text(console)
    settings = mock.get("settings", {})
    for k in ("log", "summary", "port"):
        settings.pop(k, None)
    sidecar = {
        "tool": case.tool,
        "package": case.package,
        "version": version,
        "case": case.case,
        "note": case.note,
        "command": shlex.join(argv),
        "argv": argv,
        "cwd": str(folder),
        "env": {
            k: env[k]
            for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HOME")
        }
        | case.env,
        "python": run_quiet([str(bindir / "python"), "--version"]).stdout.strip(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "exit_code": rc,
        "duration_s": round(elapsed, 3),
        "tokenizer": {
            "path": str(TOKENIZER),
            "hf_cache_name": HF_REPO,
            "sha256": sha256(TOKENIZER / "tokenizer.json"),
        },
        "mock_server": {
            "seed": case.seed,
            "url": ctx.url,
            "settings": settings,
            "requests": mock.get("requests"),
            "failed": mock.get("failed"),
            "streamed": mock.get("streamed"),
            "by_path": mock.get("by_path"),
            "prompt_tokens": mock.get("prompt_tokens"),
            "completion_tokens": mock.get("completion_tokens"),
            "cached_tokens": mock.get("cached_tokens"),
        },
        "files": copied,
    }
    (dest / "sidecar.json").write_text(json.dumps(sidecar, indent=1) + "\n")
    unblock(case)
    after = snapshot(dest)
    changes.append(f"{case.name} -> {dest.relative_to(HERE)}")
    changes.extend(
        compare(before, after, prev_label) if before is not None else ["  (no earlier fixture)"]
    )
    log(f"{case.name}: ok in {time.time() - t_start:.1f}s, {len(copied)} files")
    return {
        "case": case.name,
        "status": "ok",
        "version": version,
        "fixture": str(dest.relative_to(HERE)),
    }


def unblock(case: Case) -> None:
    path = BLOCKED / f"{case.tool}.json"
    if path.exists():
        record = json.loads(path.read_text())
        record.pop(case.case, None)
        if record:
            path.write_text(json.dumps(record, indent=1) + "\n")
        else:
            path.unlink()


def blocked(case: Case, stage: str, detail: str, version: str | None = None, argv=None) -> dict:
    log(f"{case.name}: BLOCKED at {stage}: {detail.splitlines()[0] if detail else ''}")
    BLOCKED.mkdir(exist_ok=True)
    path = BLOCKED / f"{case.tool}.json"
    record = json.loads(path.read_text()) if path.exists() else {}
    record[case.case] = {
        "stage": stage,
        "package": case.package,
        "version": version,
        "command": shlex.join(argv) if argv else None,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "detail": detail[-6000:],
    }
    path.write_text(json.dumps(record, indent=1) + "\n")
    return {"case": case.name, "status": f"blocked ({stage})", "version": version}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("only", nargs="*", help="tool or tool/case names")
    p.add_argument(
        "--no-upgrade",
        action="store_true",
        help="reuse installed harness versions instead of asking the index",
    )
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    if args.list:
        for c in CASES:
            print(c.name)
        return 0
    cases = [c for c in CASES if not args.only or c.tool in args.only or c.name in args.only]
    ensure_tokenizer()
    results, changes = [], []
    for case in cases:
        results.append(run_case(case, not args.no_upgrade, changes))
    print("\n== results")
    for r in results:
        print(f"  {r['case']:48s} {r['status']:18s} {r.get('version') or ''}")
    print("\n== changes against the previous fixtures")
    print("\n".join(changes) if changes else "  (none)")
    WORK.mkdir(exist_ok=True)
    (WORK / "last-run.json").write_text(
        json.dumps({"results": results, "changes": changes}, indent=1)
    )
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
