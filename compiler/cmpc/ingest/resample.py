"""Bootstrap replicates of one run: its requests resampled, its duration following them.

Each replicate draws the run's requests with replacement (a block of replicates at a time,
never a Python loop per request: in C when `cmpc._fastdraw` is built, else numpy's `integers`
then `bincount`, the same draws either way), turns the draws into counts per request, and
computes from the counts every figure the comparison reads, all from the one resample:
latency statistics (numpy's `linear` percentile, found in the counts' running sums over the
values in sorted order) and the sums behind token rates and means (one product of the counts
with each column that varies, in whole numbers, so the sums are exact in any order).
In a closed-loop run (no finite request rate) the clients send the next request when the last
one ends, so the run lasts in proportion to its mean end-to-end latency: each replicate's
duration is the run's duration times its mean e2el over the run's. An open-loop run (a finite
`request_rate`) lasts as long as its arrivals do, held fixed.
"""

from __future__ import annotations

import base64
import hashlib
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cmpc.traces.table import Requests, Run

try:
    from cmpc import _fastdraw  # optional C draw-and-count (setup.py); the numpy code is exact too

    # compute/frontier_batch.py may have put lazy.module's stand-in in sys.modules first: it
    # imports on this read, so a broken build fails here, not in the first replicates()
    _fastdraw.draw_counts  # noqa: B018
except (ImportError, AttributeError):  # not built or broken: numpy's integers and bincount serve
    _fastdraw = None  # type: ignore[assignment]

# draws per block of replicates: small enough that a block's counts (8 bytes a draw) stay in
# a core's cache through the passes over them, and bound the worker's memory
BLOCK = 1 << 18
# After the bootstrap's replicates, each row holds a grouped jackknife's: the requests in 10
# groups, each left out in turn (BCa's acceleration, without a jackknife per request).
JACKKNIFE = 10
RATE_ROWS = ("input_tok_s", "output_tok_s", "cached_tok_s")
WIDTH = 64  # requests per chunk of the percentiles' two-level search
_LOW = (1 << 64) - 1


@dataclass(frozen=True)
class Settings:
    """How many replicates, from which seed."""

    resamples: int
    seed: int


def _seed(settings: Settings, sha256: str, index: int) -> Stream:
    """One stream per run: the spec's seed, the file's content and the run's place in it."""
    word = int.from_bytes(hashlib.sha256(f"{sha256}\0{index}".encode()).digest()[:8], "little")
    return Stream.seeded([settings.seed, word])


# numpy's SeedSequence (bit_generator.pyx) and PCG64 seeding (pcg64.c), constant for constant
_MASK32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645
_MASK128 = (1 << 128) - 1


def _words32(value: int) -> list[int]:
    """A non-negative integer as SeedSequence takes it: 32-bit words, least significant first."""
    if value < 0:
        raise ValueError("expected non-negative integer")
    words = [value & _MASK32]
    while value := value >> 32:
        words.append(value & _MASK32)
    return words


def _pool(entropy: Sequence[int]) -> list[int]:
    """SeedSequence(entropy).pool: the entropy hashed and mixed into four 32-bit words."""
    words = [w for value in entropy for w in _words32(int(value))]
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value ^= hash_const
        hash_const = (hash_const * _MULT_A) & _MASK32
        value = (value * hash_const) & _MASK32
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        result = (_MIX_L * x - _MIX_R * y) & _MASK32
        return result ^ (result >> 16)

    mixer = [hashmix(words[i] if i < len(words) else 0) for i in range(_POOL)]
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                mixer[dst] = mix(mixer[dst], hashmix(mixer[src]))
    for src in range(_POOL, len(words)):
        for dst in range(_POOL):
            mixer[dst] = mix(mixer[dst], hashmix(words[src]))
    return mixer


def _generate_state(pool: Sequence[int], words: int) -> list[int]:
    """SeedSequence.generate_state(words, uint64), as Python integers."""
    hash_const = _INIT_B
    out32 = []
    for i in range(2 * words):
        value = pool[i % len(pool)] ^ hash_const
        hash_const = (hash_const * _MULT_B) & _MASK32
        value = (value * hash_const) & _MASK32
        out32.append(value ^ (value >> 16))
    return [out32[2 * i] | (out32[2 * i + 1] << 32) for i in range(words)]


