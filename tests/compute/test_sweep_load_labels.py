"""`cmpc sweep` names each point's load as a build does (`points[].load`): `c64`, `4 req/s`,
`all at once`, never a bare concurrency or `-` for a run whose file states its rate.

Over the files two showcase specs read: the llmk8s vLLM runs (shared/oracle: TP8 at 4 req/s,
TP4 x PP2 with every request at once) and the synthetic sweep (SYNTHETIC, seeded: concurrency
1 to 64), each point matched to the build's by its throughput per GPU.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.verbs.sweep import run_sweep

SPECS = Path(__file__).resolve().parents[2] / "specs"
CASES = [
    ("llama70b-newcomer.cmp", ["data/llama70b/tp8_*.json", "data/llama70b/tp4_*.json"], 8),
    ("synthetic-sweep.cmp", ["data/synthetic/alpha/*.jsonl", "data/synthetic/beta/*.jsonl"], None),
]


def _built_loads(spec: str, out: Path) -> dict[float, str]:
    """Each point of the build: its throughput per GPU -> its `load` label."""
    outcome = build_spec(str(SPECS / spec), out_dir=str(out))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    return {
        p["throughput_per_gpu"]: p["load"] for s in results["systems"].values() for p in s["points"]
    }


@pytest.mark.parametrize(("spec", "globs", "gpus"), CASES)
def test_the_sweep_labels_each_load_as_the_build_does(
    spec: str, globs: list[str], gpus: int | None, tmp_path: Path
) -> None:
    built = _built_loads(spec, tmp_path / "out")
    files = sorted(str(f) for g in globs for f in SPECS.glob(g))
    outcome = run_sweep(files, gpus=gpus, as_json=True)
    assert outcome.code == 0, outcome.diagnostics
    points = json.loads(outcome.stdout)["points"]
    assert len(points) == len(built)
    for p in points:
        match = [v for t, v in built.items() if t == pytest.approx(p["throughput_per_gpu"])]
        assert match == [p["load"]], p
    table = run_sweep(files, gpus=gpus, at=[5]).stdout
    assert table.splitlines()[1].split()[0] == "load"
    for label in built.values():
        assert any(line.startswith(label + " ") for line in table.splitlines()), label


def test_a_request_rate_run_is_named_by_its_rate_not_a_dash() -> None:
    files = sorted(str(f) for f in SPECS.glob("data/llama70b/*.json"))
    table = run_sweep(files, gpus=8, at=[20]).stdout
    assert "at all at once" in table and "at 4 req/s" in table and "conc -" not in table
