"""Replicate frontier reads: the C reads (`_fastdraw.frontier_reads`) against numpy's, one run.

Each replicate row's frontier is sorted and read at a target; a row of many points is where a
quadratic sort would show. Prints CPU seconds of each and C ÷ numpy (goal: below 1 on every
shape, the sort's worst case, points by falling interactivity, included).

    python benchmarks/frontier_reads.py
"""

from __future__ import annotations

import os
import time

import numpy as np

from cmpc import _fastdraw
from cmpc.compute import frontier_batch
from cmpc.compute.frontier import AT_KNOT


def shapes() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(1)  # seeded: synthetic points
    out = {}
    for rows, cols in ((2000, 500), (2000, 2000)):
        out[f"random {rows} x {cols}"] = (
            rng.lognormal(0, 1, (rows, cols)),
            rng.lognormal(3, 1, (rows, cols)),
        )
    rows, cols = 120, 4000
    out[f"falling {rows} x {cols}"] = (
        np.tile(np.linspace(100.0, 1.0, cols), (rows, 1)),
        np.tile(np.linspace(1.0, 1000.0, cols), (rows, 1)),
    )
    return out


def main() -> None:
    print(f"load average before: {os.getloadavg()}")
    for name, (x, y) in shapes().items():
        rows, cols = x.shape
        target = float(np.median(x))
        out = np.empty(rows)
        start = time.process_time()
        _fastdraw.frontier_reads(x, y, rows, cols, target, AT_KNOT, 0, False, out)
        in_c = time.process_time() - start
        start = time.process_time()
        fx, fy, n = frontier_batch.frontiers(x, y)
        reference = frontier_batch._read_knots(fx, fy, n, target, "steffen")
        in_numpy = time.process_time() - start
        assert out.tobytes() == reference.tobytes(), name
        print(f"{name:22s} C {in_c:.3f} s  numpy {in_numpy:.3f} s  C / numpy {in_c / in_numpy:.2f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
