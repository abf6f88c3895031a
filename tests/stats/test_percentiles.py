"""metrics.percentiles: numpy's `linear` percentiles, bit for bit, without numpy.ma."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cmpc.compute.intervals import sorted_quantiles
from cmpc.ingest.points import CDF_PERCENTILES
from cmpc.metrics import percentiles

ORACLE = Path(__file__).resolve().parents[2].parent / "shared" / "oracle" / "vllm"
RUN = ORACLE / "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json"


def _bits(values) -> list[str]:
    return [float(v).hex() for v in values]


def _vllm_columns() -> dict[str, np.ndarray]:
    """Per-request TTFT, TPOT and every chunk gap of a real vLLM run, in seconds."""
    doc = json.loads(RUN.read_text(encoding="utf-8"))
    ttft = np.array(doc["ttfts"], dtype=np.float64)
    tpot = np.array(
        [sum(g) / len(g) for g in doc["itls"] if len(g)], dtype=np.float64
    )  # (e2el - ttft) / (n - 1): the gaps' mean
    gaps = np.array([x for g in doc["itls"] for x in g], dtype=np.float64)
    return {"ttft": ttft, "tpot": tpot, "gaps": gaps}


def test_a_real_runs_percentiles_equal_numpys_bit_for_bit():
    for name, x in _vllm_columns().items():
        for qs in (CDF_PERCENTILES, (50.0, 90.0, 99.0), (0.0, 100.0), (99.9,)):
            assert _bits(percentiles(x, qs)) == _bits(np.percentile(x, qs)), (name, qs)


def test_the_median_is_the_one_vllm_published():
    doc = json.loads(RUN.read_text(encoding="utf-8"))
    (median,) = percentiles(_vllm_columns()["ttft"], (50.0,))
    assert median * 1000 == pytest.approx(doc["median_ttft_ms"], rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 51, 100, 101, 65_535, 65_536, 200_001])
def test_sizes_ties_and_orders_equal_numpys(n):
    rng = np.random.default_rng([19, n])  # seeded synthetic data
    columns = (
        rng.gamma(2.0, 0.01, n),
        np.round(rng.gamma(2.0, 0.01, n), 3),  # many ties
        np.sort(rng.normal(size=n))[::-1].copy(),  # ordered against the sample
        np.full(n, 0.25),
    )
    for x in columns:
        before = x.copy()
        assert _bits(percentiles(x, CDF_PERCENTILES)) == _bits(np.percentile(x, CDF_PERCENTILES))
        assert _bits(x) == _bits(before)  # the input is not reordered


def test_nan_other_methods_and_bad_percentiles_answer_as_numpy():
    x = np.array([0.3, np.nan, 0.1, 0.2])
    assert np.isnan(percentiles(x, (50.0,))).all()
    y = np.array([0.3, 0.1, 0.2, 0.4])
    assert percentiles(y, (50.0, 90.0), "nearest") == list(
        np.percentile(y, (50, 90), method="nearest")
    )
    with pytest.raises(ValueError):
        percentiles(y, (101.0,))


def test_percentiles_do_not_import_numpy_ma():
    probe = (
        "import sys, numpy as np\n"
        "from cmpc.metrics import percentiles\n"
        "qs = [float(q) for q in range(0, 101, 2)]\n"
        "percentiles(np.random.default_rng(1).random(70_000), qs)\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"


def test_interval_quantiles_of_sorted_replicates_equal_numpys():
    rng = np.random.default_rng(16)  # seeded synthetic replicates
    for n in (10, 11, 999, 2000, 4001):
        values = np.sort(rng.lognormal(0.0, 0.3, n))
        ties = np.sort(np.round(rng.random(n), 2))
        for levels in ([0.025, 0.975], [0.05, 0.95], [0.0, 1.0], rng.random(2).tolist()):
            for x in (values, ties):
                want = np.quantile(x, np.array(levels), method="linear")
                assert _bits(sorted_quantiles(x, np.array(levels))) == _bits(want), (n, levels)
    with pytest.raises(ValueError):
        sorted_quantiles(values, np.array([0.5, 1.5]))
    with_nan = np.array([0.1, 0.2, 0.3, np.nan])  # sorted: NaN last
    assert np.isnan(sorted_quantiles(with_nan, np.array([0.025, 0.975]))).all()


def test_ranks_kept_per_size_and_quantiles_serve_any_order_of_calls():
    """`percentiles` keeps its indexes and weights per (size, quantiles): calls that alternate
    sizes and quantile lists still answer as numpy, and the kept arrays cannot be changed."""
    from cmpc import metrics

    rng = np.random.default_rng(5)
    lists = (CDF_PERCENTILES, (50.0, 90.0, 99.0), (0.0, 100.0), (99.9,))
    for n in (1, 2, 3, 512, 2, 1, 511, 512):
        x = rng.gamma(2.0, 0.01, n).round(6)
        for qs in lists:
            assert _bits(percentiles(x, qs)) == _bits(np.percentile(x, qs)), (n, qs)
    before, after, gamma = metrics._sorted_ranks(512, np.array([0.5, 0.9]).tobytes())
    assert not (before.flags.writeable or after.flags.writeable or gamma.flags.writeable)
