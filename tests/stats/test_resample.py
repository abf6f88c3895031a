"""Per-run replicates: numpy's percentiles of each resample, duration following the latencies."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction

import numpy as np
import pytest

from cmpc.ingest import resample
from cmpc.ingest.resample import (
    JACKKNIFE,
    WIDTH,
    Settings,
    _count_blocks,
    _percentiles,
    _seed,
    pack,
    replicates,
    unpack,
)
from cmpc.traces.table import Requests, Run

TOKENS_IN, TOKENS_OUT = 100.0, 50.0


def _run(e2el: np.ndarray, fields: dict | None = None) -> Run:
    n = e2el.size
    req = Requests(
        ok=np.ones(n, dtype=bool),
        ttft=np.full(n, 0.1),
        e2el=e2el,
        input_tokens=np.full(n, TOKENS_IN),
        output_tokens=np.full(n, TOKENS_OUT),
    )
    return Run(
        "r", "cmpc", 0, fields or {"conc": 4}, requests=req, duration_s=float(e2el.sum()) / 4
    )


def test_percentiles_from_counts_are_numpys_on_the_resampled_values():
    rng = np.random.default_rng(0)
    x = rng.lognormal(size=80)
    x[5] = np.nan  # a request without the metric is left out of it
    draws = rng.integers(0, 80, size=(25, 80))
    counts = np.stack([np.bincount(row, minlength=80) for row in draws])
    got = _percentiles(counts, x, [0.5, 0.9, 0.99])
    for b in range(25):
        sample = x[draws[b]]
        want = np.percentile(sample[np.isfinite(sample)], [50, 90, 99])
        assert got[:, b] == pytest.approx(want, rel=1e-12)


def test_percentiles_across_chunks_ties_gaps_and_empty_replicates():
    # more requests than one chunk of the two-level search, ranks on both sides of its edges
    rng = np.random.default_rng(4)
    n = 7 * WIDTH + 13
    x = np.round(rng.lognormal(size=n), 1)  # ties
    x[rng.random(n) < 0.2] = np.nan
    draws = rng.integers(0, n, size=(40, n))
    counts = np.stack([np.bincount(row, minlength=n) for row in draws])
    counts[[0, -1]] = 0  # replicates that drew nothing (first and last row): NaN, no error
    counts[1] = 0
    counts[1, np.flatnonzero(np.isfinite(x))[-1]] = 3  # one value, drawn three times
    qs = [0.0, 0.01, 0.5, 0.9, 0.99, 1.0]
    got = _percentiles(counts, x, qs)
    assert np.isnan(got[:, [0, -1]]).all()
    for b in range(1, 39):
        sample = np.repeat(x, counts[b])
        want = np.percentile(sample[np.isfinite(sample)], [100 * q for q in qs])
        assert np.array_equal(got[:, b], want), b


def test_means_and_rates_are_the_resamples_exact_sums():
    rng = np.random.default_rng(6)
    e2el = rng.lognormal(0, 0.7, 3000)
    run = _run(e2el)
    settings = Settings(40, 1)
    found = replicates(run, [("e2el", "mean")], settings, "sha")
    assert found is not None
    # the same counts the replicates drew (no percentile asked: requests in their own order),
    # the bootstrap's then the jackknife's
    blocks = _count_blocks(_seed(settings, "sha", run.index), e2el.size, settings.resamples)
    counts = np.concatenate([c for _, c in blocks])
    for b, row in enumerate(counts):
        drawn = np.flatnonzero(row)
        total = sum((Fraction(float(e2el[i])) * int(row[i]) for i in drawn), Fraction(0))
        mean = total / int(row.sum())
        assert found["e2el mean"][b] == pytest.approx(float(mean), rel=1e-12, abs=0)
        duration = run.duration_s * (int(row.sum()) / e2el.size) * (float(mean) / e2el.mean())
        want = int(row.sum()) * TOKENS_OUT / duration
        assert found["output_tok_s"][b] == pytest.approx(want, rel=1e-12)


def test_working_memory_is_bounded_by_a_block_not_by_the_replicates():
    # 12,500 requests x 2000 replicates: 2.5e7 draws, 200 MB as one matrix of counts
    rng = np.random.default_rng(7)
    run = _run(rng.lognormal(0, 0.5, 12_500))
    tracemalloc.start()
    try:
        replicates(run, [("tpot", "p90"), ("e2el", "p99")], Settings(2000, 1), "x")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16e6, f"{peak / 1e6:.1f} MB"  # 10.3 MB now; 119.4 MB with one 2**22 block


def test_closed_loop_throughput_varies_through_duration_even_with_fixed_tokens():
    rng = np.random.default_rng(1)
    found = replicates(_run(rng.lognormal(0, 0.5, 400)), [("tpot", "p90")], Settings(500, 1), "x")
    assert found is not None
    rates = found["output_tok_s"][:500]
    assert rates.std() > 0.01 * rates.mean()  # the resampled mean e2el moves the duration


def test_constant_latencies_give_a_constant_throughput():
    found = replicates(_run(np.full(200, 2.0)), [("tpot", "p90")], Settings(200, 1), "x")
    assert found is not None
    rates = found["output_tok_s"][:200]
    assert np.allclose(rates, 200 * TOKENS_OUT / (200 * 2.0 / 4))


def test_an_open_loop_run_keeps_its_duration():
    rng = np.random.default_rng(2)
    run = _run(rng.lognormal(0, 0.5, 300), {"request_rate": 4.0})
    found = replicates(run, [("tpot", "p90")], Settings(200, 1), "x")
    assert found is not None
    assert np.allclose(found["output_tok_s"][:200], 300 * TOKENS_OUT / run.duration_s)


def test_same_seed_same_replicates_other_seed_others():
    rng = np.random.default_rng(3)
    run = _run(rng.lognormal(0, 0.5, 300))
    q = [("tpot", "p90"), ("ttft", "p99"), ("e2el", "mean")]
    a = replicates(run, q, Settings(100, 1), "sha")
    b = replicates(run, q, Settings(100, 1), "sha")
    c = replicates(run, q, Settings(100, 2), "sha")
    assert a is not None and b is not None and c is not None
    assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)
    assert not np.array_equal(a["tpot p90"], c["tpot p90"])
    assert a["tpot p90"].size == 100 + JACKKNIFE


def test_the_jackknife_rows_leave_one_group_out():
    e2el = np.arange(1.0, 101.0)
    found = replicates(_run(e2el), [("e2el", "mean")], Settings(50, 1), "x")
    assert found is not None
    groups = np.arange(100) % JACKKNIFE
    want = [e2el[groups != g].mean() for g in range(JACKKNIFE)]
    assert found["e2el mean"][50:] == pytest.approx(want)


def test_packing_round_trips_at_float32():
    rows = [np.linspace(0, 1, 30 + JACKKNIFE), None]
    back = unpack(pack(rows, 30), 30)
    assert back.shape == (2, 30 + JACKKNIFE)
    assert back[0] == pytest.approx(rows[0], rel=1e-7) and np.isnan(back[1]).all()
    assert unpack("not base64!", 30).shape[0] == 0


def test_unpacked_rows_are_remembered_and_read_only():
    # a build reads each run's rows once per sensitivity alternative: decoded once, shared
    text = pack([np.linspace(0, 1, 30 + JACKKNIFE)], 30)
    first = unpack(text, 30)
    assert unpack(text, 30) is first
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0, 0] = 2.0


def test_packed_rows_are_unpacked_without_decoding_and_equal_the_decoded_bits(monkeypatch):
    """A cold build's analysis unpacks the texts its reduction just packed: the rows pack kept
    are the decoded text's, bit for bit, and no base64 is decoded for them."""
    rng = np.random.default_rng(41)  # seeded synthetic replicates, one row missing
    rows = [rng.lognormal(0, 1, 300 + JACKKNIFE), None, rng.random(300 + JACKKNIFE)]
    text = pack(rows, 300)
    want = resample._decode(text, 300)
    monkeypatch.setattr(resample, "_decode", lambda *a: pytest.fail("decoded again"))
    got = unpack(text, 300)
    assert got.dtype == want.dtype and got.shape == want.shape and not got.flags.writeable
    assert got.tobytes() == want.tobytes()


