"""Time `cmpc check SPEC` against a bare `python -c pass` start, in one run; print the ratio."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(argv: list[str], runs: int) -> list[float]:
    """Wall-clock seconds of each of `runs` executions (after one warm-up)."""
    subprocess.run(argv, check=False, capture_output=True)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=False, capture_output=True)
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("spec", nargs="?", default=str(REPO / "specs" / "mi355x-vs-b300.cmp"))
    args = parser.parse_args()
    cmpc = str(Path(sys.executable).parent / "cmpc")
    bare = timed([sys.executable, "-c", "pass"], args.runs)
    check = timed([cmpc, "check", args.spec], args.runs)
    b, c = statistics.median(bare), statistics.median(check)
    print(f"python -c pass   median {b * 1000:7.1f} ms over {args.runs} runs")
    print(f"cmpc check       median {c * 1000:7.1f} ms over {args.runs} runs")
    print(f"ratio            {c / b:7.2f}x   (goal: <= 6x, issue 19)")


if __name__ == "__main__":
    main()
