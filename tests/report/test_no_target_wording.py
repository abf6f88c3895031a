"""Sentences that speak of "the target" appear only when the spec has one, and the
equal-interactivity table calls a row bold only when a row is at the target.

Over the synthetic sweep (specs/synthetic-sweep.cmp, its target 30 tok/s/user inside both
frontiers' range): as declared, with the target removed, and with a target of 5 tok/s/user,
easier than every measured point, so outside the range the equal-interactivity rows cover.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

TARGET = "    target 30 tok/s/user\n"


def report(spec: Path, target: str | None) -> str:
    """The report of the sweep with its target line replaced by `target` (None: removed)."""
    text = spec.read_text()
    assert TARGET in text
    spec.write_text(text.replace(TARGET, "" if target is None else f"    target {target}\n"))
    outcome = build_spec(str(spec), out_dir=str(spec.parent / "out"))
    assert not has_errors(outcome.diagnostics), outcome.diagnostics
    return (spec.parent / "out" / "report.md").read_text()


def footnote(md: str, name: str) -> str:
    found = re.search(rf"^\[\^{name}\]: (.*)$", md, re.MULTILINE)
    assert found, name
    return found.group(1)


def equal_interactivity_intro(md: str) -> str:
    found = re.search(r"^### At equal interactivity\n\n(.*)$", md, re.MULTILINE)
    assert found
    return found.group(1)


def test_with_a_target_the_report_reads_at_the_target(sweep_copy: Path) -> None:
    md = report(sweep_copy, "30 tok/s/user")
    assert "the target row is in bold" in equal_interactivity_intro(md)
    assert re.search(r"^\| \*\*30\*\* \|", md, re.MULTILINE)  # the bold row exists
    assert "Each system's throughput per GPU at the target with its 95% interval" in md
    ci = footnote(md, "ci")
    assert "reads it at the target" in ci
    assert "Replicates whose frontier misses the target are left out" in ci
    assert "a target harder than every measured point is unreachable" in footnote(md, "latency")


def test_without_a_target_no_sentence_speaks_of_one(sweep_copy: Path) -> None:
    md = report(sweep_copy, None)
    assert "with no latency target" in md  # the headline says how it read
    assert "bold" not in equal_interactivity_intro(md)
    assert not re.search(r"^\| \*\*", md, re.MULTILINE)  # and no row is bold
    assert "highest throughput per GPU measured (no latency target is declared)" in md
    assert "at the target with its" not in md
    ci = footnote(md, "ci")
    assert "reads it at its highest throughput (no latency target)" in ci
    assert "misses the target" not in ci
    latency = footnote(md, "latency")
    assert "Read: with no target each system's figure is the highest throughput it" in latency
    assert "a target harder than every measured point" not in latency


@pytest.mark.parametrize("target", ["5 tok/s/user"])
def test_a_target_outside_the_rows_range_has_no_bold_row(sweep_copy: Path, target: str) -> None:
    md = report(sweep_copy, target)
    intro = equal_interactivity_intro(md)
    assert "bold" not in intro
    assert not re.search(r"^\| \*\*", md, re.MULTILINE)
    assert "reads it at the target" in footnote(md, "ci")  # a target still governs the reads


def test_one_run_per_system_without_a_target_names_each_load(sweep_copy: Path) -> None:
    text = sweep_copy.read_text()
    for name in ("alpha", "beta"):
        text = text.replace(
            f"data/synthetic/{name}/*.jsonl", f"data/synthetic/{name}/conc-08.jsonl"
        )
    sweep_copy.write_text(text)
    md = report(sweep_copy, None)
    assert (
        "each at its measured load, with no latency target (concurrency 8 vs concurrency 8;" in md
    )
    assert "one run per system draws no frontier" in md
    assert "(its frontier's peak; with one run, that run's)" in footnote(md, "latency")
    assert "### At equal interactivity" not in md  # no rows, so "where shown" above
