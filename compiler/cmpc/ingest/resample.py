"""Bootstrap replicates of one run: its requests resampled, its duration following them.

Each replicate draws the run's requests with replacement (one index matrix per block of
replicates, never a Python loop per request), turns the draws into counts per request, and
computes from the counts every figure the comparison reads: latency statistics (numpy's
`linear` percentile, from the counts' running sums over the values in sorted order) and
token rates. In a closed-loop run (no finite request rate) the clients send the next request
when the last one ends, so the run lasts in proportion to its mean end-to-end latency: each
replicate's duration is the run's duration times its mean e2el over the run's. An open-loop
run (a finite `request_rate`) lasts as long as its arrivals do, held fixed.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cmpc.traces.table import Requests, Run

BLOCK = 1 << 22  # draws per block of replicates: bounds the index and count matrices
# After the bootstrap's replicates, each row holds a grouped jackknife's: the requests in 10
# groups, each left out in turn (BCa's acceleration, without a jackknife per request).
JACKKNIFE = 10
RATE_ROWS = ("input_tok_s", "output_tok_s", "cached_tok_s")


@dataclass(frozen=True)
class Settings:
    """How many replicates, from which seed."""

    resamples: int
    seed: int


def _seed(settings: Settings, sha256: str, index: int) -> np.random.Generator:
    """One stream per run: the spec's seed, the file's content and the run's place in it."""
    word = int.from_bytes(hashlib.sha256(f"{sha256}\0{index}".encode()).digest()[:8], "little")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([settings.seed, word])))


