"""`cmpc stats` side by side with the stacks a user would otherwise reach for, and a C floor.

Generates (seeded, synthetic) the vLLM `--save-detailed` file of benchmarks/ingest.py with 10^7
chunk gaps, with and without `latencies` (vLLM leaves them out unless asked; then every
figure needs the chunk gaps). Installs stdlib-json's peers (orjson, msgspec, pysimdjson,
polars, duckdb, numpy) into their own virtualenv, compiles a plain C parse of the same numbers
(`strtod` on every number outside a string), and times each in fresh subprocesses,
interleaved round by round: wall, CPU and peak RSS (`os.wait4`). Every stack prints the same
figures (ttft, tpot, chunk gap and e2el: mean, median, std, p50/p90/p99), checked against
cmpc's to 1e-9.

    python benchmarks/peers.py [--rounds 3] [--venv DIR] [--requests 10000] [--gaps 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ingest import byte_compile_cmpc  # benchmarks/ is this script's folder, so on sys.path

HERE = Path(__file__).resolve().parent
PACKAGES = ["numpy", "orjson", "msgspec", "pysimdjson", "polars", "duckdb"]
FIGURES = ("ttft", "tpot", "chunk_gap", "e2el")

# numpy statistics over the columns, shared by the stacks that end in numpy arrays
SUMMARY = r"""
import json, sys
import numpy as np

def summary(ttft, out, gaps, counts, latencies):
    ttft, out = np.asarray(ttft, float), np.asarray(out)
    gaps, counts = np.asarray(gaps, float), np.asarray(counts)
    if latencies is None:  # vLLM without `latencies`: e2el is ttft + the request's chunk gaps
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        sums = np.add.reduceat(gaps, starts) if gaps.size else np.zeros(ttft.size)
        sums[counts == 0] = 0.0
        e2el = ttft + sums
    else:
        e2el = np.asarray(latencies, float)
    many = out > 1
    tpot = (e2el[many] - ttft[many]) / (out[many] - 1)
    res = {}
    for name, x in (("ttft", ttft), ("tpot", tpot), ("chunk_gap", gaps), ("e2el", e2el)):
        res[name] = {"mean": float(np.mean(x)) * 1000, "median": float(np.median(x)) * 1000,
                     "std": float(np.std(x)) * 1000,
                     **{f"p{p}": float(np.percentile(x, p)) * 1000 for p in (50, 90, 99)}}
    print(json.dumps(res))
"""

STACKS = {
    "stdlib json + numpy": r"""
with open(sys.argv[1], "rb") as f:
    d = json.load(f)
itls = d["itls"]
gaps = [g for row in itls for g in row]
summary(d["ttfts"], d["output_lens"], gaps, [len(r) for r in itls], d.get("latencies"))
""",
    "orjson + numpy": r"""
import orjson
from itertools import chain
with open(sys.argv[1], "rb") as f:
    d = orjson.loads(f.read())
itls = d["itls"]
counts = [len(r) for r in itls]
gaps = np.fromiter(chain.from_iterable(itls), float, count=sum(counts))
summary(d["ttfts"], d["output_lens"], gaps, counts, d.get("latencies"))
""",
    "msgspec + numpy": r"""
import msgspec
from itertools import chain

class Result(msgspec.Struct):
    ttfts: list[float]
    output_lens: list[int]
    itls: list[list[float]]
    latencies: list[float] | None = None

with open(sys.argv[1], "rb") as f:
    d = msgspec.json.decode(f.read(), type=Result)
counts = [len(r) for r in d.itls]
gaps = np.fromiter(chain.from_iterable(d.itls), float, count=sum(counts))
summary(d.ttfts, d.output_lens, gaps, counts, d.latencies)
""",
    "pysimdjson + numpy": r"""
import simdjson
with open(sys.argv[1], "rb") as f:
    d = simdjson.Parser().parse(f.read())
itls = d["itls"]
gaps = np.frombuffer(itls.as_buffer(of_type="d"), float)
counts = [len(r) for r in itls]
lat = d.get("latencies")
ttft = np.frombuffer(d["ttfts"].as_buffer(of_type="d"), float)
out = np.frombuffer(d["output_lens"].as_buffer(of_type="i"), np.int64)
lat = None if lat is None else np.frombuffer(lat.as_buffer(of_type="d"), float)
summary(ttft, out, gaps, counts, lat)
""",
    "polars": r"""