class Stream:
    """numpy's PCG64 state, seeded as `PCG64(SeedSequence(entropy))` is, without importing
    numpy.random (about 6 ms of a cold build): the C draws step it; `generator()` hands the
    same state to numpy when they are not built."""

    def __init__(self, state: int, inc: int, has_uint32: int = 0, uinteger: int = 0) -> None:
        self.state, self.inc = state, inc
        self.has_uint32, self.uinteger = has_uint32, uinteger

    @classmethod
    def seeded(cls, entropy: Sequence[int]) -> Stream:
        """The state of `PCG64(SeedSequence(entropy))` (pcg64_set_seed: two LCG steps)."""
        if _fastdraw is not None and hasattr(_fastdraw, "seed_state"):  # a fifth of the time
            words = [w for value in entropy for w in _words32(int(value))]
            val = list(_fastdraw.seed_state(words))
        else:
            val = _generate_state(_pool(entropy), 4)
        seed, seq = (val[0] << 64) | val[1], (val[2] << 64) | val[3]
        inc = ((seq << 1) | 1) & _MASK128
        # from state 0: one step (0 * mult + inc), the seed added, one more step
        state = ((inc + seed) * _PCG_MULT + inc) & _MASK128
        return cls(state, inc)

    def as_state(self) -> Any:  # numpy types it as a private TypedDict
        """The state as numpy's `PCG64.state` reads and sets it."""
        return {
            "bit_generator": "PCG64",
            "state": {"state": self.state, "inc": self.inc},
            "has_uint32": self.has_uint32,
            "uinteger": self.uinteger,
        }

    def generator(self) -> np.random.Generator:
        """A numpy Generator starting from this state."""
        bits = np.random.PCG64()
        bits.state = self.as_state()
        return np.random.Generator(bits)


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
        q = float(stat[1:]) / 100
        if not 0 <= q <= 1:  # the checker's E110 keeps a spec's inside; C and numpy refuse alike
            raise ValueError(f"percentile `{stat}` is outside p0 to p100")
        return q
    return None


@dataclass(frozen=True)
class _Ranked:
    """A metric's finite values in sorted order, and where each sits among the requests."""

    order: np.ndarray
    values: np.ndarray
    in_place: bool  # the requests are already in this order, all with a value: no gather

    @classmethod
    def of(cls, values: np.ndarray, ascending: bool = False) -> _Ranked:
        """`ascending`: `values` are in the order a stable argsort gives (NaN last), so their
        finite ones are already sorted and stay where they are: the sort's own result."""
        valid = np.flatnonzero(np.isfinite(values))
        if ascending:  # one run of finite values, in order: the stable sort keeps it so
            return cls(valid, values[valid], valid.size == values.size)
        order = valid[np.argsort(values[valid], kind="stable")]
        same = order.size == values.size and bool(np.array_equal(order, np.arange(order.size)))
        return cls(order, values[order], same)


def _percentiles(counts: np.ndarray, values: np.ndarray, qs: Sequence[float]) -> np.ndarray:
    """Each row's `linear` percentiles of `values` drawn `counts` times (rows: replicates)."""
    return _ranked_percentiles(counts, _Ranked.of(values), qs)