def _columns(req: Requests) -> dict[str, np.ndarray]:
    """Each per-request latency (NaN where a request has none), as `metrics.per_request` takes
    them; chunk gaps are per chunk, not per request, and get no replicates."""
    ok = req.ok
    n = ok.size
    nan = np.full(n, np.nan)

    def taken(metric: str) -> np.ndarray:
        narrower = req.only.get(metric)
        return ok if narrower is None else ok & narrower

    out: dict[str, np.ndarray] = {}
    if req.ttft is not None:
        out["ttft"] = np.where(taken("ttft"), req.ttft, nan)
    if req.e2el is not None:
        out["e2el"] = np.where(taken("e2el"), req.e2el, nan)
    if req.ttft is not None and req.e2el is not None and req.output_tokens is not None:
        many = taken("tpot") & (req.output_tokens > 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tpot = (req.e2el - req.ttft) / (req.output_tokens - 1)
        out["tpot"] = np.where(many, tpot, nan)
    if req.e2el is not None and req.output_tokens is not None:
        one = taken("e2e_per_token") & (req.output_tokens >= 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            per = req.e2el / req.output_tokens
        out["e2e_per_token"] = np.where(one, per, nan)
    return out


def _quantile(stat: str) -> float | None:
    if stat == "median":
        return 0.5
    if stat.startswith("p"):
        return float(stat[1:]) / 100
    return None


def _percentiles(counts: np.ndarray, values: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Each row's `linear` percentiles of `values` drawn `counts` times (rows: replicates)."""
    valid = np.flatnonzero(np.isfinite(values))
    order = valid[np.argsort(values[valid], kind="stable")]
    ranked = values[order]
    rows, m = counts.shape[0], order.size
    out = np.full((len(qs), rows), np.nan)
    if m == 0:
        return out
    if m == values.size and np.array_equal(order, np.arange(m)):
        cum = np.cumsum(counts, axis=None)  # already in order (see `replicates`): no gather
    else:
        cum = np.cumsum(counts[:, order], axis=None)
    ends = cum[np.arange(1, rows + 1) * m - 1]
    starts = np.concatenate(([0], ends[:-1]))
    size = ends - starts
    has = size > 0
    for i, q in enumerate(qs):
        virtual = (size - 1) * q
        below = np.floor(virtual)
        above = np.minimum(below + 1, size - 1)
        frac = virtual - below
        lo = ranked[np.searchsorted(cum, starts + below, side="right") - np.arange(rows) * m]
        hi = ranked[np.searchsorted(cum, starts + above, side="right") - np.arange(rows) * m]
        value = lo + (hi - lo) * frac
        out[i] = np.where(has, value, np.nan)
    return out


def replicates(
    run: Run, queries: Sequence[tuple[str, str]], settings: Settings, sha256: str
) -> dict[str, np.ndarray] | None:
    """Per replicate (`resamples`, then JACKKNIFE jackknife rows): each `(metric, statistic)`
    queried (key `metric statistic`) and the input, output and cached token rates; None for
    aggregate-only runs or runs with no requests."""
    req = run.requests
    if req is None or req.count == 0 or settings.resamples <= 0:
        return None
    n = req.count
    columns = _columns(req)
    # requests in the order of the first metric a percentile is asked of (those without it
    # last): resampling does not care, and that metric's counts then need no reordering
    leading = next((m for m, s in queries if m in columns and _quantile(s) is not None), None)
    perm = np.argsort(columns[leading], kind="stable") if leading else np.arange(n)
    columns = {k: v[perm] for k, v in columns.items()}
    okay = req.ok[perm]
    ok = okay.astype(float)
    e2el = columns.get("e2el")
    # the sums each replicate needs: successes, tokens, e2el (for the duration) and any mean
    sums: list[np.ndarray] = [ok]
    for col in (req.input_tokens, req.output_tokens, req.cached_input_tokens):
        sums.append(np.full(n, np.nan) if col is None else np.where(okay, col[perm], 0.0))
    if e2el is not None:
        sums += [np.nan_to_num(e2el, nan=0.0), np.isfinite(e2el).astype(float)]
    means = [(m, s) for m, s in queries if s == "mean" and m in columns]
    for metric, _ in means:
        x = columns[metric]
        sums += [np.nan_to_num(x, nan=0.0), np.isfinite(x).astype(float)]
    table = np.stack(sums, axis=1)
    by_metric: dict[str, list[str]] = {}
    for metric, stat in queries:
        if metric in columns and _quantile(stat) is not None:
            by_metric.setdefault(metric, []).append(stat)
    rng = _seed(settings, sha256, run.index)
    total = settings.resamples + JACKKNIFE
    summed = np.empty((total, table.shape[1]))
    drawn = np.empty(total)  # requests in each replicate: n, fewer in the jackknife's
    quantiles: dict[str, np.ndarray] = {m: np.empty((len(s), total)) for m, s in by_metric.items()}
    for start, counts in _count_blocks(rng, n, settings.resamples):
        rows = counts.shape[0]
        drawn[start : start + rows] = counts.sum(axis=1)
        # einsum, not BLAS: one summation order whatever the thread count (same bytes out)
        summed[start : start + rows] = np.einsum("ij,jk->ik", counts.astype(float), table)
        for metric, stats in by_metric.items():
            qs = [q for s in stats if (q := _quantile(s)) is not None]
            quantiles[metric][:, start : start + rows] = _percentiles(counts, columns[metric], qs)
    out: dict[str, np.ndarray] = {}
    duration = run.duration_s
    scale = drawn / n  # a run of fewer requests lasts proportionally less
    closed = not _finite_rate(run.fields.get("request_rate"))
    if closed and e2el is not None and np.isfinite(e2el).any():
        base = float(np.nanmean(e2el))
        with np.errstate(divide="ignore", invalid="ignore"):
            if base > 0:
                scale = scale * (summed[:, 4] / summed[:, 5]) / base
    with np.errstate(divide="ignore", invalid="ignore"):
        for column, name in enumerate(RATE_ROWS, start=1):  # summed: ok, input, output, cached
            out[name] = summed[:, column] / (duration * scale) if duration else np.nan * scale
        first = 6 if e2el is not None else 4
        for k, (metric, _) in enumerate(means):
            out[f"{metric} mean"] = summed[:, first + 2 * k] / summed[:, first + 2 * k + 1]
    for metric, stats in by_metric.items():
        for row, stat in enumerate(stats):
            out[f"{metric} {stat}"] = quantiles[metric][row]
    return out


def _count_blocks(
    rng: np.random.Generator, n: int, resamples: int
) -> Iterator[tuple[int, np.ndarray]]:
    """(first column, counts per request) for the bootstrap's blocks of replicates, then the
    grouped jackknife's JACKKNIFE rows (request i in group i mod JACKKNIFE, left out in turn)."""
    per_block = max(1, BLOCK // n) if n < BLOCK else 1
    for start in range(0, resamples, per_block):
        rows = min(per_block, resamples - start)
        kind = np.int32 if rows * n < 2**31 else np.int64  # int32 is faster while offsets fit
        draws: np.ndarray = rng.integers(0, n, size=(rows, n), dtype=kind)
        draws += (np.arange(rows, dtype=kind) * n)[:, None]
        yield start, np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n)
    groups = np.arange(n) % JACKKNIFE
    yield resamples, (groups[None, :] != np.arange(JACKKNIFE)[:, None]).astype(np.int64)


def _finite_rate(value: object) -> bool:
    try:
        rate = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return 0 < rate < float("inf")


def pack(rows: Sequence[np.ndarray | None], resamples: int) -> str:
    """Rows of replicates (then the jackknife's) as one text (base64 of little-endian
    float32), for the cache."""
    block = np.full((len(rows), resamples + JACKKNIFE), np.nan, dtype="<f4")
    for i, row in enumerate(rows):
        if row is not None:
            block[i] = row
    return base64.b64encode(block.tobytes()).decode("ascii")


def unpack(text: str, resamples: int) -> np.ndarray:
    """The rows `pack` wrote, as float64 (rows x (resamples + JACKKNIFE)); empty when the text
    does not fit."""
    try:
        raw = np.frombuffer(base64.b64decode(text, validate=True), dtype="<f4")
    except ValueError:
        return np.empty((0, resamples))
    width = resamples + JACKKNIFE
    if resamples <= 0 or raw.size % width:
        return np.empty((0, width))
    return raw.reshape(-1, width).astype(float)


def rows_for(
    found: Mapping[str, np.ndarray] | None, keys: Sequence[str]
) -> list[np.ndarray | None]:
    """The replicate rows named by `keys`, None where the run has none."""
    if found is None:
        return [None] * len(keys)
    return [found.get(key) for key in keys]
