"""The C bootstrap counter (cmpc._fastdraw): numpy's draws, counts and figures, byte for byte."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy as np
import pytest

from cmpc import _fastdraw
from cmpc.ingest import resample
from cmpc.ingest.resample import Settings, _count_blocks, _percentiles, replicates
from cmpc.traces.table import Requests, Run


def _generator(kind: type, *words: int) -> np.random.Generator:
    rng = np.random.Generator(kind(np.random.SeedSequence(list(words))))
    rng.integers(0, 2, size=1)  # leaves half a 64-bit word buffered: the C draw must use it first
    return rng


@pytest.mark.parametrize("kind", [np.random.PCG64, np.random.Philox])
@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000, 12_512, 65_537, 300_012])
def test_counts_are_numpys_draws_counted_and_the_stream_ends_where_numpys_does(kind, n):
    # PCG64 (what the replicates seed) is drawn inlined; any other generator through its capsule
    resamples = 45
    c_rng, numpy_rng = _generator(kind, 7, n), _generator(kind, 7, n)
    fast = [(s, c.copy()) for s, c in _count_blocks(c_rng, n, resamples)]
    slow = list(_count_blocks(numpy_rng, n, resamples, fast=False))
    assert [s for s, _ in fast] == [s for s, _ in slow]
    for (_, got), (_, want) in zip(fast, slow, strict=True):
        assert got.dtype == np.int64 and np.array_equal(got, want)
    assert str(c_rng.bit_generator.state) == str(numpy_rng.bit_generator.state)
    assert c_rng.random() == numpy_rng.random()


def test_the_rejection_branch_is_exercised():
    # Lemire's method redraws a 32-bit word whose low half falls below (2**32 - n) % n: at
    # 300,012 requests that is 295,516 of 2**32, about 930 redraws in the 45 x n draws above
    n = 300_012
    threshold = (2**32 - n) % n
    assert threshold / 2**32 * 45 * n > 500


def _run(n: int, seed: int) -> Run:
    rng = np.random.default_rng(seed)
    e2el = rng.lognormal(0, 0.6, n)
    ttft = rng.lognormal(-2, 0.5, n)
    out = rng.integers(1, 400, n).astype(float)
    out[rng.random(n) < 0.1] = 1  # no tpot for these: the metric ranks a subset
    ok = rng.random(n) > 0.05
    req = Requests(
        ok=ok,
        ttft=ttft,
        e2el=e2el,
        input_tokens=rng.integers(100, 2000, n).astype(float),
        output_tokens=out,
    )
    return Run("r", "cmpc", 0, {"conc": 8}, requests=req, duration_s=float(e2el.sum()) / 8)


@pytest.mark.parametrize("n", [1, 5, 63, 64, 65, 700, 20_000])
def test_replicates_with_the_c_module_are_the_numpy_codes_bytes(n, monkeypatch):
    run = _run(n, n)
    queries = [("tpot", "p90"), ("tpot", "median"), ("ttft", "p99"), ("e2el", "mean")]
    queries += [("tpot", "p99"), ("e2el", "p50")]
    fast = replicates(run, queries, Settings(300, 4), "sha")
    monkeypatch.setattr(resample, "_fastdraw", None)
    slow = replicates(run, queries, Settings(300, 4), "sha")
    assert fast is not None and slow is not None and fast.keys() == slow.keys()
    for key in slow:
        assert fast[key].tobytes() == slow[key].tobytes(), key


def test_percentile_ranks_at_chunk_edges_ties_and_empty_rows(monkeypatch):
    rng = np.random.default_rng(11)
    n = 5 * 64 + 7
    x = np.round(rng.lognormal(size=n), 1)
    x[rng.random(n) < 0.2] = np.nan
    counts = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(30)])
    counts[0] = 0  # drew nothing
    counts[1] = 0
    counts[1, np.flatnonzero(np.isfinite(x))[0]] = 2  # one value, the lowest, twice
    counts[2] = 0
    counts[2, np.flatnonzero(np.isfinite(x))[-1]] = 1  # one value, the highest, once
    qs = [0.99, 0.0, 0.5, 1.0, 0.01, 0.9]  # not in order: the C walk sorts its targets
    fast = _percentiles(counts, x, qs)
    monkeypatch.setattr(resample, "_fastdraw", None)
    slow = _percentiles(counts, x, qs)
    assert fast.tobytes() == slow.tobytes()
    assert np.isnan(fast[:, 0]).all() and np.isfinite(fast[:, 1:]).all()


def test_weighted_sums_are_exact_whole_number_products():
    rng = np.random.default_rng(5)
    counts = rng.integers(0, 9, size=(13, 1001))
    table = np.rint(rng.random((3, 1001)) * 2**40)
    out = np.empty((13, 3))
    _fastdraw.weighted_sums(counts, 13, 1001, table, out)
    exact = [
        [sum(int(c) * int(v) for c, v in zip(row, col, strict=True)) for col in table]
        for row in counts
    ]
    assert out.tolist() == [[float(v) for v in row] for row in exact]


def test_bad_buffers_are_errors_not_crashes():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        _fastdraw.draw_counts(rng.bit_generator.capsule, 10, 2, np.empty(19, dtype=np.int64))
    with pytest.raises(ValueError):
        _fastdraw.draw_counts(rng.bit_generator.capsule, 0, 2, np.empty(0, dtype=np.int64))
    low = np.empty((1, 2), dtype=np.int64)
    with pytest.raises(ValueError):
        _fastdraw.percentile_ranks(
            np.zeros((2, 5), dtype=np.int64), 2, 6, np.array([0.5]), low, low.copy(),
            np.empty(2, dtype=np.int64),
        )  # fmt: skip
    with pytest.raises(ValueError):
        _fastdraw.weighted_sums(np.zeros((2, 5), dtype=np.int32), 2, 5, np.zeros(5), np.empty(2))


OVERFLOWING = """
import subprocess
import sys

