"""Time `cmpc check SPEC` against a bare `python -c pass` start, in one run; print the ratio."""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(argv: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each of `runs` executions (after one warm-up)."""
    subprocess.run(argv, check=False, capture_output=True)
    walls, cpus = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("spec", nargs="?", default=str(REPO / "specs" / "mi355x-vs-b300.cmp"))
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="do not compile cmpc's byte code first (under PYTHONDONTWRITEBYTECODE a checkout "
        "then recompiles every module at each start, which an install never does)",
    )
    args = parser.parse_args()
    cmpc = str(Path(sys.executable).parent / "cmpc")
    if not args.as_is:  # as pip does at install: the .pyc beside each module
        compileall.compile_dir(str(REPO / "compiler" / "cmpc"), quiet=1)
    bare, bare_cpu = timed([sys.executable, "-c", "pass"], args.runs)
    check, check_cpu = timed([cmpc, "check", args.spec], args.runs)
    b, c = statistics.median(bare), statistics.median(check)
    bc, cc = statistics.median(bare_cpu), statistics.median(check_cpu)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"python -c pass   median {b * 1000:7.1f} ms wall {bc * 1000:7.1f} ms CPU")
    print(f"cmpc check       median {c * 1000:7.1f} ms wall {cc * 1000:7.1f} ms CPU")
    print(f"  spread (wall)  {min(check) * 1000:.0f}-{max(check) * 1000:.0f} ms over {args.runs}")
    print(f"ratio            {c / b:7.2f}x wall {cc / bc:7.2f}x CPU   (goal: <= 6x, issue 19)")
    print(f"load average at the end: {load}")
    print("byte code: " + ("as found" if args.as_is else "compiled first (as an install has it)"))


if __name__ == "__main__":
    main()
