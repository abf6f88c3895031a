"""A sensitivity `target` row reads along the spec's own latency axis, in the axis's units."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from cmpc.compile import compile_source
from cmpc.diagnostics import Severity
from cmpc.source import SourceFile

from .specs import SPECS, Builder, copy_specs

SWEEP = (SPECS / "synthetic-sweep.cmp").read_text()


def variant(latency: str, sensitivity: str) -> str:
    """The synthetic sweep with another `latency` body and `sensitivity` block, no intervals."""
    text = re.sub(r"latency \{.*?\n  \}", "latency {\n" + latency + "\n  }", SWEEP, flags=re.S)
    text = re.sub(r"  sensitivity \{.*?\n  \}", sensitivity, text, flags=re.S)
    return text.replace("  disclosure {", "  uncertainty off\n\n  disclosure {")


def latency(metric: str, target: str) -> str:
    return f"    metric {metric}\n    statistic p90\n    target {target}\n    read steffen"


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    root = tmp_path_factory.mktemp("sensitivity-target")
    return Builder(copy_specs(root), root / "cache")


def target_row(results: dict[str, Any], text: str) -> dict[str, Any]:
    (row,) = [
        r
        for r in results["sensitivity"]["rows"]
        if r["parameter"] == "target" and r["alternative"] == text
    ]
    return row


# (spec metric, spec target, alternative, the spec target it must read as)
CASES = [
    # TTFT: between the measured points (12.7-339 ms), along TTFT, not along 1/TTFT
    ("ttft", "300 ms", "150 ms", "150 ms"),
    ("ttft", "300 ms", "0.15 s", "150 ms"),
    ("ttft", "0.3 s", "150 ms", "0.15 s"),
    ("e2el", "30 s", "20 s", "20 s"),
    # TPOT given as a duration: a tok/s/user alternative reads along TPOT at 1000/x ms
    ("tpot", "30 ms", "40 tok/s/user", "25 ms"),
    # TPOT given as an interactivity: a duration alternative reads along tok/s/user at 1000/ms
    ("tpot", "30 tok/s/user", "25 ms", "40 tok/s/user"),
]


@pytest.mark.parametrize(("metric", "target", "alternative", "same_as"), CASES)
def test_target_row_equals_the_spec_built_at_that_target(
    builder: Builder, metric: str, target: str, alternative: str, same_as: str
) -> None:
    spec = variant(
        latency(metric, target), f"  sensitivity {{\n    target {target} | {alternative}\n  }}"
    )
    row = target_row(builder.results(spec), alternative)
    alone = builder.results(variant(latency(metric, same_as), ""))
    assert row["available"]
    assert math.isclose(
        row["throughput_ratio"], alone["headline"]["throughput_ratio"], rel_tol=1e-12
    )
    assert row["bound"] == alone["headline"]["bound"]


def test_the_spec_target_row_repeats_the_headline(builder: Builder) -> None:
    spec = variant(latency("ttft", "300 ms"), "  sensitivity {\n    target 300 ms | 150 ms\n  }")
    results = builder.results(spec)
    row = target_row(results, "300 ms")
    assert row["throughput_ratio"] == results["headline"]["throughput_ratio"]


def test_the_alternative_keeps_its_declared_unit_in_the_ir() -> None:
    spec = variant(latency("ttft", "2 s"), "  sensitivity {\n    target 500 ms | 3 s\n  }")
    comparison, diagnostics = compile_source(SourceFile("spec.cmp", spec))
    assert not [d for d in diagnostics if d.severity == Severity.ERROR]
    assert comparison is not None
    (axis,) = comparison.sensitivity
    given = [(a.value.value, a.value.unit, a.value.latency_ms) for a in axis.alternatives]
    assert given == [(500.0, "ms", 500.0), (3.0, "s", 3000.0)]


def test_an_interactivity_alternative_on_a_ttft_axis_is_e108() -> None:
    spec = variant(latency("ttft", "2 s"), "  sensitivity {\n    target 2 s | 30 tok/s/user\n  }")
    _, diagnostics = compile_source(SourceFile("spec.cmp", spec))
    assert [d.code for d in diagnostics if d.severity == Severity.ERROR] == ["E108"]