import polars as pl
df = pl.read_json(sys.argv[1], infer_schema_length=None)
has_lat = "latencies" in df.columns
cols = ["ttfts", "output_lens", "itls"] + (["latencies"] if has_lat else [])
req = df.select(cols).explode(cols)
req = req.with_columns(pl.col("itls").list.sum().alias("gap_sum"))
e2el = pl.col("latencies") if has_lat else pl.col("ttfts") + pl.col("gap_sum")
req = req.with_columns(e2el.alias("e2el"))
tpot = req.filter(pl.col("output_lens") > 1).select(
    (pl.col("e2el") - pl.col("ttfts")) / (pl.col("output_lens") - 1))
gaps = req.select(pl.col("itls").explode()).to_series()
res = {}
for name, s in (("ttft", req["ttfts"]), ("tpot", tpot.to_series()), ("chunk_gap", gaps),
                ("e2el", req["e2el"])):
    res[name] = {"mean": s.mean() * 1000, "median": s.median() * 1000, "std": s.std(ddof=0) * 1000,
                 **{f"p{p}": s.quantile(p / 100, interpolation="linear") * 1000
                    for p in (50, 90, 99)}}
print(json.dumps(res))
""",
    "duckdb": r"""
import duckdb, os
path = sys.argv[1]
con = duckdb.connect()
size = os.path.getsize(path) + 1
con.execute(f"CREATE VIEW d AS SELECT * FROM read_json('{path}', maximum_object_size={size})")
has_lat = "latencies" in [c[0] for c in con.execute("DESCRIBE d").fetchall()]
lat = "unnest(latencies)" if has_lat else "NULL"
con.execute(f'''CREATE TABLE r AS SELECT unnest(ttfts) AS ttft, unnest(output_lens) AS out,
    unnest(list_transform(itls, lambda x: list_sum(x))) AS s, {lat} AS lat FROM d''')
con.execute("CREATE TABLE g AS SELECT unnest(flatten(itls)) AS x FROM d")
e2el = "lat" if has_lat else "ttft + s"
queries = {"ttft": "SELECT ttft AS x FROM r", "chunk_gap": "SELECT x FROM g",
           "tpot": f"SELECT ({e2el} - ttft) / (out - 1) AS x FROM r WHERE out > 1",
           "e2el": f"SELECT {e2el} AS x FROM r"}
res = {}
for name, q in queries.items():
    mean, median, std, qs = con.execute(f'''SELECT avg(x), median(x), stddev_pop(x),
        quantile_cont(x, [0.5, 0.9, 0.99]) FROM ({q})''').fetchone()
    res[name] = {"mean": mean * 1000, "median": median * 1000, "std": std * 1000,
                 "p50": qs[0] * 1000, "p90": qs[1] * 1000, "p99": qs[2] * 1000}
print(json.dumps(res))
""",
}

# The floor: a plain C parse of the same numbers, strtod on every number outside a string.
FLOOR_C = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END); long size = ftell(f); fseek(f, 0, SEEK_SET);
    char *text = malloc(size + 1);
    if (fread(text, 1, size, f) != (size_t)size) return 2;
    text[size] = 0;
    double *values = malloc(sizeof(double) * (size / 2 + 1));
    size_t n = 0;
    int in_string = 0;
    for (char *p = text; *p;) {
        char c = *p;
        if (in_string) { if (c == '\\') p++; else if (c == '"') in_string = 0; p++; }
        else if (c == '"') { in_string = 1; p++; }
        else if (c == '-' || (c >= '0' && c <= '9')) { values[n++] = strtod(p, &p); }
        else p++;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += values[i];
    printf("{\"numbers\": %zu, \"sum\": %.17g}\n", n, sum);
    return 0;
}
"""


