"""Coverage of cmpc's bootstrap intervals: how often the 95% interval holds the true ratio.

SYNTHETIC: every sweep here is simulated from known distributions (seeded), never measured.
Two systems, `a` and `b`, each swept over concurrency 1-32 in a closed loop (a semaphore of
C slots: the next request starts when one ends, as `vllm bench serve --max-concurrency`
sends them). Each request has fixed token counts (512 in, 128 out), a lognormal TTFT and a
lognormal TPOT whose median grows with concurrency, so a run's throughput varies only
through its duration. The truth is known in closed form: the p90 TPOT of a lognormal, and a
closed loop's throughput C x tokens per request / mean e2el (what a run tends to as its
request count grows); the true ratio is read from the true points exactly as cmpc reads the
measured ones (Pareto frontier, Steffen spline at the target).

Each simulated sweep goes through cmpc's own reduction (requests resampled, intervals from
the replicates) and analysis; the coverage is the share of sweeps whose interval of the
headline throughput ratio holds the truth, per method offered. Goal: 90-99% at 95% confidence.
`--withdrawn` also measures BCa, withdrawn for falling short (E135; docs/statistics.md).

    python benchmarks/coverage.py [--sweeps 1000] [--resamples 2000] [--seed 1] [--withdrawn]
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import sys
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from cmpc.analysis.figures import figures
from cmpc.analysis.intervals import ratio_intervals
from cmpc.analysis.reads import measured_runs
from cmpc.analysis.uncertainty import read_jackknife, read_replicates, replicates_of
from cmpc.compile import compile_source
from cmpc.compute.frontier import Point, pareto_frontier, read_at
from cmpc.compute.intervals import acceleration, interval
from cmpc.ingest.points import SystemData
from cmpc.ingest.reduce import Task, reduce_runs
from cmpc.ir import model as ir
from cmpc.language.vocabulary import INTERVAL_METHODS
from cmpc.source import SourceFile
from cmpc.traces.table import Requests, Run

CONCURRENCY = (1, 2, 4, 8, 16, 32)
INPUT, OUTPUT = 512, 128
TPOT_SIGMA, TTFT_SIGMA = 0.25, 0.5
Z90 = 1.2815515655446004  # the standard normal's 0.9 quantile
TARGET = 45.0  # tok/s/user: inside both true frontiers, between knots
WITHDRAWN = "bca (withdrawn)"

SPEC = """comparison "coverage (synthetic)" {
  baseline b
  source sim { title "benchmarks/coverage.py"; role synthetic }
  latency { metric tpot; statistic p90; target 45 tok/s/user; read steffen }
  tokens { count input + output; reused included }
  normalize per gpu
  system a { accelerator "X" x 8; runs "a/*.jsonl" format cmpc source sim }
  system b { accelerator "X" x 8; runs "b/*.jsonl" format cmpc source sim }
}
"""


@dataclass(frozen=True)
class System:
    """Median TPOT (s) at concurrency C: `base * (1 + C / knee)`; median TTFT likewise."""

    base: float
    knee: float
    ttft: float

    def tpot_median(self, c: int) -> float:
        return self.base * (1 + c / self.knee)

    def ttft_median(self, c: int) -> float:
        return self.ttft * (1 + c / 8)


SYSTEMS = {"a": System(0.010, 10.0, 0.05), "b": System(0.012, 14.0, 0.04)}


def requests_for(c: int) -> int:
    """Requests per run: 40 per slot (vLLM sweeps often send 10 x C; more keeps the tail
    of the last requests, which no bootstrap models, small against the run)."""
    return 40 * c


def simulate_run(system: System, c: int, rng: np.random.Generator, index: int) -> Run:
    """One closed-loop run of `requests_for(c)` requests through `c` slots."""
    n = requests_for(c)
    tpot = system.tpot_median(c) * rng.lognormal(0.0, TPOT_SIGMA, n)
    ttft = system.ttft_median(c) * rng.lognormal(0.0, TTFT_SIGMA, n)
    e2el = ttft + tpot * (OUTPUT - 1)
    free = [0.0] * c  # when each slot frees up
    start = np.empty(n)
    end = 0.0
    for i in range(n):
        t = heapq.heappop(free)
        start[i] = t
        heapq.heappush(free, t + float(e2el[i]))
        end = max(end, t + float(e2el[i]))
    req = Requests(
        ok=np.ones(n, dtype=bool),
        start=start,
        ttft=ttft,
        e2el=e2el,
        input_tokens=np.full(n, float(INPUT)),
        cached_input_tokens=None,
        output_tokens=np.full(n, float(OUTPUT)),
    )
    return Run(
        path=f"sim/{c}",
        format="cmpc",
        index=index,
        fields={"conc": c},
        requests=req,
        duration_s=end,
    )


def truth(gpus: int = 8, read: str = "steffen") -> float:
    """The true headline ratio (a over b) at the target, from the known distributions."""
    reads = {}
    for name, system in SYSTEMS.items():
        points = []
        for c in CONCURRENCY:
            p90 = system.tpot_median(c) * math.exp(TPOT_SIGMA * Z90)
            mean_tpot = system.tpot_median(c) * math.exp(TPOT_SIGMA**2 / 2)
            mean_ttft = system.ttft_median(c) * math.exp(TTFT_SIGMA**2 / 2)
            mean_e2el = mean_ttft + mean_tpot * (OUTPUT - 1)
            points.append(Point(1 / p90, c * (INPUT + OUTPUT) / mean_e2el / gpus, c))
        value = read_at(pareto_frontier(points), TARGET, read).value
        assert value is not None, "the target must lie inside both true frontiers"
        reads[name] = value
    return reads["a"] / reads["b"]


def comparison(resamples: int, seed: int, read: str = "steffen") -> ir.Comparison:
    c, diagnostics = compile_source(SourceFile("coverage.cmp", SPEC.replace("steffen", read)))
    assert c is not None, diagnostics
    return replace(c, uncertainty=replace(c.uncertainty, resamples=resamples, seed=seed))


def simulate_sweep(c: ir.Comparison, sweep: int) -> dict[str, SystemData]:
    """One simulated sweep of both systems, through cmpc's reduction (requests resampled)."""
    rng = np.random.default_rng([20261201, sweep])
    data = {}
    for name, system in SYSTEMS.items():
        task = Task(
            f"sim/{name}", f"{name}.jsonl", "cmpc", (), "tpot", ("p90",),
            resamples=c.uncertainty.resamples, seed=c.uncertainty.seed, interval_method="",
        )  # fmt: skip
        runs = [simulate_run(system, conc, rng, i) for i, conc in enumerate(CONCURRENCY)]
        points = reduce_runs(runs, task, sha256=f"{name}-{sweep}")
        data[name] = SystemData(name, points)
    return data


