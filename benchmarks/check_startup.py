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
# what the `cmpc` console script runs, for code that is not the installed checkout (--against)
CONSOLE_SCRIPT = "import re, sys\nfrom cmpc import cli\n"
CONSOLE_SCRIPT += "sys.exit(cli.run() if hasattr(cli, 'run') else cli.main())"


def timed(
    argv: list[str], runs: int, env: dict[str, str] | None = None
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each of `runs` executions (after one warm-up)."""
    subprocess.run(argv, check=False, capture_output=True, env=env)
    walls, cpus = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1, help="rounds, alternated with --against")
    parser.add_argument("spec", nargs="?", default=str(REPO / "specs" / "mi355x-vs-b300.cmp"))
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="do not compile cmpc's byte code first (under PYTHONDONTWRITEBYTECODE a checkout "
        "then recompiles every module at each start, which an install never does)",
    )
    parser.add_argument(
        "--against",
        metavar="DIR",
        help="also time the cmpc of another checkout's compiler/ folder (PYTHONPATH=DIR), "
        "alternated round by round with this one: e.g. main exported by `git archive`",
    )
    args = parser.parse_args()
    cmpc = str(Path(sys.executable).parent / "cmpc")
    if not args.as_is:  # as pip does at install: the .pyc beside each module
        compileall.compile_dir(str(REPO / "compiler" / "cmpc"), quiet=1)
        if args.against:
            compileall.compile_dir(str(Path(args.against) / "cmpc"), quiet=1)
    if not args.as_is:  # a first run after installing writes the replay and regex caches,
        # which skip writing under PYTHONDONTWRITEBYTECODE (set on some machines)
        first = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run([cmpc, "check", args.spec], env=first, capture_output=True, check=False)
    load = Path("/proc/loadavg")
    for round_number in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f"round {round_number}")
        bare, bare_cpu = timed([sys.executable, "-c", "pass"], args.runs)
        b, bc = statistics.median(bare), statistics.median(bare_cpu)
        print(f"python -c pass   median {b * 1000:7.1f} ms wall {bc * 1000:7.1f} ms CPU")
        runs = [("cmpc check", [cmpc, "check", args.spec], None)]
        if args.against:
            env = dict(os.environ, PYTHONPATH=str(Path(args.against).resolve()))
            against = [sys.executable, "-c", CONSOLE_SCRIPT, "check", args.spec]
            runs.append((f"against {args.against}", against, env))
        for name, argv, env in runs:
            check, check_cpu = timed(argv, args.runs, env)
            c, cc = statistics.median(check), statistics.median(check_cpu)
            print(f"{name:16} median {c * 1000:7.1f} ms wall {cc * 1000:7.1f} ms CPU")
            spread = f"{min(check) * 1000:.0f}-{max(check) * 1000:.0f} ms"
            print(f"  spread (wall)  {spread} over {args.runs}")
            print(f"  ratio          {c / b:7.2f}x wall {cc / bc:7.2f}x CPU   (goal: <= 6x)")
        print(f"load average: {load.read_text().split()[0] if load.exists() else '?'}")
    print("byte code: " + ("as found" if args.as_is else "compiled first (as an install has it)"))


if __name__ == "__main__":
    main()
