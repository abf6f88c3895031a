"""Per-run replicates: numpy's percentiles of each resample, duration following the latencies."""

from __future__ import annotations

import numpy as np
import pytest

from cmpc.ingest.resample import JACKKNIFE, Settings, _percentiles, pack, replicates, unpack
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
