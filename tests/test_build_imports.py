"""A plain cold build imports only what it uses: the fixed cost of `cmpc build` (issue 19)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.loaded import modules_loaded

REPO = Path(__file__).resolve().parents[1]

# what only a pool, a cluster, `--export`, `--require`, `--format html` or `--png` needs;
# numpy.ma, which np.percentile imports to deduplicate its ranks (about 15 ms); numpy.random
# (about 6 ms), whose seeding ingest/resample.py does itself, bit for bit; pathlib's ntpath and
# urllib.parse's ipaddress, for Windows paths and bracketed URL hosts (cli.py defers them);
# the results model's TypedDicts (cmpc.analysis.types), which only annotations name; the
# published claims' scopes and rates (cmpc.compute.claims), for a spec that states claims
NOT_NEEDED = (
    "ntpath",
    "ipaddress",
    "numpy.ma",
    "numpy.random",
    "multiprocessing",
    "concurrent.futures",
    "logging",
    "cmpc.build.tables",
    "cmpc.build.export_benchmark",
    "cmpc.build.policy",
    "cmpc.report.html",
    "cmpc.report.raster",
    "traceback",
    "cmpc.analysis.types",
    "cmpc.compute.claims",
)
# the `fleet` block's reads and report section (the sweep has one)
FLEET = ("cmpc.analysis.fleet", "cmpc.compute.fleet", "cmpc.report.sections.fleet")


def _imported(spec: Path, *args: str) -> set[str]:
    code, modules = modules_loaded("build", str(spec), "--quiet", *args, cwd=spec.parent)
    assert code == 0
    return modules


def test_a_cold_build_of_a_sweep_leaves_unused_modules_unimported(sweep_copy, tmp_path):
    spec = sweep_copy
    modules = _imported(spec, "-o", str(tmp_path / "out"), "--no-cache")
    assert "numpy" in modules and "cmpc.report.svg" in modules  # it did read runs and draw
    assert sorted(m for m in NOT_NEEDED if m in modules) == []
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(FLEET) <= modules and results["fleet"]["systems"]  # it has a `fleet` block


def test_the_options_that_need_them_still_load_them(sweep_copy, tmp_path):
    spec = sweep_copy
    out = tmp_path / "out"
    modules = _imported(
        spec, "-o", str(out), "--no-cache", "--format", "html", "--require", "headline != null"
    )
    assert {"cmpc.report.html", "cmpc.build.policy"} <= modules
    assert (out / "report.html").is_file()


def test_a_cold_build_reading_a_lower_bound_with_intervals_imports_neither_ma_nor_random(tmp_path):
    """The newcomer spec's reads are lower bounds with one-sided bootstrap bounds: the bound's
    quantile and the replicates' seeding need neither numpy.ma nor numpy.random."""
    shutil.copytree(REPO / "specs" / "data" / "llama70b", tmp_path / "data" / "llama70b")
    spec = tmp_path / "llama70b-newcomer.cmp"
    shutil.copy(REPO / "specs" / "llama70b-newcomer.cmp", spec)
    modules = _imported(spec, "-o", str(tmp_path / "out"), "--no-cache")
    assert "cmpc.ingest.resample" in modules and "cmpc.compute.intervals" in modules
    assert "lower bound" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert sorted(m for m in ("numpy.ma", "numpy.random") if m in modules) == []
    assert sorted(m for m in FLEET if m in modules) == []  # it has no `fleet` block


GC_PROBE = """
import gc, json, sys
during = []

def seen(phase, info):
    pipeline = sys.modules.get("cmpc.build.pipeline")
    if phase == "start" and pipeline is not None and not hasattr(pipeline, "build_spec"):
        during.append(info["generation"])  # a collection while the build's modules load

gc.callbacks.append(seen)
from cmpc.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, during, gc.isenabled()]))
"""


def test_the_builds_imports_run_without_garbage_collection(sweep_copy, tmp_path):
    """What the imports make lives to the end: collecting then only costs time (about 3 ms)."""
    spec = sweep_copy
    args = ["build", str(spec), "-o", str(tmp_path / "out"), "--quiet", "--no-cache"]
    run = subprocess.run(
        [sys.executable, "-c", GC_PROBE, *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    code, during, enabled = json.loads(run.stdout.strip().splitlines()[-1])
    assert code == 0
    assert during == []
    assert enabled  # and collection is back on for the build itself


THRESHOLD_PROBE = """
import gc, json, sys
from cmpc.cli import main
gc.set_threshold(700, 10, 10)
during = []
gc.callbacks.append(lambda phase, info: phase == "start" and during.append(gc.get_threshold()))
counts = []
import cmpc.build.pipeline as pipeline
build = pipeline.build_spec
def counted(*args, **kwargs):
    counts.append(gc.get_threshold())
    return build(*args, **kwargs)
pipeline.build_spec = counted
code = main(sys.argv[1:])
raised = sum(t == (100_000, 50, 50) for t in during)
print(json.dumps([code, counts, raised, gc.get_threshold()]))
"""


def test_a_build_collects_young_objects_rarely_and_restores_the_thresholds(sweep_copy, tmp_path):
    """A build's many short-lived containers are collected every 100,000 allocations, not 700;
    the caller's thresholds come back when main() returns (the API and tests call it)."""
    args = ["build", str(sweep_copy), "-o", str(tmp_path / "out"), "--quiet", "--no-cache"]
    run = subprocess.run(
        [sys.executable, "-c", THRESHOLD_PROBE, *args], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    code, building, collections, after = json.loads(run.stdout.strip().splitlines()[-1])
    assert code == 0
    assert building == [[100_000, 50, 50]]
    assert collections <= 5, "a 10^4-request sweep: a handful of young collections at most"
    assert after == [700, 10, 10]
