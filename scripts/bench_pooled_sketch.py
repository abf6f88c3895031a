"""Time pooled statistics on a Dask LocalCluster: exact vs `--sketch`, per metric (SYNTHETIC).

Writes the seeded synthetic sweep (scripts/make_sample_traces.py) once per seed into a temporary
folder, so every concurrency has `--repeats` repetitions, reduces every file (no cache) on a
LocalCluster of two worker processes, exact and sketched, for tpot (one value per request) and
chunk_gap (one per token), then pools each load's runs on the client. Prints the reduction's
wall seconds, the values pooled per second, the bytes the workers returned for pooling, the
client's pooling time and the load average: compare ratios within one run only.

    python scripts/bench_pooled_sketch.py [--repeats 4] [--alpha 0.01]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "specs" / "synthetic-sweep.cmp"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_sample_traces", REPO / "scripts" / "make_sample_traces.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _spec(folder: Path, repeats: int) -> Path:
    make = _generator()
    for seed in range(1, repeats + 1):
        make.write_all(folder / "data" / f"rep-{seed}", seed)
    text = SPEC.read_text(encoding="utf-8").replace('"data/synthetic/', '"data/rep-*/')
    (folder / SPEC.name).write_text(text, encoding="utf-8")
    return folder / SPEC.name


def _tasks(folder: Path, metric: str, alpha: float | None):
    from cmpc.ingest.reduce import Task

    return [
        Task(str(p), str(p.relative_to(folder)), "cmpc", (), metric, ("p90",), sketch=alpha)
        for p in sorted(folder.rglob("*.jsonl"))
    ]


def _measure(folder: Path, metric: str, alpha: float | None, executor) -> str:
    from cmpc.ingest import pooling
    from cmpc.ingest.reduce import reduce_all

    tasks = _tasks(folder, metric, alpha)
    start = time.perf_counter()
    done = reduce_all(tasks, executor=executor, workers=2)
    reduced = time.perf_counter() - start
    points = [p for d in done for p in d.reduced.points["p90"]]
    parts = [p.pool for p in points if p.pool is not None]
    by_load: dict[str, list[str]] = {}
    for point in points:
        if point.pool is not None:
            by_load.setdefault(f"{Path(point.path).parent.name} {point.concurrency}", []).append(
                point.pool
            )
    start = time.perf_counter()
    pooled = [
        pooling.pooled(group, {"p50": 0.5, "p90": 0.9, "p99": 0.99}) for group in by_load.values()
    ]
    merged = time.perf_counter() - start
    values = sum(p.values for p in pooled if p is not None)
    size = sum(len(p) for p in parts)
    how = "exact" if alpha is None else f"sketch {alpha}"
    return (
        f"{metric:9} {how:11} reduce {reduced:6.2f} s  {values:>8} values pooled "
        f"({values / reduced:>9,.0f}/s)  returned {size / 1024:8.1f} KiB  "
        f"pool {1000 * merged:7.1f} ms  load {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--alpha", type=float, default=0.01)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        _spec(Path(tmp), args.repeats)
        files = len(list(Path(tmp).rglob("*.jsonl")))
        with (
            LocalCluster(
                n_workers=2,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):
            print(
                f"LocalCluster, 2 worker processes; {files} run files, "
                f"{args.repeats} repetitions per load"
            )
            print(f"load average before: {os.getloadavg()[0]:.2f}")
            executor = client.get_executor(pure=False)
            _measure(Path(tmp), "tpot", None, executor)  # warm-up: the workers import cmpc
            for metric in ("tpot", "chunk_gap"):
                for alpha in (None, args.alpha):
                    print(_measure(Path(tmp), metric, alpha, executor))


if __name__ == "__main__":
    main()
