"""Cluster benchmark: the per-file reduction on local cores against a Dask LocalCluster.

Copies the SYNTHETIC sweep of specs/synthetic-sweep.cmp (scripts/make_sample_traces.py, seed
20261129) `--copies` times into a temp folder (each copy a distinct file name, so each is
reduced: no cache), then builds the spec, round by round and interleaved, (1) on a local
process pool of all cores and (2) with `--scheduler` on a LocalCluster of `--workers` worker
processes, one thread each, loopback only, no dashboard. Checks that both results.json are
byte-identical and prints wall time, files/s and MB/s (medians).

    python benchmarks/cluster.py [--copies 20] [--workers 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from distributed import LocalCluster

from cmpc.build.model import Options
from cmpc.build.pipeline import build_spec

REPO = Path(__file__).resolve().parents[1]


def _tree(where: Path, copies: int) -> tuple[Path, int, int]:
    """The spec and `copies` copies of its runs; (spec, files, bytes)."""
    data = REPO / "specs" / "data" / "synthetic"
    files = size = 0
    for system in ("alpha", "beta"):
        folder = where / "data" / "synthetic" / system
        folder.mkdir(parents=True)
        for run in sorted((data / system).glob("*.jsonl")):
            for k in range(copies):
                shutil.copy(run, folder / f"{run.stem}-copy{k:03d}.jsonl")
                files += 1
                size += run.stat().st_size
    spec = where / "synthetic-sweep.cmp"
    shutil.copy(REPO / "specs" / "synthetic-sweep.cmp", spec)
    return spec, files, size


def _timed(spec: Path, out: Path, scheduler: str | None) -> tuple[float, bytes]:
    start = time.perf_counter()
    outcome = build_spec(
        str(spec), out_dir=str(out), options=Options(render=False, scheduler=scheduler)
    )
    took = time.perf_counter() - start
    assert outcome.code == 0, outcome.diagnostics
    return took, (out / "results.json").read_bytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cmpc-cluster-bench-") as tmp:
        spec, files, size = _tree(Path(tmp), args.copies)
        cluster = LocalCluster(
            n_workers=args.workers,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # no fixed port: other builds may run beside
            scheduler_kwargs={"dashboard": False},  # dashboard off
        )
        times: dict[str, list[float]] = {"local": [], "cluster": []}
        try:
            for _ in range(args.rounds):
                local, a = _timed(spec, Path(tmp) / "local", None)
                remote, b = _timed(spec, Path(tmp) / "cluster", cluster.scheduler_address)
                assert a == b, "results.json differs between the local and the cluster build"
                times["local"].append(local)
                times["cluster"].append(remote)
        finally:
            cluster.close()
    print(f"{files} files, {size / 1e6:.1f} MB, {args.rounds} rounds (medians)")
    for name, values in times.items():
        wall = statistics.median(values)
        print(
            f"{name:8s} {wall:6.2f} s  {files / wall:6.1f} files/s  {size / 1e6 / wall:6.1f} MB/s"
            f"  (all: {', '.join(f'{v:.2f}' for v in values)})"
        )
    print("results.json byte-identical in every round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