import numpy as np
from cmpc import _fastdraw
rng = np.random.default_rng(0)
huge = 2**61 + 1  # times 8 bytes wraps round to 8: a one-item buffer's length
for call in (
    lambda: _fastdraw.weighted_sums(np.zeros(1, np.int64), huge, 1, np.zeros(1), np.zeros(1)),
    lambda: _fastdraw.draw_counts(rng.bit_generator.capsule, 1, huge, np.zeros(1, np.int64)),
):
    try:
        call()
    except ValueError:
        print("refused")
"""


def test_sizes_whose_byte_count_overflows_are_refused_not_written_past():
    """rows x n x 8 is checked before it is multiplied: a wrapped product never passes."""
    run = subprocess.run([sys.executable, "-c", OVERFLOWING], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr  # before: a segmentation fault (exit -11)
    assert run.stdout.split() == ["refused", "refused"]


@pytest.mark.parametrize("in_c", [True, False])
def test_a_stream_is_seeded_as_numpys_pcg64_from_a_seed_sequence_bit_for_bit(in_c, monkeypatch):
    # the spec's seed (any size, 0 included) and a 64-bit word from the file's hash; the pool
    # mixed by _fastdraw.seed_state, or by the Python reference without it
    if not in_c:
        monkeypatch.setattr(resample, "_fastdraw", None)
    rng = np.random.default_rng(19)
    entropy = [[0, 0], [1, 0], [0, 1], [2**32 - 1, 2**64 - 1], [2**32, 5], [2**70 + 3, 2**63]]
    entropy += [[int(rng.integers(0, 2**62)) >> int(rng.integers(0, 62)), int(w)]
                for w in rng.integers(0, 2**63, 200)]  # fmt: skip
    entropy += [[], [5], [1, 2, 3, 4, 5, 6], [2**200]]  # fewer and more words than the pool
    for words in entropy:
        want = np.random.PCG64(np.random.SeedSequence(words)).state
        assert resample.Stream.seeded(words).as_state() == want, words
    with pytest.raises(ValueError):
        resample.Stream.seeded([-1, 0])  # as numpy refuses it


def test_seed_state_refuses_words_that_are_not_32_bit():
    assert _fastdraw.seed_state([]) == tuple(
        resample._generate_state(resample._pool([]), 4)
    )  # no word: the pool of zeros
    for bad in ([2**32], [-1], [1.5], ["1"], 5, [2**64]):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            _fastdraw.seed_state(bad)


@pytest.mark.parametrize("fast", [True, False])
def test_a_streams_counts_and_end_state_are_numpys_generators(fast):
    n, resamples = 1000, 45
    stream = resample.Stream.seeded([7, n])
    stream.generator().integers(0, 2, size=1)  # a generator starts from a copy of the state
    numpy_rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([7, n])))
    got = [c.copy() for _, c in _count_blocks(stream, n, resamples, fast=fast)]
    want = [c for _, c in _count_blocks(numpy_rng, n, resamples, fast=False)]
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    if fast:  # the C draws moved the stream as far as numpy's integers moved its generator
        assert stream.as_state() == numpy_rng.bit_generator.state


def _edge_run(kind: str) -> Run:
    """A run at an edge of the fused bootstrap: one request, all values equal, or a metric
    no request has (all NaN)."""
    n = {"one": 1, "equal": 40, "no tpot": 30}[kind]
    e2el = np.full(n, 1.5)
    ttft = np.full(n, 0.25)
    out = np.full(n, 1.0 if kind == "no tpot" else 11.0)  # one token each: no tpot at all
    req = Requests(
        ok=np.ones(n, dtype=bool),
        ttft=ttft,
        e2el=e2el,
        input_tokens=np.full(n, 100.0),
        output_tokens=out,
    )
    return Run("r", "cmpc", 0, {"conc": 4}, requests=req, duration_s=3.0)


QUERIES = [("tpot", "p90"), ("tpot", "median"), ("ttft", "p99"), ("e2el", "mean")]
QUERIES += [("tpot", "p99"), ("e2el", "p50"), ("e2e_per_token", "p0"), ("ttft", "p100")]


@pytest.mark.parametrize("case", [1, 2, 5, 63, 64, 65, 700, 5000, "one", "equal", "no tpot"])
@pytest.mark.parametrize("resamples", [1, 7, 300])
def test_the_fused_bootstrap_is_the_block_codes_bytes(case, resamples, monkeypatch):
    # one C call draws, sums and ranks row by row; the blocks' path keeps rows x n counts
    run = _edge_run(case) if isinstance(case, str) else _run(case, case + 1)
    fused = replicates(run, QUERIES, Settings(resamples, 9), "sha")
    monkeypatch.setattr(resample, "_fused", lambda rng, n: False)
    blocks = replicates(run, QUERIES, Settings(resamples, 9), "sha")
    monkeypatch.setattr(resample, "_fastdraw", None)
    numpy = replicates(run, QUERIES, Settings(resamples, 9), "sha")
    assert fused is not None and blocks is not None and numpy is not None
    assert fused.keys() == blocks.keys() == numpy.keys()
    for key in blocks:
        assert fused[key].shape == (resamples + resample.JACKKNIFE,), key
        assert fused[key].tobytes() == blocks[key].tobytes() == numpy[key].tobytes(), key
    if case == "no tpot":
        assert np.isnan(fused["tpot p90"]).all()
    if case == "equal":
        assert (fused["ttft p99"] == 0.25).all()


def test_the_fused_bootstrap_is_used_and_moves_the_stream_as_the_blocks_do():
    calls = []
    real = _fastdraw.bootstrap_jackknife_pcg64

    def spy(*args):
        calls.append(args[1:3])
        return real(*args)

    stream, other = resample.Stream.seeded([5, 6]), resample.Stream.seeded([5, 6])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_fastdraw, "bootstrap_jackknife_pcg64", spy)
        table = np.ones((1, 300))
        resample._bootstrap(stream, 300, 50, table, {}, {}, {})
    assert calls == [(300, 50)]
    list(_count_blocks(other, 300, 50))
    assert stream.as_state() == other.as_state()


def test_the_fused_bootstraps_old_name_is_gone_and_without_the_new_one_the_blocks_give_the_same():
    # `bootstrap_pcg64` returned its sums rows x columns; this one columns x rows. A build whose
    # extension lags its Python (an editable install not rebuilt) must fall back, never
    # crash or read sums transposed: a new layout, a new name
    assert not hasattr(_fastdraw, "bootstrap_pcg64")
    rng = np.random.default_rng(3)
    req = Requests(
        ok=rng.random(40) > 0.1,
        ttft=rng.gamma(2.0, 0.05, 40),
        e2el=rng.gamma(8.0, 0.2, 40),
        input_tokens=np.full(40, 100.0),
        output_tokens=rng.integers(2, 60, 40).astype(float),
    )
    run = Run("r", "cmpc", 0, {"conc": 4}, requests=req, duration_s=30.0)
    queries = [("ttft", "p90"), ("tpot", "p50"), ("e2el", "mean")]
    settings = Settings(resamples=200, seed=1)
    fused = replicates(run, queries, settings, "ab" * 32)
    built = resample._fastdraw  # the module resample holds (a test may have swapped it)
    names = [k for k in dir(built) if not k.startswith("__") and k != "bootstrap_jackknife_pcg64"]
    lagging = types.SimpleNamespace(**{k: getattr(built, k) for k in names})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(resample, "_fastdraw", lagging)
        assert not resample._fused(resample.Stream.seeded([1]), 40)
        blocks = replicates(run, queries, settings, "ab" * 32)
    assert fused is not None and blocks is not None
    assert fused.keys() == blocks.keys()
    for key in fused:
        assert fused[key].tobytes() == blocks[key].tobytes(), key


def test_bad_fused_bootstrap_arguments_are_errors_not_crashes():
    state = (0, 1, 0, 1, False, 0)
    table, sums = np.ones((1, 5)), np.zeros((3, 1))
    q, out = np.array([0.5]), np.zeros((1, 4))  # a row of 3 replicates, one column more

    def metric(order, values=None, found=out):
        order = np.asarray(order, dtype=np.int64)
        values = np.arange(float(order.size)) if values is None else values
        return (False, order, q, values, found)

    for call in (
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 0, 3, np.zeros(0), np.zeros(0), []),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, table, np.zeros((2, 1)), []),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, table, sums, [metric([0, 5])]),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, table, sums, [metric([-1])]),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, table, sums, [metric([])]),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(
            state, 5, 3, table, sums, [(True, *metric([0])[1:])]
        ),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(state, 5, 3, table, sums, [metric([0])[:4]]),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(
            state, 5, 3, table, sums, [metric([0], np.ones(2))]
        ),
        lambda: _fastdraw.bootstrap_jackknife_pcg64(
            state, 5, 3, table, sums, [metric([0], found=np.zeros((1, 2)))]
        ),
    ):
        with pytest.raises((ValueError, TypeError)):
            call()
    _fastdraw.bootstrap_jackknife_pcg64(
        state, 5, 3, table, sums, [metric([4, 0])]
    )  # valid: no error
    assert (sums == 5).all()  # every row drew 5 requests
    drew = out[0, :3]  # each row's median of values 0 and 1 drawn: 0, 0.5 or 1; none: NaN
    assert np.isin(drew[np.isfinite(drew)], [0.0, 0.5, 1.0]).all() and out[0, 3] == 0


@pytest.mark.parametrize("resamples", [1, 300])
def test_replicates_take_the_fused_c_path_once(resamples, monkeypatch):
    # the fused call draws every bootstrap row; the blocks' path then draws only the jackknife
    calls = []
    real = _fastdraw.bootstrap_jackknife_pcg64

    def spy(*args):
        calls.append(args[1:3])
        return real(*args)

    monkeypatch.setattr(_fastdraw, "bootstrap_jackknife_pcg64", spy)
    blocks = []
    monkeypatch.setattr(resample, "_count_blocks", lambda *a, **k: blocks.append(a) or iter(()))
    run = _run(500, 3)
    assert replicates(run, QUERIES, Settings(resamples, 9), "sha") is not None
    assert calls == [(500, resamples)]
    assert blocks == []  # the jackknife's rows too: no counts made in numpy


def test_the_fused_jackknife_rows_are_the_block_codes_counts_summed_and_ranked():
    # the C call's rows after the bootstrap's: request i left out of row g when i % J == g
    n, rows, jack = 23, 4, resample.JACKKNIFE
    values = np.arange(n, dtype=float) * 1.5
    table = np.ascontiguousarray(np.vstack([np.ones(n), values]))
    sums = np.empty((2, rows + jack))  # a row per column
    q = np.array([0.0, 0.5, 0.99])
    out = np.empty((q.size, rows + jack))
    stream = resample.Stream.seeded([3, 4])
    words = (
        stream.state >> 64,
        stream.state & (2**64 - 1),
        stream.inc >> 64,
        stream.inc & (2**64 - 1),
    )
    order = np.arange(n, dtype=np.int64)
    _fastdraw.bootstrap_jackknife_pcg64(
        (*words, 0, 0), n, rows, table, sums, [(True, order, q, values, out)], jack
    )
    counts = list(_count_blocks(resample.Stream.seeded([3, 4]), n, rows))[-1][1]
    assert counts.shape == (jack, n)
    assert sums[:, rows:].tobytes() == resample._weighted_sums(counts, table).T.tobytes()
    ranked = resample._ranked_percentiles(counts, resample._Ranked.of(values), list(q))
    assert out[:, rows:].tobytes() == ranked.tobytes()


def test_bad_jackknife_counts_are_errors_not_crashes():
    state = (0, 1, 0, 1, False, 0)
    table, q = np.ones((1, 5)), np.array([0.5])
    order, values = np.arange(5, dtype=np.int64), np.arange(5.0)
    for jack, sums, out in (
        (-1, np.zeros((3, 1)), np.zeros((1, 3))),
        (1001, np.zeros((1004, 1)), np.zeros((1, 1004))),
        (2, np.zeros((3, 1)), np.zeros((1, 5))),  # no room for the jackknife's sums
        (2, np.zeros((5, 1)), np.zeros((1, 4))),  # nor for its percentiles
    ):
        with pytest.raises(ValueError):
            _fastdraw.bootstrap_jackknife_pcg64(
                state, 5, 3, table, sums, [(True, order, q, values, out)], jack
            )
    # rows + jackknife past the largest size: refused, not wrapped round to a small count
    for rows in (sys.maxsize, sys.maxsize - 9):
        with pytest.raises(ValueError):
            _fastdraw.bootstrap_jackknife_pcg64(state, 5, rows, table[:0], np.zeros((0, 1)), [], 10)