def sweep_intervals(
    c: ir.Comparison, sweep: int, methods: tuple[str, ...]
) -> dict[str, list[float] | None]:
    """One simulated sweep of both systems, built by cmpc: each method's ratio interval."""
    data = simulate_sweep(c, sweep)
    at = figures(c, data)[0]
    out: dict[str, list[float] | None] = {}
    for method in methods:
        if method == WITHDRAWN:
            out[method] = _bca(c, data, at)
            continue
        variant = replace(c, uncertainty=replace(c.uncertainty, method=method))
        found = ratio_intervals(variant, data, at.systems, at.headline)
        out[method] = found["throughput_ratio_ci"] if found else None
    return out


def bca_parts(
    c: ir.Comparison, data: dict[str, SystemData], at: Any
) -> tuple[np.ndarray, float, float] | None:
    """The per-GPU ratio a/b's replicates, its estimate and the withdrawn BCa's acceleration, as
    cmpc computed them before E135: from both systems' grouped-jackknife reads (each side's
    units, the other side as measured)."""
    boot, jack, point = {}, {}, {}
    for name in ("a", "b"):
        system = c.system(name)
        reps = replicates_of(c, system, measured_runs(c, data, system))
        point[name] = at.systems[name]["at_target"]["throughput_per_gpu"]
        if reps is None or not point[name]:
            return None
        boot[name] = read_replicates(c, reps, point[name]).boot
        jack[name] = read_jackknife(c, reps)
    ratio = point["a"] / point["b"]
    with np.errstate(divide="ignore", invalid="ignore"):
        units = np.concatenate([jack["a"] / point["a"], point["b"] / jack["b"]]) * ratio
        return boot["a"] / boot["b"], ratio, acceleration(units)


def _bca(c: ir.Comparison, data: dict[str, SystemData], at: Any) -> list[float] | None:
    """The withdrawn BCa interval of the per-GPU ratio a/b (z0 from the share of replicates
    below the estimate)."""
    parts = bca_parts(c, data, at)
    found = None if parts is None else interval(parts[0], parts[1], 0.95, "bca", parts[2])
    return None if found is None else found.as_list()


def coverage(
    sweeps: int, resamples: int, seed: int = 1, withdrawn: bool = False
) -> dict[str, tuple[int, int, float]]:
    """Per method offered (and with `withdrawn`, BCa): (intervals holding the truth, intervals
    computed, mean width)."""
    true = truth()
    c = comparison(resamples, seed)
    methods = INTERVAL_METHODS + ((WITHDRAWN,) if withdrawn else ())
    held = dict.fromkeys(methods, 0)
    made = dict.fromkeys(methods, 0)
    widths: dict[str, list[float]] = {m: [] for m in methods}
    for sweep in range(sweeps):
        for method, ci in sweep_intervals(c, sweep, methods).items():
            if ci is None:
                continue
            made[method] += 1
            held[method] += ci[0] <= true <= ci[1]
            widths[method].append(ci[1] - ci[0])
    return {m: (held[m], made[m], float(np.mean(widths[m])) if widths[m] else math.nan)
            for m in methods}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--withdrawn", action="store_true", help="also measure the withdrawn BCa")
    args = parser.parse_args()
    started = time.perf_counter()
    found = coverage(args.sweeps, args.resamples, args.seed, args.withdrawn)
    print(f"true ratio {truth():.5f}; {args.sweeps} sweeps, {args.resamples} resamples")
    ok = True
    for method, (held, made, width) in found.items():
        share = held / made if made else math.nan
        ok &= method == WITHDRAWN or 0.90 <= share <= 0.99
        print(f"{method:15s} coverage {share:.1%} ({held}/{made}), mean width {width:.4f}")
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{time.perf_counter() - started:.1f} s (load average {load})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