def ensure_venv(venv: Path) -> Path:
    """The peers' own virtualenv with their packages, made once (pip, the ordinary client)."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = "import numpy, orjson, msgspec, simdjson, polars, duckdb"
    if subprocess.run([str(python), "-c", probe], capture_output=True).returncode != 0:
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], check=True)
    return python


def versions(python: Path) -> str:
    code = (
        "import importlib.metadata as m; print(', '.join(f'{p} {m.version(p)}' for p in "
        f"{PACKAGES!r}))"
    )
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip()


def run_child(cmd: list[str]) -> tuple[float, float, int, str]:
    """Wall time (s), CPU time (s), peak RSS (bytes) and stdout of one child process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[:3]} failed: {err.read().decode()[-2000:]}")
        out.seek(0)
        text = out.read().decode()
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def cmpc_figures(stats: dict) -> dict:
    return {name: stats["metrics"][f"{name}_ms"] for name in FIGURES}


def agree(ours: dict, theirs: dict, label: str) -> None:
    for name in FIGURES:
        for stat, value in theirs[name].items():
            got = ours[name][stat]
            if abs(got - value) > 1e-9 * max(abs(value), 1e-300):
                raise SystemExit(f"{label} disagrees on {name} {stat}: {value} vs cmpc {got}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--gaps", type=int, default=1_000, help="chunk gaps per request")
    parser.add_argument("--venv", type=Path, default=Path(tempfile.gettempdir()) / "cmpc-peers")
    parser.add_argument("--only", action="append", help="time only these stacks (repeatable)")
    args = parser.parse_args()
    peer_python = ensure_venv(args.venv)
    byte_compile_cmpc()
    print(f"peers: {versions(peer_python)}; cc: {shutil.which('gcc') or 'none'}")
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        floor = tmpdir / "floor"
        (tmpdir / "floor.c").write_text(FLOOR_C, encoding="utf-8")
        subprocess.run(["gcc", "-O2", "-o", str(floor), str(tmpdir / "floor.c")], check=True)
        commands: dict[str, list[str]] = {
            "cmpc stats": [sys.executable, "-m", "cmpc.cli", "stats", "--json"],
            "plain C (strtod)": [str(floor)],
        }
        for name, body in STACKS.items():
            if args.only and name not in args.only:
                continue
            script = tmpdir / f"peer{len(commands)}.py"
            script.write_text(SUMMARY + body, encoding="utf-8")
            commands[name] = [str(peer_python), str(script)]
        for latencies in (True, False):
            path = tmpdir / f"vllm-{'latencies' if latencies else 'no-latencies'}.json"
            gen = [sys.executable, str(HERE / "ingest.py"), "--generate", str(path)]
            gen += ["--requests", str(args.requests), "--gaps", str(args.gaps)]
            gen += [] if latencies else ["--no-latencies"]
            subprocess.run(gen, check=True)
            report(path, commands, args.rounds, latencies)
            path.unlink()
    return 0


def report(path: Path, commands: dict[str, list[str]], rounds: int, latencies: bool) -> None:
    size = path.stat().st_size
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"\n{path.name}: {size / 1e6:.1f} MB, load average {load} at start")
    walls: dict[str, list[float]] = {k: [] for k in commands}
    cpus: dict[str, list[float]] = {k: [] for k in commands}
    peaks: dict[str, list[int]] = {k: [] for k in commands}
    outputs: dict[str, str] = {}
    for _ in range(rounds):
        for name, cmd in commands.items():  # interleaved, so drift hits every stack alike
            wall, cpu, peak, out = run_child([*cmd, str(path)])
            walls[name].append(wall)
            cpus[name].append(cpu)
            peaks[name].append(peak)
            outputs[name] = out
    ours = cmpc_figures(json.loads(outputs["cmpc stats"]))
    for name in STACKS:
        if name in outputs:
            agree(ours, json.loads(outputs[name]), name)
    base = statistics.median(walls["cmpc stats"])
    base_cpu = statistics.median(cpus["cmpc stats"])
    print(f"(medians of {rounds} interleaved rounds, [min-max] wall; peak RSS = max over rounds)")
    print("| stack | wall | [min–max] | CPU | peak RSS | wall ÷ cmpc | CPU ÷ cmpc |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in commands:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        spread = f"{min(walls[name]):.2f}–{max(walls[name]):.2f} s"
        print(
            f"| {name} | {w:.2f} s | {spread} | {c:.2f} s | {max(peaks[name]) / 1e6:.0f} MB "
            f"| {w / base:.2f} | {c / base_cpu:.2f} |"
        )
    print(f"every stack's figures agree with cmpc's to 1e-9 (latencies in file: {latencies})")


if __name__ == "__main__":
    sys.exit(main())
