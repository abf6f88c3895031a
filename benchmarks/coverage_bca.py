"""Why BCa was withdrawn: its bias correction z0 on the simulated sweeps of coverage.py.

SYNTHETIC: the sweeps are benchmarks/coverage.py's (seeded, never measured). For each sweep
and each read (steffen, linear), the headline ratio's replicates give: the percentile
interval, BCa as cmpc computed it, BCa without the acceleration (a = 0) and without the bias
correction (z0 = 0). Printed per read: each interval's coverage with its misses by side, the
mean and spread of z0 across sweeps, and how z0 follows the estimate's own error. The share
of replicates equal to the estimate (ties) and of unreachable ones (dropped) is printed too.

    python benchmarks/coverage_bca.py [--sweeps 500] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import coverage as cv  # the sibling script

from cmpc.analysis.figures import figures
from cmpc.compute.intervals import interval, normal_ppf

READS = ("steffen", "linear")
KINDS = ("percentile", "bca", "bca a=0", "bca z0=0")


def _z0(values: np.ndarray, estimate: float) -> float:
    below = float(np.mean(values < estimate)) + 0.5 * float(np.mean(values == estimate))
    return normal_ppf(min(max(below, 0.5 / values.size), 1 - 0.5 / values.size))


def _ends(kind: str, values: np.ndarray, estimate: float, accel: float) -> tuple[float, float]:
    if kind == "percentile":
        found = interval(values, estimate, 0.95, "percentile")
    elif kind == "bca z0=0":  # the acceleration alone: the estimate taken as the median
        found = interval(values, float(np.median(values)), 0.95, "bca", accel)
    else:
        found = interval(values, estimate, 0.95, "bca", accel if kind == "bca" else 0.0)
    assert found is not None
    return found.low, found.high


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    base = cv.comparison(args.resamples, 1)
    comparisons = {r: replace(base, latency=replace(base.latency, read=r)) for r in READS}
    truths = {r: cv.truth(read=r) for r in READS}
    rows: dict[str, list[tuple[float, float, float, dict[str, tuple[float, float]]]]] = {
        r: [] for r in READS
    }
    ties = dropped = total = 0
    for sweep in range(args.sweeps):
        data = cv.simulate_sweep(base, sweep)
        for read, c in comparisons.items():
            parts = cv.bca_parts(c, data, figures(c, data)[0])
            assert parts is not None
            reps, estimate, accel = parts
            finite = reps[np.isfinite(reps)]
            total += reps.size
            dropped += reps.size - finite.size
            ties += int(np.sum(finite == estimate))
            ends = {k: _ends(k, finite, estimate, accel) for k in KINDS}
            rows[read].append((estimate, _z0(finite, estimate), accel, ends))
    print(f"{args.sweeps} sweeps, {args.resamples} resamples (synthetic, seeded)")
    print(f"replicates equal to the estimate: {ties} of {total}; unreachable: {dropped}")
    for read in READS:
        true = truths[read]
        est = np.array([r[0] for r in rows[read]])
        z0 = np.array([r[1] for r in rows[read]])
        acc = np.array([r[2] for r in rows[read]])
        print(f"\n{read} read, true ratio {true:.5f}")
        for kind in KINDS:
            low = np.array([r[3][kind][0] for r in rows[read]])
            high = np.array([r[3][kind][1] for r in rows[read]])
            held = int(np.sum((low <= true) & (true <= high)))
            print(
                f"  {kind:10s} coverage {held / est.size:.1%} ({held}/{est.size}), truth above "
                f"{int(np.sum(true > high))}, below {int(np.sum(true < low))}, "
                f"mean width {np.mean(high - low):.4f}"
            )
        share = float(np.mean(est < true))
        print(
            f"  z0: mean {z0.mean():+.3f}, sd across sweeps {z0.std(ddof=1):.3f}; "
            f"corr(z0, estimate - truth) {np.corrcoef(z0, est - true)[0, 1]:+.2f}; "
            f"the estimate's own z0 (share below the truth {share:.3f}) {normal_ppf(share):+.3f}"
        )
        print(f"  acceleration: mean {acc.mean():+.4f}, sd {acc.std(ddof=1):.4f}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{time.perf_counter() - started:.1f} s (load average {load})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
