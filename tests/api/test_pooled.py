"""Repetitions pooled: exact by default; with `--sketch`, merged DDSketches within α."""

from __future__ import annotations

import itertools
import json
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import cmpc
from cmpc.analysis.pooled import pooled_repetitions
from cmpc.ingest import pooling, sketch
from cmpc.metrics import per_request
from cmpc.traces import load_runs

from .helpers import ORACLE, cli_build, repetitions_copy

ALPHA = 0.01
QS = {"median": 0.5, "p90": 0.9, "p99": 0.99, "p999": 0.999, "min": 0.0, "max": 1.0}
VLLM = sorted((ORACLE / "vllm").glob("llmk8s__*.json"))  # two real vLLM runs, 200 requests each
PER_REQUEST = [
    *VLLM,
    ORACLE / "aiperf" / "aiperf-examples-run1__profile_export.jsonl",
    ORACLE / "guidellm" / "graz-vllm-benchmark__benchmarks.json",
    ORACLE / "llmperf" / "llmperf-leaderboard__individual_fireworks_70b.json",
    ORACLE
    / "genai-bench"
    / ("genaibench-regression_main_branch__D100_100_text-to-text_num_concurrency_1_time_120s.json"),
]


def _values(path, metric):
    (run,), problems = load_runs(str(path))
    assert not [p for p in problems if p.severity == "error"]
    return per_request(run)[metric]


def _within_alpha_of_rank(got: float, column: np.ndarray, q: float) -> bool:
    """DDSketch's bound: within α (relative) of the sample value of rank ⌊q·(n−1)⌋."""
    at_rank = np.sort(column)[math.floor(q * (column.size - 1))]
    return abs(got - at_rank) <= ALPHA * abs(at_rank) * (1 + 1e-12)


def _library_bins(values: np.ndarray, alpha: float) -> sketch.Bins:
    """The bins of the library's own DDSketch, one `add` per value."""
    from ddsketch import DDSketch

    library = DDSketch(relative_accuracy=alpha)
    for value in values.tolist():
        library.add(value)

    def pairs(store):
        return tuple((store.offset + i, int(c)) for i, c in enumerate(store.bins) if c)

    return sketch.Bins(
        alpha, int(library._zero_count), pairs(library._store), pairs(library._negative_store)
    )


def test_the_bins_and_the_query_are_the_librarys_own():
    from ddsketch import DDSketch
    from ddsketch.mapping import LogarithmicMapping

    values = _values(VLLM[0], "chunk_gap")
    library = DDSketch(relative_accuracy=ALPHA)
    for value in values.tolist():
        library.add(value)
    bins = sketch.sketch_of(values, ALPHA)
    assert bins == _library_bins(values, ALPHA) and bins.count == values.size
    for q in QS.values():
        assert sketch.quantile_of(bins, q) == library.get_quantile_value(q)
    assert sketch.unpack(sketch.pack(bins)) == bins
    mapping = LogarithmicMapping(ALPHA)  # values on and next to bin edges, negatives, zeros
    edges = np.array([mapping._pow_gamma(k) for k in range(-800, 400, 7)])
    around = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, np.inf)])
    mixed = np.concatenate([around, -around[::5], np.zeros(4), [1e-320]])
    for alpha in (ALPHA, 0.02, 0.001):
        assert sketch.sketch_of(mixed, alpha) == _library_bins(mixed, alpha), alpha


