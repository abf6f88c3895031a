"""No size limit: `cmpc stats` on a >= 8 GB vLLM file holds what its values need, not its bytes.

Writes (seeded, synthetic) the 10^7-gap vLLM file of benchmarks/ingest.py twice: as it is, and
padded with JSON whitespace after every row of `itls` until it is at least `--gigabytes` GB
(real bytes on disk: a sparse region reads as NUL bytes, which JSON does not allow). Runs
`cmpc stats --json` on both in fresh processes, checks that they report the same figures, and
prints the wall and CPU time and peak RSS of each. Checks the free disk space first and
removes the files after.

    python benchmarks/huge.py [--gigabytes 8] [--dir DIR] [--rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import generate  # the same file, byte for byte, as benchmarks/ingest.py


def pad(source: Path, target: Path, total: int) -> None:
    """`source` with whitespace between `itls` rows, so that the file holds `total` bytes."""
    text = source.read_bytes()
    start = text.index(b'"itls": [') + len(b'"itls": [')
    end = text.index(b"]]", start) + 1
    rows = text[start:end].split(b"], [")
    extra = max(0, total - len(text))
    each, rest = divmod(extra, len(rows))
    spaces = b" " * (each + 1)
    with open(target, "wb") as out:
        out.write(text[:start])
        for i, row in enumerate(rows):
            if i:  # after the comma, where `],` still ends a row for any reader
                out.write(b"," + spaces[: each + (1 if i <= rest else 0)] + b"[")
            out.write(row if i == len(rows) - 1 else row + b"]")
        out.write(text[end:])


def run(cmd: list[str]) -> tuple[float, float, int, str]:
    """Wall time (s), CPU time (s), peak RSS (bytes) and stdout of one child."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{cmd} failed with {os.waitstatus_to_exitcode(status)}")
        out.seek(0)
        text = out.read().decode()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=8.0)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--write", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:  # in a child: Linux counts a parent's resident memory into a child's peak
        small, big, size = Path(args.write[0]), Path(args.write[1]), int(args.write[2])
        generate(small, requests=10_000, gaps=1_000)
        pad(small, big, size)
        return 0
    total = int(args.gigabytes * 1e9)
    free = shutil.disk_usage(args.dir).free
    if free < total + (2 << 30):
        print(f"needs {total / 1e9:.1f} GB + 2 GiB free in {args.dir}, has {free / 1e9:.1f} GB")
        return 2
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        small, big = Path(tmp) / "vllm.json", Path(tmp) / "vllm-padded.json"
        started = time.perf_counter()
        write = [sys.executable, __file__, "--write", str(small), str(big), str(total)]
        subprocess.run(write, check=True)
        wrote = time.perf_counter() - started
        print(f"wrote {big.stat().st_size / 1e9:.2f} GB in {wrote:.0f} s, ", end="")
        print(f"the values of {small.name}")
        print(f"({small.stat().st_size / 1e6:.1f} MB, 10^7 chunk gaps); load average", end=" ")
        print(Path("/proc/loadavg").read_text().split()[0])
        cmd = [sys.executable, "-m", "cmpc.cli", "stats", "--json"]
        results: dict[str, list[tuple[float, float, int]]] = {small.name: [], big.name: []}
        figures = {}
        for _ in range(args.rounds):
            for path in (small, big):
                wall, cpu, peak, out = run([*cmd, str(path)])
                results[path.name].append((wall, cpu, peak))
                doc = json.loads(out)
                figures[path.name] = (doc["metrics"], doc["requests"], doc["tokens"])
        if figures[small.name] != figures[big.name]:
            raise SystemExit("the padded file gives other figures")
        print("| file | size | wall | CPU | peak RSS | read rate |")
        print("|---|---:|---:|---:|---:|---:|")
        for path in (small, big):
            rows = results[path.name]
            wall, cpu, peak = (float(np.median([r[k] for r in rows])) for k in range(3))
            size = path.stat().st_size
            rate = f"{size / wall / 1e9:.2f} GB/s"
            print(f"| {path.name} | {size / 1e9:.2f} GB | {wall:.1f} s | {cpu:.1f} s ", end="")
            print(f"| {peak / 1e6:.0f} MB | {rate} |")
        ratio = max(r[2] for r in results[big.name]) / max(r[2] for r in results[small.name])
        print(f"same figures; peak RSS of the padded file / the plain one: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
