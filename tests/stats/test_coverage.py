"""The intervals are honest: 95% intervals of the headline ratio hold the true ratio in 90-99%
of 200 simulated sweeps (synthetic, seeded: benchmarks/coverage.py), for every method a spec
can select; a method that cannot meet it is not offered.

Kept fast for CI with 300 resamples per run (the benchmark script runs more); the outcome is
seeded, so the test gives the same counts every run.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.language.vocabulary import INTERVAL_METHODS
from cmpc.source import SourceFile

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "coverage.py"


def _script():
    spec = importlib.util.spec_from_file_location("cmpc_coverage_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def found():
    return _script().coverage(sweeps=200, resamples=300, seed=1)


@pytest.mark.parametrize("method", INTERVAL_METHODS)
def test_95_percent_intervals_hold_the_truth_in_90_to_99_percent(found, method):
    held, made, _ = found[method]
    assert made >= 195  # nearly every sweep reaches the target on both frontiers
    assert 0.90 <= held / made <= 0.99, f"{method}: {held}/{made}"


def test_a_withdrawn_method_is_an_error_that_says_what_to_use():
    spec = SCRIPT.parent.parent / "specs" / "synthetic-sweep.cmp"
    text = spec.read_text().replace(
        "  normalize per gpu\n", "  normalize per gpu\n  uncertainty { method bca }\n"
    )
    comparison, diagnostics = compile_source(SourceFile(str(spec), text))
    assert comparison is None
    (withdrawn,) = [d for d in diagnostics if d.code == "E135"]
    assert "withdrawn" in withdrawn.message and "method percentile" in (withdrawn.help or "")


def test_the_truth_is_the_read_of_the_known_distributions():
    cv = _script()
    # a's true frontier lies above b's near 45 tok/s/user: a leads by about a quarter
    assert cv.truth() == pytest.approx(1.2564, abs=1e-4)