def _ranked_percentiles(
    counts: np.ndarray, ranked: _Ranked, qs: Sequence[float], known: int | None = None
) -> np.ndarray:
    """`_percentiles` over values already ranked (sorted once per run, not once per block);
    `known`: every row's counts sum to it."""
    rows, m = counts.shape[0], ranked.order.size
    out = np.full((len(qs), rows), np.nan)
    if m == 0:
        return out
    # `take` along the rows keeps them C-contiguous (fancy indexing would lay them out by column)
    ordered = counts if ranked.in_place else np.take(counts, ranked.order, axis=1)
    if _fastdraw is not None and ordered.dtype == np.int64 and ordered.flags.c_contiguous:
        # only all of a row's counts are known to sum to `known`
        whole = known if ranked.in_place else None
        return _c_percentiles(ordered, ranked.values, qs, out, whole)
    # two levels: running sums of WIDTH-request chunks (one summing pass over the counts, not
    # a running sum of every count), then a running sum inside the chunk each rank falls in
    chunks = -(-m // WIDTH)
    whole = m - m % WIDTH
    sums = np.empty((rows, chunks), dtype=np.int64)
    sums[:, : whole // WIDTH] = ordered[:, :whole].reshape(rows, -1, WIDTH).sum(axis=2)
    if whole < m:
        sums[:, -1] = ordered[:, whole:].sum(axis=1)
    cum = np.cumsum(sums, axis=None)  # rows one after another: still increasing
    ends = cum[np.arange(1, rows + 1) * chunks - 1]
    starts = np.concatenate(([0], ends[:-1]))
    size = ends - starts
    has = size > 0
    virtual = (size - 1) * np.asarray(qs, dtype=float)[:, None]  # (quantiles, rows)
    below = np.floor(virtual)
    above = np.minimum(below + 1, size - 1)
    # every quantile's two neighbouring ranks in one search
    draws = starts + np.concatenate((below, above)).astype(np.int64)
    rank = _holding(ordered, cum, draws.ravel(), chunks).reshape(draws.shape)
    lo, hi = ranked.values[rank[: len(qs)]], ranked.values[rank[len(qs) :]]
    out[:] = np.where(has, lo + (hi - lo) * (virtual - below), np.nan)
    return out


def _c_percentiles(
    ordered: np.ndarray,
    values: np.ndarray,
    qs: Sequence[float],
    out: np.ndarray,
    known: int | None,
) -> np.ndarray:
    """`_ranked_percentiles` with the ranks found by one C pass over each row's counts: the
    same ranks and the same arithmetic on them, so the same bytes."""
    rows, m = ordered.shape
    q = np.asarray(qs, dtype=float)
    low = np.empty((q.size, rows), dtype=np.int64)
    high = np.empty((q.size, rows), dtype=np.int64)
    size = np.empty(rows, dtype=np.int64)
    _fastdraw.percentile_ranks(ordered, rows, m, q, low, high, size, -1 if known is None else known)
    out[:] = _from_ranks(values, q, low, high, size)
    return out


def _from_ranks(
    values: np.ndarray, q: np.ndarray, low: np.ndarray, high: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """numpy's `linear` percentiles (quantiles x rows) from each row's two neighbouring ranks
    and its draws, NaN where a row drew none."""
    virtual = (size - 1) * q[:, None]
    below = np.floor(virtual)
    lo, hi = values[low], values[high]
    found: np.ndarray = np.where(size > 0, lo + (hi - lo) * (virtual - below), np.nan)
    return found


def _holding(ordered: np.ndarray, cum: np.ndarray, draw: np.ndarray, chunks: int) -> np.ndarray:
    """The rank whose counts hold each draw number `draw` (0-based, counted over all rows, as
    `cum` is; `draw` is the rows' targets one set after another; a row with no draws gets some
    rank in range)."""
    rows, m = ordered.shape
    row = np.tile(np.arange(rows), draw.size // rows)
    flat = np.minimum(np.searchsorted(cum, draw, side="right"), rows * chunks - 1)
    chunk = np.clip(flat - row * chunks, 0, chunks - 1)
    before = np.where(flat > 0, cum[np.maximum(flat - 1, 0)], 0)
    at = chunk[:, None] * WIDTH + np.arange(WIDTH)
    # flat indices into the block (`take`, not 2-D fancy indexing); past a row's end: no draws
    inside = np.take(ordered, (row * m)[:, None] + np.minimum(at, m - 1))
    if m % WIDTH:
        inside[at >= m] = 0
    passed: np.ndarray = (np.cumsum(inside, axis=1) <= (draw - before)[:, None]).sum(axis=1)
    rank: np.ndarray = np.minimum(chunk * WIDTH + passed, m - 1)
    return rank


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
    means = [(m, s) for m, s in queries if s == "mean" and m in columns]
    summed_metrics = (["e2el"] if e2el is not None else []) + [m for m, _ in means]
    for metric in summed_metrics:  # each one's sum (NaN as 0) and how many have one
        x = columns[metric]
        seen = np.isfinite(x)
        # nan_to_num copies; stack copies anyway: only where a value is not finite
        sums += [x if seen.all() else np.nan_to_num(x, nan=0.0), seen.astype(float)]
    table, scales = _exact(np.stack(sums), n)
    # a column whose values are all equal sums to its value times the requests drawn: exact
    # (whole numbers), so only the others need a pass over the counts
    varies = np.flatnonzero(~_constant_rows(table)).tolist()
    varying = np.ascontiguousarray(table[varies])
    by_metric: dict[str, list[str]] = {}
    for metric, stat in queries:
        if metric in columns and _quantile(stat) is not None:
            by_metric.setdefault(metric, []).append(stat)
    rng = _seed(settings, sha256, run.index)
    total = settings.resamples + JACKKNIFE
    summed = np.empty((table.shape[0], total))  # a row per column: numpy's loops run along it
    drawn = np.empty(total)  # requests in each replicate: n, fewer in the jackknife's
    quantiles: dict[str, np.ndarray] = {m: np.empty((len(s), total)) for m, s in by_metric.items()}
    # the leading metric's requests are in its stable sort's order already
    ranked = {m: _Ranked.of(columns[m], ascending=m == leading) for m in by_metric}
    asked = {
        m: [q for s in stats if (q := _quantile(s)) is not None] for m, stats in by_metric.items()
    }
    blocks: Iterator[tuple[int, np.ndarray]] = iter(())
    if _fused(rng, n):  # every row in one C call, the jackknife's too: no blocks
        assert isinstance(rng, Stream)
        rows = settings.resamples
        drawn[:rows] = n
        left_out = np.arange(JACKKNIFE)  # group g leaves out the requests i with i % J == g
        drawn[rows:] = n - (n - left_out + JACKKNIFE - 1) // JACKKNIFE
        np.multiply(table[:, :1], drawn, out=summed)
        found_sums = _bootstrap(rng, n, rows, varying, ranked, asked, quantiles, JACKKNIFE)
        if varies:
            summed[varies] = found_sums
    else:
        blocks = _count_blocks(rng, n, settings.resamples)
    for start, counts in blocks:
        rows = counts.shape[0]
        drawn[start : start + rows] = counts.sum(axis=1) if start >= settings.resamples else n
        summed[:, start : start + rows] = table[:, :1] * drawn[start : start + rows]
        if varies:
            summed[varies, start : start + rows] = _weighted_sums(counts, varying).T
        known = n if start < settings.resamples else None  # a bootstrap row draws n requests
        for metric, qs in asked.items():
            found = _ranked_percentiles(counts, ranked[metric], qs, known)
            quantiles[metric][:, start : start + rows] = found
    summed = _times_power_of_two(summed, -scales[:, None])  # exact: powers of two
    out: dict[str, np.ndarray] = {}
    duration = run.duration_s
    scale = drawn / n  # a run of fewer requests lasts proportionally less
    closed = not _finite_rate(run.fields.get("request_rate"))
    if closed and e2el is not None and np.isfinite(e2el).any():
        base = _nanmean(e2el)
        with np.errstate(divide="ignore", invalid="ignore"):
            if base > 0:
                scale = scale * (summed[4] / summed[5]) / base
    with np.errstate(divide="ignore", invalid="ignore"):
        for column, name in enumerate(RATE_ROWS, start=1):  # summed: ok, input, output, cached
            out[name] = summed[column] / (duration * scale) if duration else np.nan * scale
        first = 6 if e2el is not None else 4
        for k, (metric, _) in enumerate(means):
            out[f"{metric} mean"] = summed[first + 2 * k] / summed[first + 2 * k + 1]
    for metric, stats in by_metric.items():
        for row, stat in enumerate(stats):
            out[f"{metric} {stat}"] = quantiles[metric][row]
    return out


def _fused(rng: np.random.Generator | Stream, n: int) -> bool:
    """Whether the bootstrap's rows can be drawn, summed and ranked in one C call."""
    return (
        isinstance(rng, Stream)
        and _fastdraw is not None
        and hasattr(_fastdraw, "bootstrap_jackknife_pcg64")
        and 1 <= n <= 0xFFFFFFFF
    )


def _bootstrap(
    rng: Stream,
    n: int,
    rows: int,
    varying: np.ndarray,
    ranked: Mapping[str, _Ranked],
    asked: Mapping[str, Sequence[float]],
    quantiles: Mapping[str, np.ndarray],
    jackknife: int = 0,
) -> np.ndarray:
    """The bootstrap's `rows` rows in one C pass (no rows x n counts kept), then `jackknife`
    grouped jackknife rows: each varying column's sum per row (returned, a row per column),
    each metric's percentiles into `quantiles`' first `rows + jackknife` columns (C-contiguous
    float64); the same draws, sums, ranks and arithmetic on them as the blocks' path, so the
    same bytes."""
    sums = np.empty((varying.shape[0], rows + jackknife))
    metrics = []
    for metric, qs in asked.items():
        if ranked[metric].order.size == 0:  # no request has the metric: no percentile
            quantiles[metric][:, : rows + jackknife] = np.nan
            continue
        order = np.ascontiguousarray(ranked[metric].order, dtype=np.int64)
        values = np.ascontiguousarray(ranked[metric].values, dtype=float)
        q = np.asarray(qs, dtype=float)
        metrics.append((ranked[metric].in_place, order, q, values, quantiles[metric]))
    words = (rng.state >> 64, rng.state & _LOW, rng.inc >> 64, rng.inc & _LOW)
    table = np.ascontiguousarray(varying, dtype=float)
    after = _fastdraw.bootstrap_jackknife_pcg64(
        (*words, rng.has_uint32, rng.uinteger), n, rows, table, sums, metrics, jackknife
    )
    rng.state = (after[0] << 64) | after[1]
    rng.has_uint32, rng.uinteger = after[4], after[5]
    return sums


def _weighted_sums(counts: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Each row of counts times each row of `table` (whole numbers under 2**53: exact in any
    summation order, so BLAS at any thread count, or the C loop, gives the same bytes)."""
    rows, n = counts.shape
    if _fastdraw is not None and counts.dtype == np.int64 and counts.flags.c_contiguous:
        out = np.empty((rows, table.shape[0]))
        _fastdraw.weighted_sums(counts, rows, n, table, out)
        return out
    found: np.ndarray = counts.astype(float) @ table.T
    return found


def _exact(table: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row of `table` as whole numbers (the values times a power of two, rounded) whose
    sums over any `n` draws stay below 2**53, and that power's exponent per row; NaN stays NaN.

    Rounding moves a sum by at most n * 2**(bits(n) - 53) of the column's largest value (about
    2e-12 of it at 12,500 requests): far below the float32 the cache keeps.
    """
    finite = np.isfinite(table)
    largest = np.max(np.abs(np.where(finite, table, 0.0)), axis=1, initial=0.0)
    _, exponent = np.frexp(largest)  # largest < 2**exponent (0 for 0)
    scales = 52 - exponent - int(n).bit_length()
    return np.rint(np.ldexp(table, scales[:, None])), scales


def _times_power_of_two(values: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """`np.ldexp(values, exponents)`, bit for bit: a product with a normal power of two is
    rounded once, as ldexp rounds, and costs a seventh of libm's ldexp per value."""
    if exponents.size and np.abs(exponents).max() <= 1000:  # 2**+-1000: normal doubles
        scaled: np.ndarray = values * np.ldexp(1.0, exponents)
        return scaled
    exact: np.ndarray = np.ldexp(values, exponents)
    return exact


def _constant_rows(table: np.ndarray) -> np.ndarray:
    """`_constant` of each row, in one pass over the table."""
    first = table[:, :1]
    same = (table == first) | (np.isnan(table) & np.isnan(first))
    found: np.ndarray = same.all(axis=1)
    return found


def _constant(column: np.ndarray) -> bool:
    """Whether every value is the first (all NaN counts as constant)."""
    first = column[0]
    return bool(np.isnan(column).all() if np.isnan(first) else (column == first).all())


def _count_blocks(
    rng: np.random.Generator | Stream, n: int, resamples: int, fast: bool = True, first: int = 0
) -> Iterator[tuple[int, np.ndarray]]:
    """(first column, counts per request) for the bootstrap's blocks of replicates, then the
    grouped jackknife's JACKKNIFE rows (request i in group i mod JACKKNIFE, left out in turn);
    the bootstrap's rows from `first` on (those before drawn elsewhere, from the same stream).

    With `fast` and the C module built, each block is drawn and counted in one pass: the same
    draws from the same stream as numpy's `integers` then `bincount` (tests/stats/test_draw.py).
    """
    per_block = max(1, BLOCK // n) if n < BLOCK else 1
    in_c = fast and _fastdraw is not None and n <= 0xFFFFFFFF
    if isinstance(rng, Stream) and not (in_c and hasattr(_fastdraw, "draw_counts_pcg64")):
        rng = rng.generator()
    for start in range(first, resamples, per_block):
        rows = min(per_block, resamples - start)
        if in_c:
            counts = np.empty((rows, n), dtype=np.int64)
            _draw_counts(rng, n, rows, counts)
            yield start, counts
            continue
        assert not isinstance(rng, Stream)  # made a numpy Generator above
        # bincount's own index type: narrower draws would be converted (a copy) before counting
        draws: np.ndarray = rng.integers(0, n, size=(rows, n), dtype=np.intp)
        draws += (np.arange(rows, dtype=np.intp) * n)[:, None]
        yield start, np.bincount(draws.ravel(), minlength=rows * n).reshape(rows, n)
    groups = np.arange(n) % JACKKNIFE
    yield resamples, (groups[None, :] != np.arange(JACKKNIFE)[:, None]).astype(np.int64)


def _draw_counts(rng: np.random.Generator | Stream, n: int, rows: int, out: np.ndarray) -> None:
    """`rows` resamples' counts into `out` by the C module: numpy's PCG64 inlined (its state
    through the bit generator's public `state`, or a Stream's), any other bit generator through
    its capsule."""
    if isinstance(rng, Stream):
        words = (rng.state >> 64, rng.state & _LOW, rng.inc >> 64, rng.inc & _LOW)
        after = _fastdraw.draw_counts_pcg64((*words, rng.has_uint32, rng.uinteger), n, rows, out)
        rng.state = (after[0] << 64) | after[1]
        rng.has_uint32, rng.uinteger = after[4], after[5]
        return
    bits = rng.bit_generator
    with bits.lock:
        if type(bits) is not np.random.PCG64 or not hasattr(_fastdraw, "draw_counts_pcg64"):
            _fastdraw.draw_counts(bits.capsule, n, rows, out)
            return
        state = bits.state
        pcg, inc = state["state"]["state"], state["state"]["inc"]
        words = (pcg >> 64, pcg & _LOW, inc >> 64, inc & _LOW)
        after = _fastdraw.draw_counts_pcg64(
            (*words, state["has_uint32"], state["uinteger"]), n, rows, out
        )
        state["state"]["state"] = (after[0] << 64) | after[1]
        state["has_uint32"], state["uinteger"] = after[4], after[5]
        bits.state = state


def _nanmean(values: np.ndarray) -> float:
    """`np.nanmean` of a 1-D float64 array with a value, its operations (the NaN-free sum,
    divided by the count), without its argument handling (a third of its cost here)."""
    missing = np.isnan(values)
    total = np.sum(np.where(missing, 0.0, values))
    return float(total / np.intp(values.size - np.count_nonzero(missing)))


def _finite_rate(value: object) -> bool:
    try:
        rate = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return 0 < rate < float("inf")


UNPACKED_LIMIT = 128  # runs' rows kept per process (5 rows x 2010 replicates: 80 kB each)
_UNPACKED: OrderedDict[tuple[str, int], np.ndarray] = OrderedDict()


def pack(rows: Sequence[np.ndarray | None], resamples: int) -> str:
    """Rows of replicates (then the jackknife's) as one text (base64 of little-endian
    float32), for the cache."""
    block = np.full((len(rows), resamples + JACKKNIFE), np.nan, dtype="<f4")
    for i, row in enumerate(rows):
        if row is not None:
            block[i] = row
    text = _base64(block)
    if resamples > 0:  # what `unpack` would decode: a cold build's analysis reads it next
        _remember((text, resamples), block.astype(float))
    return text


def _base64(block: np.ndarray) -> str:
    """`base64.b64encode(block.tobytes()).decode("ascii")`: in C when built (a third of
    binascii's time, no bytes copied twice), else by base64."""
    if _fastdraw is not None and hasattr(_fastdraw, "b64_ascii"):
        text: str = _fastdraw.b64_ascii(block)
        return text
    return base64.b64encode(block.tobytes()).decode("ascii")


def unpack(text: str, resamples: int) -> np.ndarray:
    """The rows `pack` wrote, as float64 (rows x (resamples + JACKKNIFE)), read-only; empty
    when the text does not fit. Remembered: a build reads each run's rows again for every
    sensitivity alternative, and a text's hash is computed once (str keeps it)."""
    key = (text, resamples)
    found = _UNPACKED.get(key)
    if found is None:
        found = _remember(key, _decode(text, resamples))
    else:
        _UNPACKED.move_to_end(key)
    return found


def _remember(key: tuple[str, int], rows: np.ndarray) -> np.ndarray:
    """Keep `rows` (made read-only) as the unpacked rows of `key`'s text, the oldest let go."""
    rows.setflags(write=False)
    _UNPACKED[key] = rows
    while len(_UNPACKED) > UNPACKED_LIMIT:
        _UNPACKED.popitem(last=False)
    return rows


def _decode(text: str, resamples: int) -> np.ndarray:
    """`unpack`, computed."""
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
