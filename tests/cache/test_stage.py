"""The analysis stage: a warm `--set` of a price equals a cold build with that price, byte for byte.

A build with the cache records the analysis' price-free steps (cmpc.analysis.stage) under
stages/; a rebuild with another price or utilization finds them there, decodes no run point and
loads no numpy. Damaged or foreign stages and entries are misses, never a crash.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cmpc.analysis import stage
from cmpc.build.pipeline import build_spec
from cmpc.ingest import cache as ingest_cache
from cmpc.ingest import cachefs
from cmpc.ingest.cachestage import ENTRIES, FOLDER
from tests.loaded import modules_loaded

REPO = Path(__file__).resolve().parents[2]
SHOWCASE = sorted(p.name for p in (REPO / "specs").glob("*.cmp"))


def _build(spec: Path, out: Path, cache: Path | None, *sets: str) -> dict[str, bytes]:
    outcome = build_spec(
        str(spec),
        out_dir=str(out),
        sets=list(sets),
        use_cache=cache is not None,
        cache_dir=str(cache) if cache else None,
    )
    assert outcome.code == 0, outcome.diagnostics
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _price_sets(results: dict) -> list[list[str]]:
    """A new price for the first priced system, and a new utilization (both price-like)."""
    priced = [s["name"] for s in results["ir"]["systems"] if s["prices"]]
    sets = [["cost.utilization=55%"]]
    if priced:
        sets.append([f"system.{priced[0]}.price=1.23 USD/gpu/h"])
    return sets


def _cold_then_warm(spec: Path, tmp: Path, sets: list[str]) -> tuple[dict, dict]:
    """A warm build with `sets` after a cold one, and a cold build with `sets` in a new cache."""
    cache = tmp / "cache"
    _build(spec, tmp / "cold", cache)
    warm = _build(spec, tmp / "warm", cache, *sets)
    fresh = _build(spec, tmp / "fresh", tmp / "fresh-cache", *sets)
    return warm, fresh


@pytest.fixture
def showcase(tmp_path: Path, monkeypatch) -> Path:
    """A copy of specs/ (the specs and their data); the builds run from its folder."""
    monkeypatch.delenv("CMPC_CACHE_DIR", raising=False)
    shutil.copytree(REPO / "specs", tmp_path / "specs")
    monkeypatch.chdir(tmp_path / "specs")  # reports name the spec from the working folder
    return tmp_path / "specs"


@pytest.mark.parametrize("name", SHOWCASE)
def test_a_warm_price_rebuild_equals_a_cold_build_of_every_showcase_spec(showcase, name):
    spec = showcase / name
    results = json.loads(_build(spec, showcase.parent / "probe", None)["results.json"])
    for i, sets in enumerate(_price_sets(results)):
        warm, fresh = _cold_then_warm(spec, showcase.parent / f"round{i}", sets)
        assert warm.keys() == fresh.keys()
        for file in warm:
            assert warm[file] == fresh[file], (name, sets, file)


def _bench_sweep(root: Path) -> Path:
    """The benchmark's sweep (benchmarks/build.py, seeded, labelled synthetic), 2x10^4 tokens."""
    source = importlib.util.spec_from_file_location("bench_build", REPO / "benchmarks" / "build.py")
    assert source is not None and source.loader is not None
    bench = importlib.util.module_from_spec(source)
    sys.modules.setdefault("bench_build", bench)  # its pool's workers find its functions
    source.loader.exec_module(sys.modules["bench_build"])
    bench = sys.modules["bench_build"]
    bench.generate(root, 20_000)
    return root / "vllm.cmp"


def test_the_benchmark_sweep_rebuilds_warm_from_the_stage_alone(tmp_path, monkeypatch):
    """Same bytes as a cold build with the price, and not one run point decoded on the way."""
    monkeypatch.delenv("CMPC_CACHE_DIR", raising=False)
    spec = _bench_sweep(tmp_path / "sweep")
    monkeypatch.chdir(spec.parent)
    cache = tmp_path / "cache"
    _build(spec, tmp_path / "cold", cache)
    assert list((cache / FOLDER).glob("*.json")), "the cold build stored its stage"

    def decoded(self):
        raise AssertionError("a warm rebuild decoded a cached run")

    price = "system.beta.price=2.40 USD/gpu/h"
    with monkeypatch.context() as m:
        m.setattr(ingest_cache.LazyPoints, "_decoded", decoded)
        warm = _build(spec, tmp_path / "warm", cache, price)
    fresh = _build(spec, tmp_path / "fresh", tmp_path / "fresh-cache", price)
    assert warm == fresh