def test_a_product_with_a_power_of_two_is_ldexp_bit_for_bit():
    # the sums are scaled back from whole numbers by a product, not libm's ldexp
    rng = np.random.default_rng(8)
    values = np.concatenate(
        [
            rng.integers(0, 2**53, 4000).astype(float),
            rng.random(2000) * 2.0 ** rng.integers(-1074, 1023, 2000),  # subnormal to huge
            [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308],
        ]
    )
    rows = values[: values.size // 7 * 7].reshape(-1, 7)
    # huge values times 2**1000 overflow to inf in both: that is compared too
    with np.errstate(over="ignore"):
        _compare_with_ldexp(rows)


def _compare_with_ldexp(rows: np.ndarray) -> None:
    for exponents in ([-1000, -60, -1, 0, 1, 60, 1000], [0, -1022, -1000, 3, 900, -40, 7]):
        scales = np.array(exponents)
        got = resample._times_power_of_two(rows, scales)
        assert got.tobytes() == np.ldexp(rows, scales).tobytes()
    beyond = np.array([-1074, 1023, 0, 0, 0, 0, 1])  # past normal powers: ldexp itself
    assert resample._times_power_of_two(rows, beyond).tobytes() == np.ldexp(rows, beyond).tobytes()


def test_constant_rows_and_the_nan_mean_are_the_per_row_and_numpy_answers():
    rng = np.random.default_rng(12)
    table = rng.integers(0, 3, size=(40, 6)).astype(float)
    table[5:10] = 2.0  # constant rows
    table[10:15] = np.nan  # all NaN: constant
    table[15:20, 0] = np.nan  # NaN first, values after: varies
    table[20:25, 3] = np.nan  # a NaN among equal values: varies
    table[20:25, [0, 1, 2, 4, 5]] = 1.0
    table[25, :] = [0.0, -0.0, 0.0, -0.0, 0.0, 0.0]  # equal values
    found = resample._constant_rows(table).tolist()
    assert found == [resample._constant(row) for row in table]
    assert any(found) and not all(found)
    for size in (1, 2, 7, 1000, 12_513):
        values = rng.lognormal(size=size)
        values[rng.random(size) < 0.2] = np.nan
        values[0] = 0.5  # at least one value
        if size > 3:
            values[1] = np.inf
        assert resample._nanmean(values) == float(np.nanmean(values))


def _awkward_run() -> Run:
    """Ties, signed zeros, infinities and missing values in every latency column."""
    rng = np.random.default_rng(8)
    n = 97
    ttft = np.round(rng.lognormal(-2, 0.5, n), 2)
    e2el = ttft + np.round(rng.lognormal(0, 0.5, n), 1)
    ttft[[3, 40]] = [np.nan, 0.0]
    ttft[41] = -0.0
    e2el[[5, 6, 7]] = [np.inf, np.nan, np.inf]
    out = np.where(rng.random(n) < 0.1, 1.0, rng.integers(2, 40, n).astype(float))
    ok = rng.random(n) > 0.05
    req = Requests(ok=ok, ttft=ttft, e2el=e2el, input_tokens=np.full(n, 9.0), output_tokens=out)
    return Run("r", "cmpc", 2, {"conc": 8}, requests=req, duration_s=30.0)


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # an infinite e2el's sums
@pytest.mark.parametrize("leading", ["tpot", "e2el", "ttft"])
def test_the_leading_metrics_ranks_and_the_sums_shortcut_are_the_general_codes(
    leading, monkeypatch
):
    # the leading metric's order is taken from its stable sort, not sorted again; a summed
    # column all finite is stacked as it is, not through nan_to_num: the same bytes
    run = _awkward_run()
    queries = [(leading, "p90"), ("tpot", "median"), ("e2el", "mean"), ("ttft", "p99")]
    settings = Settings(60, 4)
    fast = replicates(run, queries, settings, "sha")
    general = resample._Ranked.of.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        resample._Ranked, "of", classmethod(lambda cls, v, ascending=False: general(cls, v))
    )
    monkeypatch.setattr(resample.np, "isfinite", _never_all(np.isfinite))
    slow = replicates(run, queries, settings, "sha")
    assert fast is not None and slow is not None and fast.keys() == slow.keys()
    for key in fast:
        assert fast[key].tobytes() == slow[key].tobytes(), key


def _never_all(isfinite):
    """np.isfinite whose masks say `all()` is False: every column through nan_to_num."""

    class Mask(np.ndarray):
        def all(self, *args, **kwargs):  # type: ignore[override]
            return False if not args and not kwargs else super().all(*args, **kwargs)

    return lambda x, *a, **k: np.asarray(isfinite(x, *a, **k)).view(Mask)


def test_a_stably_sorted_column_ranks_as_sorting_it_again():
    x = np.array([np.nan, 2.0, -np.inf, 0.0, -0.0, 2.0, np.inf, 1.0, np.nan, -0.0])
    ordered = x[np.argsort(x, kind="stable")]
    fast, slow = resample._Ranked.of(ordered, ascending=True), resample._Ranked.of(ordered)
    assert fast.order.tobytes() == slow.order.tobytes()
    assert fast.values.tobytes() == slow.values.tobytes() and fast.in_place == slow.in_place
    finite = np.array([0.0, -0.0, 1.0, 1.0])
    assert resample._Ranked.of(finite, ascending=True).in_place
