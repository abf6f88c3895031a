"""IR + measured or reported data -> every figure of the comparison (the results model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.analysis import types as T
from cmpc.analysis.capacity import capacity, capacity_warnings
from cmpc.analysis.claims import claim_combinations, claim_result
from cmpc.analysis.conditions import conditions
from cmpc.analysis.disclosure import disclosure
from cmpc.analysis.figures import figures
from cmpc.analysis.intervals import settings, with_intervals
from cmpc.analysis.sensitivity import sensitivity
from cmpc.analysis.stage import diagnostics_json, diagnostics_of, recall, same
from cmpc.diagnostics import Diagnostic
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir

if TYPE_CHECKING:
    from cmpc.analysis import fleet, run_disagreements, run_facts
else:  # a rebuild from the stage recalls both steps: it imports neither (their patterns: 4 ms)
    run_disagreements = lazy.module("cmpc.analysis.run_disagreements")
    run_facts = lazy.module("cmpc.analysis.run_facts")
    fleet = lazy.module("cmpc.analysis.fleet")  # only a spec with a `fleet` block reads it


def analyze(
    comparison: ir.Comparison, data: Mapping[str, SystemData]
) -> tuple[T.Analysis, list[Diagnostic]]:
    """The results model (see schemas/results.schema.json) and the warnings met on the way."""
    at_spec, diagnostics = figures(comparison, data)
    headline = with_intervals(comparison, data, at_spec.systems, at_spec.headline)
    cap = capacity(comparison)
    diagnostics += capacity_warnings(comparison, cap)
    fleet_reads, fleet_warnings = (
        (None, []) if comparison.fleet is None else fleet.fleet(comparison, data, at_spec.systems)
    )
    results: T.Analysis = {
        "title": comparison.title,
        "question": comparison.question,
        "baseline": comparison.baseline,
        "synthetic": comparison.synthetic,
        "conditions": conditions(comparison),
        "systems": at_spec.systems,
        "headline": headline,
        "load": at_spec.load,
        "comparisons": at_spec.comparisons,
        "claims": [claim_result(c, comparison, at_spec.systems) for c in comparison.claims],
        "claim_combinations": claim_combinations(comparison.claims),
        "sensitivity": sensitivity(comparison, data, headline),
        "capacity": cap,
        "disclosure": disclosure(
            comparison,
            at_spec.systems,
            recall(
                "run-facts",
                comparison,
                None,
                lambda: run_facts.run_facts(comparison, data),
                same,
                same,
            ),
        ),
        "uncertainty": settings(comparison),
        "fleet": fleet_reads,
    }
    disagreeing = recall(
        "disagreements",
        comparison,
        None,
        lambda: run_disagreements.disagreements(comparison, data),
        diagnostics_json,
        diagnostics_of,
    )
    return results, diagnostics + fleet_warnings + disagreeing