def test_a_warm_rebuild_of_the_benchmark_sweep_never_loads_numpy(tmp_path, monkeypatch):
    spec = _bench_sweep(tmp_path / "sweep")
    monkeypatch.setenv("CMPC_CACHE_DIR", str(tmp_path / "cache"))
    cold = _loaded(spec, "-o", str(tmp_path / "cold"), settled=False)
    assert "numpy" in cold
    price = "system.beta.price=2.40 USD/gpu/h"
    assert "numpy" not in _loaded(spec, "-o", str(tmp_path / "warm"), "--set", price, settled=False)


def _loaded(spec: Path, *args: str, settled: bool = True) -> set[str]:
    args = ("build", str(spec), "--quiet", *args)
    code, modules = modules_loaded(*args, cwd=spec.parent, settled=settled)
    assert code == 0
    return modules


# What a warm hit never runs: the trace readers and the reduction's metrics, pooling, resampling
# and sketches (only a cache miss reads a file), the analysis steps the stage recalls, and the
# standard library only other paths use.
OFF_THE_WARM_PATH = (
    "numpy",
    "cmpc.traces",
    "cmpc.traces.jsonscan",
    "cmpc.traces.where",
    "cmpc.metrics",
    "cmpc.ingest.pooling",
    "cmpc.ingest.resample",
    "cmpc.ingest.sketch",
    "cmpc.analysis.run_disagreements",
    "cmpc.analysis.run_facts",
    "cmpc.analysis.slo_capacity",  # the sweep states no SLO
    "cmpc.compute.capacity",  # nor a capacity block
    "argparse",  # a plain build line is read without it (and gettext, locale)
    "gettext",
    "importlib.resources",  # the code fingerprints list the package's folder
    "zipfile",
    "secrets",  # the cache's temporary names are os.urandom's
    "datetime",  # the sweep's runs and prices state no date
    "shutil",  # the replaced outputs are removed by safefs.remove_tree
    "ctypes",  # and swapped by cmpc._fastswap
    "csv",  # figures.csv's lines are written by report.figures.csv_line
    "base64",  # the stored replicate ratios are read back with binascii
    "hashlib",  # small texts are hashed by cmpc.digests, without OpenSSL
    "_hashlib",
)


def test_a_warm_rebuild_imports_nothing_that_only_a_miss_or_the_analysis_uses(
    tmp_path, monkeypatch
):
    """Not only numpy: each module listed is fixed cost a warm `--set` of a price never uses."""
    spec = _bench_sweep(tmp_path / "sweep")
    monkeypatch.setenv("CMPC_CACHE_DIR", str(tmp_path / "cache"))

    cold = _loaded(spec, "-o", str(tmp_path / "cold"))
    assert {"cmpc.traces", "cmpc.metrics"} <= cold  # the list names what a miss runs
    price = "system.beta.price=2.40 USD/gpu/h"
    warm = _loaded(spec, "-o", str(tmp_path / "warm"), "--set", price)
    assert sorted(m for m in OFF_THE_WARM_PATH if m in warm) == []


def _blake2b(body: bytes) -> str:
    """The stage's checksum (docs/architecture.md), computed here."""
    return hashlib.blake2b(body, digest_size=32).hexdigest()


def _stage_files(cache: Path) -> list[Path]:
    return sorted((cache / FOLDER).glob("*.json"))


def _rewrite_stage(stored: Path, change: Callable[[dict[str, str]], dict[str, str]]) -> bytes:
    """The stage's steps replaced by `change(steps)` under a matching checksum (a stage that
    only its contents tell apart from a good one); returns the bytes written."""
    head, _, body = stored.read_bytes().partition(b"\n")
    new_body = json.dumps(change(json.loads(body))).encode()
    header = dict(json.loads(head), blake2b=_blake2b(new_body))
    text = json.dumps(header).encode() + b"\n" + new_body
    stored.write_bytes(text)
    return text


