"""Replicates are read along the point read's axis: latency for a duration target."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from cmpc.analysis.reads import measured_runs, read_system
from cmpc.analysis.uncertainty import read_jackknife, read_replicates, replicates_of
from cmpc.build.pipeline import build_spec
from cmpc.compile import compile_source
from cmpc.ingest.load import load_data
from cmpc.source import SourceFile

SPECS = Path(__file__).resolve().parents[2] / "specs"
SWEEP = SPECS / "synthetic-sweep.cmp"


def _comparison(target: str):
    text = SWEEP.read_text().replace("target 30 tok/s/user", f"target {target}")
    assert f"target {target}" in text
    comparison, diagnostics = compile_source(SourceFile(str(SWEEP), text))
    assert comparison is not None, diagnostics
    return comparison


@pytest.mark.parametrize("target", ["28 ms", "45 ms", "30 tok/s/user"])
@pytest.mark.parametrize("read", ["steffen", "linear", "calculator"])
def test_an_unresampled_replicate_reads_the_point_read_bit_for_bit(target, read):
    comparison = _comparison(target)
    comparison = dataclasses.replace(
        comparison, latency=dataclasses.replace(comparison.latency, read=read)
    )
    data, _, problems = load_data(comparison, SPECS)
    assert not [d for d in problems if d.severity == "error"]
    for system in comparison.systems:
        runs = measured_runs(comparison, data, system)
        reps = replicates_of(comparison, system, runs)
        assert reps is not None
        width = reps.runs[0].latency_s.size
        # every replicate is the run as measured: the read must be the point read exactly
        still = dataclasses.replace(
            reps,
            runs=tuple(
                dataclasses.replace(
                    r,
                    latency_s=np.full(width, r.point.latency_s),
                    per_gpu=np.full(width, r.estimate),
                )
                for r in reps.runs
            ),
        )
        point = read_system(comparison, system, runs)[0].per_gpu
        assert point is not None
        reads = read_replicates(comparison, still, point)
        assert reads.boot.tolist() == [point] * reps.resamples
        jack = read_jackknife(comparison, still)
        assert jack.tolist() == [point] * jack.size


def test_the_interval_of_a_latency_target_read_holds_the_point_read(tmp_path):
    out = tmp_path / "o"
    outcome = build_spec(str(SWEEP), out_dir=str(out), sets=["latency.target=28 ms"], render=False)
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    for name in ("alpha", "beta"):
        system = results["systems"][name]
        low, high = system["uncertainty"]["throughput_per_gpu_ci"]
        assert low < system["at_target"]["throughput_per_gpu"] < high
    head = results["headline"]
    low, high = head["throughput_ratio_ci"]
    assert low < head["throughput_ratio"] < high


@pytest.mark.parametrize("target", ["28 ms", "30 tok/s/user"])
def test_runs_without_repetitions_read_as_the_drawn_gather_reads_them(target, monkeypatch):
    # no load repeated: every replicate keeps each run in its place, so the reads skip the
    # gather by `drawn`; a group of two takes the gather, here with `drawn` as identity rows
    comparison = _comparison(target)
    data, _, _ = load_data(comparison, SPECS)
    for system in comparison.systems:
        reps = replicates_of(comparison, system, measured_runs(comparison, data, system))
        assert reps is not None and all(len(g) == 1 for g in reps.groups)
        fast = read_replicates(comparison, reps).boot
        with monkeypatch.context() as patch:
            patch.setattr(type(reps), "drawn", _identity)
            grouped = dataclasses.replace(reps, groups=((0, 0), *reps.groups[1:]))
            slow = read_replicates(comparison, grouped).boot
        assert fast.tobytes() == slow.tobytes()
        assert np.isfinite(fast).sum() > reps.resamples // 2


def _identity(reps, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Each replicate's runs in place, as `drawn` gives them without repetitions."""
    return np.tile(np.arange(len(reps.runs)), (reps.resamples, 1))