@pytest.mark.parametrize("metric", ["ttft", "tpot", "e2el", "chunk_gap"])
def test_real_runs_pooled_exactly_and_by_merged_sketches(metric):
    runs = [
        v
        for p in (VLLM if metric == "chunk_gap" else PER_REQUEST)
        if (v := _values(p, metric)).size
    ]
    column = np.concatenate(runs)
    exact = pooling.pooled([pooling.exact_part(v, metric) or "" for v in runs], QS)
    sketched = pooling.pooled([pooling.sketch_part(sketch.sketch_of(v, ALPHA)) for v in runs], QS)
    assert sketched is not None and sketched.values == column.size
    assert sketched.method == "ddsketch" and sketched.relative_accuracy == ALPHA
    for name, q in QS.items():
        assert _within_alpha_of_rank(sketched.statistics[name], column, q), (metric, name)
    if metric == "chunk_gap":  # one value per token: pooled only from sketches
        assert exact is None
        return
    assert exact is not None and exact.values == column.size
    for name, q in QS.items():
        assert exact.statistics[name] == float(np.percentile(column, 100 * q, method="linear"))


def test_merging_is_the_sketch_of_the_union_in_any_order():
    rng = np.random.default_rng(20261201)  # SYNTHETIC: seeded lognormal latencies, with zeros
    shards = [rng.lognormal(-4, 1.2, int(n)) for n in rng.integers(50, 3000, 6)]
    shards[2][:7] = 0.0
    parts = [sketch.sketch_of(s, ALPHA) for s in shards]
    union = sketch.sketch_of(np.concatenate(shards), ALPHA)
    for order in itertools.permutations(range(len(parts)), len(parts)):
        assert sketch.merged(parts[i] for i in order) == union
    for name, q in QS.items():
        got = sketch.quantile_of(union, q)
        assert _within_alpha_of_rank(got, np.concatenate(shards), q), name
    with pytest.raises(ValueError):
        sketch.merged([parts[0], sketch.sketch_of(shards[1], 0.02)])


def test_damaged_parts_pool_to_nothing():
    good = pooling.sketch_part(sketch.sketch_of(np.array([0.1, 0.2]), ALPHA))
    exact = pooling.exact_part(np.array([0.1, 0.2]), "tpot") or ""
    for damaged in (
        "ddsketch:{",
        'ddsketch:{"alpha":2,"zero":0,"positive":[],"negative":[]}',
        "exact:!!",
        "exact:AAAA",
    ):
        assert (
            pooling.pooled(
                [good if damaged.startswith("ddsketch") else exact, damaged], {"p90": 0.9}
            )
            is None
        )
    assert pooling.pooled([good, exact], {"p90": 0.9}) is None  # exact and sketched: not alike


@pytest.fixture(scope="module")
def repeated(tmp_path_factory):
    spec = repetitions_copy(tmp_path_factory.mktemp("pooled"))
    return spec, cmpc.build(spec), cmpc.build(spec, sketch=ALPHA)


def _pooled_column(spec, group):
    return np.concatenate([_values(spec.parent / label, "tpot") for label in group["runs"]])


def test_repetitions_pool_exactly_by_default(repeated):
    spec, exact, _ = repeated
    for name in ("alpha", "beta"):
        groups = exact.systems[name]["pooled"]
        assert [g["load"] for g in groups] == [{"conc": str(c)} for c in (1, 2, 4, 8, 16, 32, 64)]
        for group in groups:
            assert len(group["runs"]) == 3 and group["method"] == "linear"
            assert group["relative_accuracy"] is None
            column = _pooled_column(spec, group)
            assert group["values"] == column.size
            for stat, q in (("median", 50), ("p90", 90), ("p99", 99)):
                assert group["latency_s"][stat] == float(np.percentile(column, q))
    note = next(line for line in exact.report.splitlines() if "Repetitions pooled" in line)
    assert "exact, numpy's `linear` method" in note and "alpha (synthetic) at conc 1:" in note


def test_sketched_repetitions_stay_within_alpha_and_say_so(repeated):
    spec, _, sketched = repeated
    for name in ("alpha", "beta"):
        for group in sketched.systems[name]["pooled"]:
            assert group["method"] == "ddsketch" and group["relative_accuracy"] == ALPHA
            column = _pooled_column(spec, group)
            for stat, q in (("median", 0.5), ("p90", 0.9), ("p99", 0.99)):
                assert _within_alpha_of_rank(group["latency_s"][stat], column, q)
    note = next(line for line in sketched.report.splitlines() if "Repetitions pooled" in line)
    assert "DDSketches merged on the client" in note and "±1.0% (relative)" in note