def _damaged(text: bytes) -> list[bytes]:
    """A stage made unusable each way it can be: bytes, header, layout, body, steps."""
    head, _, body = text.partition(b"\n")
    header = json.loads(head)
    steps = json.loads(body)
    wrong_shape = {k: json.dumps({"unexpected": 1}) for k in steps}
    wrong_layout = dict(header, layout=99)

    def rehashed(new_steps: dict) -> bytes:
        new_body = json.dumps(new_steps).encode()
        new_head = dict(header, blake2b=_blake2b(new_body))
        return json.dumps(new_head).encode() + b"\n" + new_body

    return [
        b"\x00garbage",
        text[: len(text) // 2],  # truncated
        json.dumps(wrong_layout).encode() + b"\n" + body,
        head + b"\n" + body.replace(b"1", b"2", 1),  # a flipped digit: the checksum fails
        rehashed(wrong_shape),  # well formed, checksummed, every step of the wrong shape
        rehashed({k: "[1, 2" for k in steps}),  # steps that are not JSON
        rehashed({k: "[" * 50_000 + "]" * 50_000 for k in steps}),  # nested past the stack
    ]


@pytest.fixture(params=["settled", "just written"])
def memos(request, monkeypatch) -> str:
    """Run files whose SHA-256 the stat memo remembers (a kept sweep's: the stage is found before
    any entry is read), or files too new to be remembered (found once the entries are read)."""
    if request.param == "settled":
        monkeypatch.setattr(ingest_cache, "RACY_SECONDS", -10.0)
    return request.param


def test_a_damaged_or_foreign_stage_is_a_miss_never_a_crash(sweep, tmp_path, monkeypatch, memos):
    monkeypatch.chdir(sweep.parent)
    cache = tmp_path / "cache"
    price = "system.beta.price=2.10 USD/gpu/h"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache", price)
    (stored,) = _stage_files(cache)
    original = stored.read_bytes()
    for i, bad in enumerate(_damaged(original)):
        stored.write_bytes(bad)
        assert _build(sweep, tmp_path / f"warm{i}", cache, price) == fresh, i
        stored.write_bytes(original)


def test_a_cached_entry_whose_points_do_not_decode_is_read_again(sweep, tmp_path, monkeypatch):
    """Its checksum matches but a point has the wrong type: found lazily, rebuilt eagerly."""
    monkeypatch.chdir(sweep.parent)
    cache = tmp_path / "cache"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache")
    entry = sorted((cache / "entries").rglob("*.json"))[0]
    head, _, body = entry.read_bytes().partition(b"\n")
    doc = json.loads(body)
    stat = next(iter(doc["points"]))
    doc["points"][stat][0][0] = 7  # `path` must be a string
    body = json.dumps(doc).encode()
    header = dict(json.loads(head), sha256=hashlib.sha256(body).hexdigest())
    entry.write_bytes(json.dumps(header).encode() + b"\n" + body)
    shutil.rmtree(cache / FOLDER)  # no stage: the analysis reads every point
    assert _build(sweep, tmp_path / "again", cache) == fresh


def test_a_stage_step_that_breaks_the_build_is_retried_without_the_stage(
    sweep, tmp_path, monkeypatch
):
    """A step of the right shape with a value that fails later (a foreign stage): no stage."""
    monkeypatch.chdir(sweep.parent)
    cache = tmp_path / "cache"
    price = "system.beta.price=2.10 USD/gpu/h"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache", price)
    (stored,) = _stage_files(cache)

    def foreign(steps: dict[str, str]) -> dict[str, str]:
        for key, text in steps.items():
            value = json.loads(text)
            if isinstance(value, dict) and "per_gpu" in value:  # a system's read
                steps[key] = json.dumps(dict(value, per_gpu="not a number"))
        return steps

    _rewrite_stage(stored, foreign)
    assert _build(sweep, tmp_path / "warm", cache, price) == fresh


def _entry_reads(monkeypatch) -> list[str]:
    """The cache entries a build opens from now on (`cachefs.read` in an `entries/` folder)."""
    opened: list[str] = []
    real = cachefs.read

    def read(dir_fd: int, name: str, limit: int) -> bytes:
        folder = Path(os.readlink(f"/proc/self/fd/{dir_fd}"))
        if folder.parent.name == "entries":
            opened.append(name)
        return real(dir_fd, name, limit)

    monkeypatch.setattr(cachefs, "read", read)
    return opened


def test_a_stage_hit_opens_no_cache_entry(sweep, tmp_path, monkeypatch):
    """The stage is keyed by the entries' keys (SHA-256 from the stat memo): a warm `--set` of
    a price reads the stage, not the 8 entries it summarizes; a stage miss reads them all."""
    monkeypatch.chdir(sweep.parent)
    monkeypatch.setattr(ingest_cache, "RACY_SECONDS", -10.0)  # the files count as settled
    cache = tmp_path / "cache"
    price = "system.beta.price=2.10 USD/gpu/h"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache", price)
    with monkeypatch.context() as m:
        opened = _entry_reads(m)
        warm = _build(sweep, tmp_path / "warm", cache, price)
    assert warm == fresh
    assert opened == []
    shutil.rmtree(cache / FOLDER)
    with monkeypatch.context() as m:
        opened = _entry_reads(m)
        assert _build(sweep, tmp_path / "unstaged", cache, price) == fresh
    assert len(opened) == len(list((cache / "entries").rglob("*.json"))) == 8


def test_a_step_the_stage_lacks_reads_its_entries_and_a_lost_entry_its_runs(
    sweep, tmp_path, monkeypatch
):
    """A stage that states the entries but not every step: the analysis opens the entries then
    (checked against the stage's summary); entries gone, it reads the run files again."""
    monkeypatch.chdir(sweep.parent)
    monkeypatch.setattr(ingest_cache, "RACY_SECONDS", -10.0)
    cache = tmp_path / "cache"
    price = "system.beta.price=2.10 USD/gpu/h"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache", price)
    (stored,) = _stage_files(cache)
    partial = _rewrite_stage(stored, lambda steps: {ENTRIES: steps[ENTRIES]})
    with monkeypatch.context() as m:
        opened = _entry_reads(m)
        assert _build(sweep, tmp_path / "partial", cache, price) == fresh
    assert opened  # the steps were computed from the entries' points
    stored.write_bytes(partial)
    shutil.rmtree(cache / "entries")
    assert _build(sweep, tmp_path / "lost", cache, price) == fresh


def test_a_stage_that_misstates_an_entry_is_not_used(sweep, tmp_path, monkeypatch, memos):
    """A stage whose summary of an entry differs from the entry (runs kept): once the entries
    are read the stage is a miss; when it is found first, the figures are its own, but the
    first entry a step opens must agree with it, else the build starts again without it."""
    monkeypatch.chdir(sweep.parent)
    cache = tmp_path / "cache"
    _build(sweep, tmp_path / "cold", cache)
    fresh = _build(sweep, tmp_path / "fresh", tmp_path / "fresh-cache")
    (stored,) = _stage_files(cache)

    def misstated(steps: dict[str, str]) -> dict[str, str]:
        entries = json.loads(steps[ENTRIES])
        for summary in entries.values():
            summary["runs"] += 1
        return {ENTRIES: json.dumps(entries)}  # every other step dropped

    _rewrite_stage(stored, misstated)
    assert _build(sweep, tmp_path / "warm", cache) == fresh


def _steps(spec: Path, *sets: str) -> dict[str, str]:
    """The steps a build records (no cache folder: a memo of this process only)."""
    from cmpc.analysis.results import analyze
    from cmpc.compile import compile_spec
    from cmpc.files import read_source
    from cmpc.ingest.load import load_data

    source, _ = read_source(str(spec))
    assert source is not None
    comparison = compile_spec(source, list(sets)).comparison
    assert comparison is not None
    data, _, _ = load_data(comparison, spec.resolve().parent)
    memo = stage.Memo()
    with stage.recording(memo):
        analyze(comparison, data)
    return memo.steps


PRICE_LIKE = (
    "cost.utilization=35%",
    "system.alpha.price=9.99 USD/gpu/h",
    "system.beta.price=0.10 USD/gpu/h",
    "cost.max_price_age=1 days",
)


@pytest.mark.parametrize("price", PRICE_LIKE)
def test_a_price_changes_no_recorded_step(sweep, price):
    """Every step is recorded under the same key with the same value at any price: the steps
    read no price-dependent field (what the key leaves out is what they do not read)."""
    assert _steps(sweep, price) == _steps(sweep)


def test_a_condition_that_is_not_a_price_changes_the_steps(sweep):
    base = _steps(sweep)
    for other in ("latency.statistic=p99", "tokens.count=output"):
        changed = _steps(sweep, other)
        assert changed.keys() != base.keys(), other


def _leaves(doc: object, path: tuple = ()):
    """(path, value) of every scalar in a JSON document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, (*path, i))
    else:
        yield path, doc


def _changed(doc: object, path: tuple) -> object:
    """A deep copy of `doc` with the scalar at `path` changed."""
    out = json.loads(json.dumps(doc))
    holder = out
    for step in path[:-1]:
        holder = holder[step]
    value = holder[path[-1]]
    if isinstance(value, bool):
        holder[path[-1]] = not value
    elif isinstance(value, int | float):
        holder[path[-1]] = value + 1
    elif isinstance(value, str):
        holder[path[-1]] = value + "x"
    else:
        holder[path[-1]] = 1
    return out


def _price_like(doc: dict, path: tuple) -> bool:
    """Independently of cmpc.analysis.stage: what only costing reads (docs/architecture.md)."""
    if path[0] == "cost":
        return True
    if path[0] == "systems" and path[2] in ("prices", "tco"):
        return True
    if path[0] == "sensitivity" and path[2] != "parameter":  # the axis' kind is not a price
        return doc["sensitivity"][path[1]]["parameter"] in ("price", "utilization")
    return path[:2] == ("fleet", "cost_cap_usd_per_million_tokens")


@pytest.mark.parametrize("name", ["mi355x-vs-b300.cmp", "synthetic-sweep.cmp"])
def test_the_key_changes_with_every_field_but_the_price_like_ones(name):
    """Each scalar of the IR changed in turn: the price-free digest moves unless it is a price."""
    from cmpc.compile import compile_spec
    from cmpc.files import read_source

    source, _ = read_source(str(REPO / "specs" / name))
    assert source is not None
    comparison = compile_spec(source, []).comparison
    assert comparison is not None
    doc = comparison.to_json()
    base = stage.canonical(stage.price_free(doc))
    seen = {True: 0, False: 0}
    for path, _ in _leaves(doc):
        moved = stage.canonical(stage.price_free(_changed(doc, path))) != base
        price = _price_like(doc, path)
        seen[price] += 1
        assert moved is not price, path
    assert seen[True] and seen[False]


def test_a_sensitivity_row_under_the_spec_s_own_price_free_conditions_reads_no_replicates(
    sweep, monkeypatch
):
    """The spec's own statistic, read and tokens (and each utilization) are the headline's
    price-free conditions: those rows recall the replicate reads the headline computed."""
    from cmpc.analysis import intervals
    from cmpc.compile import compile_spec
    from cmpc.files import read_source

    source, _ = read_source(str(sweep))
    assert source is not None
    own = compile_spec(source, []).comparison
    assert own is not None
    read: list[tuple[object, ...]] = []
    boot = intervals._boot

    def counted(comparison, data, systems, name):
        latency = comparison.latency
        read.append((latency.statistic, latency.read, comparison.tokens.count, name))
        return boot(comparison, data, systems, name)

    monkeypatch.setattr(intervals, "_boot", counted)
    _steps(sweep)
    mine = (own.latency.statistic, own.latency.read, own.tokens.count)
    assert read  # the other statistics', reads' and counts' rows read theirs
    assert [r for r in read if r[:3] == mine] == []
    assert len(read) == len(set(read))  # and each once


def test_a_variant_that_changes_only_the_cost_is_keyed_without_a_digest_of_its_own(monkeypatch):
    """A sensitivity row of utilization or price shares every field but `cost` with the spec:
    its key is the spec's (price_free drops the cost), found without turning it into JSON."""
    import dataclasses

    from cmpc.analysis import sensitivity
    from cmpc.compile import compile_spec
    from cmpc.files import read_source

    source, _ = read_source(str(REPO / "specs" / "synthetic-sweep.cmp"))
    assert source is not None
    spec = compile_spec(source, []).comparison
    assert spec is not None
    utilization = sensitivity._alternative(spec, "utilization", 0.4)
    cost_only = dataclasses.replace(spec, cost=dataclasses.replace(spec.cost, per_million="output"))
    statistic = sensitivity._alternative(spec, "statistic", "p99")
    digested = []
    digest = stage.price_free_digest
    monkeypatch.setattr(stage, "price_free_digest", lambda c: digested.append(c) or digest(c))
    memo = stage.Memo()
    keys = [memo.key("s", c, None) for c in (spec, utilization, cost_only, statistic)]
    assert digested == [spec, statistic]
    assert keys[0] == keys[1] == keys[2] != keys[3]
    assert keys == [
        stage.Memo().key("s", c, None) for c in (spec, utilization, cost_only, statistic)
    ]
