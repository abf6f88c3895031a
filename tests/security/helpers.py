"""Helpers of the hostile-input tests: the CLI run in-process, time limits, real inputs."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from pathlib import Path

from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SPECS = sorted(REPO.glob("specs/*.cmp"))
# Real benchmark outputs of every format: the specs' data, the shared oracle, the reference rows.
TRACES = sorted(
    p
    for root, pattern in (
        (REPO / "specs" / "data", "**/*.json*"),
        (SHARED / "oracle", "**/*.json*"),
        (SHARED / "reference-data" / "inferencex", "*.json"),
    )
    for p in root.glob(pattern)
    if p.is_file()
)
EXIT_CODES = {0, 1, 2}


class Hang(Exception):
    """A case ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Fail a case that runs longer than `seconds` (SIGALRM: the main thread only)."""

    def expire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(capsys, argv: list[str], *, seconds: float = 20.0) -> tuple[int, str, str]:
    """`cmpc ARGV` in-process: exit status, stdout, stderr; never a traceback or internal error."""
    from cmpc.cli import main

    capsys.readouterr()
    with time_limit(seconds):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
    out, err = capsys.readouterr()
    assert code in EXIT_CODES, (argv, code, err[-2000:])
    for text in (out, err):
        assert "Traceback" not in text, (argv, text[-3000:])
        assert "internal error" not in text, (argv, text[-3000:])
    if code != 0:
        assert err.strip() or out.strip(), f"{argv}: exit {code} without a diagnostic"
    return code, out, err


def copy_spec(spec: Path, into: Path) -> Path:
    """The spec and the data folder it reads, copied under `into`; the copy's path."""
    into.mkdir(parents=True, exist_ok=True)
    target = into / spec.name
    shutil.copyfile(spec, target)
    data = spec.parent / "data"
    text = spec.read_text(encoding="utf-8")
    for sub in sorted(data.iterdir()) if data.is_dir() else ():
        if sub.is_dir() and f"data/{sub.name}/" in text:
            shutil.copytree(sub, into / "data" / sub.name, dirs_exist_ok=True)
    return target


SCALE = max(1, int(os.environ.get("CMPC_FUZZ_SCALE", "1") or 1))


def fuzz(examples: int, deadline_ms: int = 2000) -> settings:
    """Modest and repeatable in CI; CMPC_FUZZ_SCALE=N runs N times as many random cases."""
    return settings(
        max_examples=examples * SCALE,
        deadline=deadline_ms,
        derandomize=SCALE == 1,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