def test_one_run_per_load_pools_nothing(tmp_path):
    from .helpers import sweep_copy

    document = cmpc.build(sweep_copy(tmp_path), render=False).document
    assert all("pooled" not in s for s in document["systems"].values())


def test_pooling_does_not_depend_on_the_runs_order(repeated):
    from cmpc.compile import compile_source
    from cmpc.files import read_source

    spec, exact, sketched = repeated
    source, _ = read_source(str(spec))
    comparison = compile_source(source)[0]
    rng = np.random.default_rng(7)
    for built in (exact.built, sketched.built):
        runs, pools = built.data["alpha"].runs["p90"], built.data["alpha"].pools()
        assert len(pools) == len(runs) == 21  # each run's part, held once
        assert all(p.pool is None for p in runs)  # by the first statistic's points (median)
        reference = pooled_repetitions(comparison, runs, pools)
        assert reference == built.results["systems"]["alpha"]["pooled"]
        for _ in range(5):
            shuffled = [runs[i] for i in rng.permutation(len(runs))]
            assert pooled_repetitions(comparison, shuffled, pools) == reference


def test_results_are_byte_identical_for_any_worker_count(tmp_path):
    spec = repetitions_copy(tmp_path)
    local = tmp_path / "local"
    assert cli_build(spec, local, "--sketch", str(ALPHA)) == 0
    reference = (local / "results.json").read_bytes()
    assert json.loads(reference)["systems"]["alpha"]["pooled"]
    for workers in (1, 3):
        with ThreadPoolExecutor(max_workers=workers) as pool:
            got = cmpc.build(spec, sketch=ALPHA, executor=pool)
        assert got.files["results.json"].encode() == reference, workers


def test_the_runs_parts_come_back_from_the_cache(tmp_path):
    from cmpc.ingest.cache import _POINT_FIELDS, _point

    spec = repetitions_copy(tmp_path, seeds=(1, 2))
    cache = tmp_path / "cache"
    for alpha in (None, ALPHA):
        cold = cmpc.build(spec, render=False, cache=True, cache_dir=cache, sketch=alpha)
        warm = cmpc.build(spec, render=False, cache=True, cache_dir=cache, sketch=alpha)
        assert warm.document == cold.document and cold.systems["beta"]["pooled"]
    point = next(iter(warm.built.data["alpha"].runs["median"]))  # the first statistic
    row = json.loads(json.dumps([getattr(point, f) for f in _POINT_FIELDS]))  # as stored
    assert _point(row) == point and point.pool.startswith("ddsketch:")
    row[_POINT_FIELDS.index("pool")] = 7  # a tampered entry: not a packed part
    with pytest.raises(TypeError, match="`pool`"):
        _point(row)


def test_the_pooled_figures_the_report_shows_are_rows_of_figures_csv(repeated):
    _, exact, _ = repeated
    rows = {r["id"]: r for r in exact.rows("figures") if ".pooled." in r["id"]}
    assert len(rows) == 14  # two systems, seven loads
    row = rows["alpha.pooled.conc_1.p90"]
    group = exact.systems["alpha"]["pooled"][0]
    assert row["value"] == 1000.0 * group["latency_s"]["p90"] and row["unit"] == "ms"
    assert row["source"] == "; ".join(group["runs"])
    assert f"alpha (synthetic) at conc 1: {row['displayed']} ms" in exact.report


def test_pooled_results_follow_the_results_schema(repeated):
    from tests.test_build import validate_results

    _, exact, sketched = repeated
    for built in (exact, sketched):
        validate_results(json.loads(built.files["results.json"]))
    broken = json.loads(exact.files["results.json"])
    broken["systems"]["alpha"]["pooled"][0]["values"] = "191"
    with pytest.raises(Exception, match="is not of type 'integer'"):
        validate_results(broken)
