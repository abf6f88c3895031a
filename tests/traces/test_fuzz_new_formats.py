"""Seeded mutants of the MLPerf logs and llm-d reports: diagnostics, never a traceback."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from cmpc.diagnostics import has_errors
from cmpc.metrics import summarize
from cmpc.traces import load_runs

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"
FILES = [
    FIXTURES / "mlperf" / "6.0.17" / "server-valid" / "mlperf_log_summary.txt",
    FIXTURES / "mlperf" / "6.0.17" / "offline" / "mlperf_log_detail.txt",
    FIXTURES / "llmd-report" / "0.7.0" / "chat-stream-c4" / "benchmark_report.yaml",
    FIXTURES / "llmd-report" / "0.7.0" / "chat-stream-c4" / "benchmark_report.json",
]
VALUES = ["1e999", "-1e999", "NaN", "1" + "0" * 400, "-5", "x", "null", "[]", "{}", "true", ""]
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def _mutant(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    kind = rng.randrange(5)
    i = rng.randrange(len(lines))
    if kind == 0:  # a number replaced by an extreme or a non-number
        found = list(NUMBER.finditer(lines[i]))
        if found:
            m = rng.choice(found)
            lines[i] = lines[i][: m.start()] + rng.choice(VALUES) + lines[i][m.end() :]
    elif kind == 1:
        del lines[i]
    elif kind == 2:
        return "".join(lines)[: rng.randrange(len(text))]
    elif kind == 3:
        lines[i] = lines[i].replace(":", "", 1)
    else:
        j = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:j] + rng.choice(["*a ", "&a ", "!!python/name:os.system ", "\x00"])
    return "".join(lines)


@pytest.mark.parametrize("case", range(120))
def test_mutated_files_give_runs_or_diagnostics(tmp_path, case):
    source = FILES[case % len(FILES)]
    rng = random.Random(f"i15:{case}")
    target = tmp_path / source.name
    target.write_text(_mutant(source.read_text(), rng))
    for fmt in (None, "mlperf" if "mlperf" in source.name else "llmd-report"):
        runs, diags = load_runs(str(target), format=fmt)
        if not runs:
            assert has_errors(diags), [d.message for d in diags]
        for run in runs:
            summarize(run, percentiles=("50", "90", "99"))
