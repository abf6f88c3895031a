"""The cache of reduced runs and parallel ingest: same bytes out as a serial, uncached build."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from concurrent import futures
from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.cli import main
from cmpc.ingest import cache as cache_module
from cmpc.ingest import reduce as ingest
from cmpc.ingest.cache import LAYOUT, Cache, Key, Reduced, code_fingerprint, sha256_of


def results(spec: Path, out: Path, *sets: str, **kw) -> bytes:
    outcome = build_spec(str(spec), out_dir=str(out), sets=list(sets), render=False, **kw)
    assert outcome.code == 0, outcome.diagnostics
    return (out / "results.json").read_bytes()


def serial_uncached(spec: Path, out: Path, monkeypatch, *sets: str) -> bytes:
    with monkeypatch.context() as m:
        m.setattr(ingest, "_workers", lambda: 1)
        return results(spec, out, *sets, use_cache=False)


def entries(spec: Path) -> list[Path]:
    return sorted((spec.parent / ".cmpc-cache" / "entries").rglob("*.json"))


def test_cached_and_parallel_builds_equal_a_serial_uncached_build(sweep, monkeypatch):
    tmp = sweep.parent
    reference = serial_uncached(sweep, tmp / "serial", monkeypatch)
    monkeypatch.setattr(ingest, "_workers", lambda: 2)
    monkeypatch.setattr(ingest, "POOL_MIN_BYTES", 0)  # these small files, in a pool all the same
    assert results(sweep, tmp / "parallel", use_cache=False) == reference
    assert results(sweep, tmp / "cold", use_cache=True) == reference
    assert len(entries(sweep)) == 8
    assert results(sweep, tmp / "warm", use_cache=True) == reference
    price = "system.beta.price=2.10 USD/gpu/h"
    assert results(sweep, tmp / "set", price, use_cache=True) == serial_uncached(
        sweep, tmp / "set-serial", monkeypatch, price
    )
    assert len(entries(sweep)) == 8, "a price is not part of any key"


def test_serial_in_process_reduction_equals_the_full_summary(sweep):
    from cmpc.ingest.points import run_point
    from cmpc.ingest.pooling import exact_part
    from cmpc.metrics import per_request, summarize
    from cmpc.traces import load_runs

    path = sweep.parent / "data" / "alpha" / "conc-16.jsonl"
    stats = ("median", "p90", "p99")
    for metric in ("tpot", "chunk_gap", "ttft"):
        task = ingest.Task(str(path), "data/alpha/conc-16.jsonl", "cmpc", (), metric, stats)
        (run,), _ = load_runs(str(path), format="cmpc")
        full = summarize(run, percentiles=("90", "99"))
        reduced, problems = ingest._reduce(task)
        assert problems == []
        # the run's values packed for pooling (sorted, except per-token chunk gaps: None),
        # kept once, on the first statistic's point
        pool = exact_part(per_request(run).get(metric), metric)
        assert (pool is None) == (metric == "chunk_gap")
        for stat in stats:
            kept = pool if stat == stats[0] else None
            point = dataclasses.replace(run_point(full, metric, stat, task.rel), pool=kept)
            assert reduced.points[stat] == (point,)


def test_parallel_results_come_back_in_task_order(sweep):
    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths + paths[:2]]
    serial = ingest.reduce_all(tasks, workers=1)
    parallel = ingest.reduce_all(tasks, workers=2)
    assert [d.reduced for d in parallel] == [d.reduced for d in serial]
    assert [d.sha256 for d in serial] == [sha256_of(p) for p in paths + paths[:2]]


def test_small_files_are_reduced_without_starting_a_pool(sweep, monkeypatch):
    started = []

    class Recorded(futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            started.append(kwargs["max_workers"])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(futures, "ProcessPoolExecutor", Recorded)  # reduce reads it at a pool
    monkeypatch.setattr(ingest, "_workers", lambda: 2)
    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths]
    assert sum(p.stat().st_size for p in paths) < ingest.POOL_MIN_BYTES
    serial = ingest.reduce_all(tasks)
    assert started == []
    monkeypatch.setattr(ingest, "POOL_MIN_BYTES", sum(p.stat().st_size for p in paths))
    assert ingest.reduce_all(tasks) == serial
    assert started == [2]


def test_each_part_of_the_key_changes_the_entry(sweep):
    base = Key("0" * 64, "data/a.jsonl", "cmpc", (("tp", "8"),), "tpot", ("p90",))
    variants = [
        dataclasses.replace(base, sha256="1" * 64),
        dataclasses.replace(base, path="data/b.jsonl"),
        dataclasses.replace(base, format=None),
        dataclasses.replace(base, where=(("tp", "4"),)),
        dataclasses.replace(base, metric="ttft"),
        dataclasses.replace(base, statistics=("p90", "p99")),
        dataclasses.replace(base, method="nearest"),
        dataclasses.replace(base, limits=(("p99", "ttft"),)),
        dataclasses.replace(base, bootstrap=("percentile", 2000, 1)),
        dataclasses.replace(base, bootstrap=("bca", 2000, 1)),
        dataclasses.replace(base, bootstrap=("percentile", 1000, 1)),
        dataclasses.replace(base, bootstrap=("percentile", 2000, 2)),
    ]
    digests = {base.digest(), *(v.digest() for v in variants)}
    assert len(digests) == len(variants) + 1
    assert dataclasses.replace(base).digest() == base.digest()
    assert base.to_json()["cmpc"] and len(base.to_json()["code"]) == 64


def test_hits_and_misses(sweep):
    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    cache = Cache(sweep.parent / "c")
    assert cache.prepare() is None
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths]
    assert not any(d.cached for d in ingest.reduce_all(tasks, cache=cache))
    assert all(d.cached for d in ingest.reduce_all(tasks, cache=cache))
    other = [dataclasses.replace(t, statistics=("p99",)) for t in tasks]
    assert not any(d.cached for d in ingest.reduce_all(other, cache=cache))
    # a changed file is a new content hash, so a miss
    paths[0].write_text(paths[0].read_text().replace('"tp": 8', '"tp": 8, "note": "x"'))
    again = ingest.reduce_all(tasks, cache=cache)
    assert [d.cached for d in again] == [False] + [True] * (len(paths) - 1)
    assert again[0].sha256 == sha256_of(paths[0])


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-10],  # truncated
        lambda b: b.replace(b"[", b"{", 1)[:40] + b"\n" + b"x" * 10,  # garbage
        lambda b: b.rsplit(b"\n", 1)[0] + b"\n" + b.rsplit(b"\n", 1)[1].replace(b"1", b"2"),
        lambda b: b"",
    ],
    ids=["truncated", "garbage", "payload-edited", "empty"],
)
def test_a_corrupt_entry_is_rebuilt(sweep, monkeypatch, damage):
    tmp = sweep.parent
    reference = serial_uncached(sweep, tmp / "serial", monkeypatch)
    results(sweep, tmp / "cold", use_cache=True)
    for entry in entries(sweep):
        entry.write_bytes(damage(entry.read_bytes()))
    assert results(sweep, tmp / "rebuilt", use_cache=True) == reference
    cache = Cache(tmp / ".cmpc-cache")
    for entry in entries(sweep):
        header = json.loads(entry.read_bytes().partition(b"\n")[0])
        assert header["key"]["layout"] == LAYOUT  # rewritten whole
    paths = sorted((tmp / "data").rglob("*.jsonl"))
    task = ingest.Task(str(paths[0]), "x", "cmpc", (), "tpot", ("p90",))
    assert ingest.reduce_file(task, cache).cached is False
    assert ingest.reduce_file(task, cache).cached is True


def test_an_entry_stored_under_another_key_is_not_used(sweep):
    cache = Cache(sweep.parent / "c")
    cache.prepare()
    key = Key("0" * 64, "a", "cmpc", (), "tpot", ("p90",))
    cache.put(key, Reduced("cmpc", 0, {"p90": ()}))
    other = dataclasses.replace(key, path="b")
    cache._entry(other).parent.mkdir(exist_ok=True)
    cache._entry(other).write_bytes(cache._entry(key).read_bytes())
    assert cache.get(key) == Reduced("cmpc", 0, {"p90": ()})
    assert cache.get(other) is None


def test_file_hashes_are_remembered_only_for_settled_files(tmp_path, monkeypatch):
    import time

    from cmpc.ingest import cache as cache_module

    cache = Cache(tmp_path / "c")
    cache.prepare()
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"one")
    assert cache.file_sha256(path) == sha256_of(path)
    assert list((cache.root / "hashes").iterdir()) == [], "just written: could change unseen"
    later = time.time() + 10
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    first = cache.file_sha256(path)
    assert len(list((cache.root / "hashes").iterdir())) == 1
    with monkeypatch.context() as m:
        m.setattr(cache_module, "sha256_of", lambda p: pytest.fail("re-hashed a settled file"))
        assert cache.file_sha256(path) == first
    stat = path.stat()
    path.write_bytes(b"two")  # same size, mtime put back: the ctime still moves on
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache.file_sha256(path) == sha256_of(path) != first


def test_cli_uses_the_cache_by_default_and_not_with_no_cache(sweep, tmp_path, capsys):
    assert main(["build", str(sweep), "-o", str(tmp_path / "a"), "--no-cache", "--quiet"]) == 0
    assert not (sweep.parent / ".cmpc-cache").exists()
    assert main(["build", str(sweep), "-o", str(tmp_path / "b")]) == 0
    assert len(entries(sweep)) == 8
    assert (tmp_path / "a" / "results.json").read_bytes() == (
        tmp_path / "b" / "results.json"
    ).read_bytes()
    assert "reading runs" not in capsys.readouterr().err  # stderr is not a terminal here


def test_cache_dir_from_the_environment(sweep, tmp_path, monkeypatch):
    monkeypatch.setenv("CMPC_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert main(["build", str(sweep), "-o", str(tmp_path / "out")]) == 0
    assert not (sweep.parent / ".cmpc-cache").exists()
    assert len(list((tmp_path / "elsewhere" / "entries").rglob("*.json"))) == 8
    assert main(["cache", "clear"]) == 0
    assert not (tmp_path / "elsewhere").exists()


def test_cache_clear(sweep, tmp_path, capsys):
    assert main(["build", str(sweep), "-o", str(tmp_path / "out")]) == 0
    assert (sweep.parent / ".cmpc-cache").is_dir()
    assert main(["cache", "clear", str(sweep.parent)]) == 0
    assert not (sweep.parent / ".cmpc-cache").exists()
    assert main(["cache", "clear", str(sweep.parent)]) == 0, "nothing to clear is fine"
    capsys.readouterr()


def test_cache_clear_refuses_a_folder_it_did_not_create(tmp_path, monkeypatch, capsys):
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    monkeypatch.setenv("CMPC_CACHE_DIR", str(precious))
    assert main(["cache", "clear"]) == 1
    assert "E702" in capsys.readouterr().err
    assert (precious / "notes.txt").read_text() == "keep me"


def test_an_unwritable_cache_warns_and_builds_the_same(sweep, tmp_path, monkeypatch):
    reference = serial_uncached(sweep, tmp_path / "serial", monkeypatch)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("CMPC_CACHE_DIR", str(blocker / "cache"))
    outcome = build_spec(str(sweep), out_dir=str(tmp_path / "o"), render=False, use_cache=True)
    assert [d.code for d in outcome.diagnostics] == ["W701"]
    assert outcome.code == 0
    assert (tmp_path / "o" / "results.json").read_bytes() == reference


def test_progress_reports_every_file(sweep, tmp_path):
    seen = []
    build_spec(
        str(sweep),
        out_dir=str(tmp_path / "o"),
        render=False,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen[0] == (0, 8) and seen[-1] == (8, 8)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_concurrent_builds_share_one_cache_safely(sweep, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "CMPC_CACHE_DIR"}

    def start(out: str, *flags: str) -> subprocess.Popen:
        argv = [sys.executable, "-m", "cmpc.cli", "build", str(sweep), "-o", str(tmp_path / out)]
        return subprocess.Popen([*argv, *flags], stderr=subprocess.PIPE, env=env)

    for _round in range(2):  # cold then warm, two builds at once each time
        procs = [start("p1"), start("p2"), start("serial", "--no-cache")]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err.decode()
        reference = (tmp_path / "serial" / "results.json").read_bytes()
        for n in ("p1", "p2"):
            assert (tmp_path / n / "results.json").read_bytes() == reference
    cache = Cache(sweep.parent / ".cmpc-cache")
    assert len(entries(sweep)) == 8
    code_fingerprint.cache_clear()  # the sources as the builds just saw them
    for entry in entries(sweep):
        key = Key(**{k: v for k, v in _key_fields(entry).items()})
        stored = json.loads(entry.read_bytes().partition(b"\n")[0])["key"]
        assert stored == key.to_json()
        assert cache.get(key) is not None
    left = [p for p in (sweep.parent / ".cmpc-cache").rglob(".*") if p.name != ".gitignore"]
    assert not left, "no temp file left"


def _key_fields(entry: Path) -> dict:
    key = json.loads(entry.read_bytes().partition(b"\n")[0])["key"]
    return {
        "sha256": key["sha256"],
        "path": key["path"],
        "format": key["format"],
        "where": tuple(tuple(p) for p in key["where"]),
        "metric": key["metric"],
        "statistics": tuple(key["statistics"]),
        "method": key["method"],
        "slos": tuple(tuple(p) for p in key["slos"]),
        "limits": tuple(tuple(p) for p in key["limits"]),
        "bootstrap": tuple(key["bootstrap"]),
    }


def test_any_executor_gives_the_same_reductions(sweep):
    from concurrent.futures import ThreadPoolExecutor

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths]
    with ThreadPoolExecutor(2) as executor:  # stands in for a Dask client's get_executor()
        spread = ingest.reduce_all(tasks, executor=executor)
    assert spread == ingest.reduce_all(tasks, workers=1)


def test_progress_bar_draws_after_its_delay_and_clears_its_line(capsys, monkeypatch):
    from cmpc import cli

    monkeypatch.setattr(cli._ProgressBar, "DELAY_S", 0.0)
    bar = cli._ProgressBar()
    bar(3, 12)
    assert "3/12 files" in capsys.readouterr().err
    bar(12, 12)
    assert capsys.readouterr().err == "\r\x1b[K"
    quiet = cli._ProgressBar()  # a build that ends within the delay never draws
    monkeypatch.setattr(cli._ProgressBar, "DELAY_S", 60.0)
    quiet(1, 2)
    quiet(2, 2)
    assert capsys.readouterr().err == ""


def test_cache_clear_takes_the_spec_itself(sweep, tmp_path):
    assert main(["build", str(sweep), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    assert main(["cache", "clear", str(sweep)]) == 0
    assert not (sweep.parent / ".cmpc-cache").exists()


@pytest.mark.parametrize("checker", ["python", "c"])
def test_an_entry_body_is_jsons_canonical_text_byte_for_byte(sweep, checker):
    """The packed replicates are copied into the body unescaped: the bytes are still exactly
    json's, even when a stored string looks like the splice's marks or needs escaping; with
    cachewrite's check in C (a cold build's writer) as with cache.py's own."""
    from cmpc.ingest import cachewrite
    from cmpc.ingest.cache import _canonical, _encode, _verbatim_bytes

    verbatim = _verbatim_bytes if checker == "python" else cachewrite._verbatim
    if checker == "c":
        assert verbatim is not _verbatim_bytes  # the C module is built: its check is used
        with pytest.raises(TypeError):
            verbatim(b"bytes")  # type: ignore[arg-type]

    def _encoded_body(r: Reduced) -> bytes:
        return cache_module._encoded_body(r, verbatim)

    for c in range(0x3000):  # what is spliced is exactly what json writes unchanged
        plain = json.dumps(chr(c) * 300) == f'"{chr(c) * 300}"'
        assert (_verbatim_bytes(chr(c) * 300) is not None) == plain, c
        text = "ab" + chr(c) * 3 + "cd"
        assert verbatim(text) == _verbatim_bytes(text), c

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    task = ingest.Task(str(paths[0]), "r", "cmpc", (), "tpot", ("median", "p90"), resamples=200)
    reduced = ingest._reduce(task, lambda: "0" * 64)[0]
    point = reduced.points["p90"][0]
    assert point.resampled and len(point.resampled) >= cache_module.SPLICED  # spliced, then
    tricky = [
        "\x000",  # written by json as a mark is
        '"\\u00001"',
        "x" * 300 + '"',  # long but escaped: json writes it
        "é" * 300,
        "\x7f" * 300,
    ]
    for label in ["plain", *tricky]:
        fields = {**point.fields, "label": label}
        changed = dataclasses.replace(point, fields=fields, label=label)
        r = dataclasses.replace(reduced, points={**reduced.points, "p90": (changed,)})
        assert _encoded_body(r) == _canonical(_encode(r)), label
    cache = Cache(sweep.parent / "c")
    assert cache.prepare() is None
    key = Key("0" * 64, "r", "cmpc", (), "tpot", ("median", "p90"))
    cache.put(key, reduced)
    assert cache.get(key) == reduced


def test_a_files_shared_quantiles_are_encoded_once_and_exactly(sweep, monkeypatch):
    """The points of one run hold copies of one dict of CDF quantiles: the body encodes it once
    and copies it in, and the bytes stay json's canonical text whatever the floats are."""
    from cmpc.ingest.cache import _canonical, _encode, _encoded_body

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    task = ingest.Task(str(paths[0]), "r", "cmpc", (), "tpot", ("median", "p90", "p99"))
    reduced = ingest._reduce(task)[0]
    shared = reduced.points["median"][0].quantiles
    assert shared and all(reduced.points[s][0].quantiles == shared for s in ("p90", "p99"))
    encoded: list[object] = []
    real = cache_module._canonical
    monkeypatch.setattr(cache_module, "_canonical", lambda doc: encoded.append(doc) or real(doc))
    assert _encoded_body(reduced) == real(_encode(reduced))
    assert sum(doc == shared for doc in encoded) == 1, "one encoding for the run's three points"
    odd = {"ttft": (-0.0, 5e-324, 1e308, float("nan"), float("inf")), "\x000": (1.0,), "é": ()}
    for quantiles in (odd, {}, {"tpot": ()}):
        points = {
            stat: tuple(dataclasses.replace(p, quantiles=quantiles) for p in points)
            for stat, points in reduced.points.items()
        }
        r = dataclasses.replace(reduced, points=points)
        assert _encoded_body(r) == _canonical(_encode(r)), quantiles
    apart = {  # equal dicts, not one: each encoded, the same bytes
        stat: tuple(dataclasses.replace(p, quantiles=dict(odd)) for p in points)
        for stat, points in reduced.points.items()
    }
    r = dataclasses.replace(reduced, points=apart)
    assert _encoded_body(r) == _canonical(_encode(r))


def test_a_cold_reduction_looks_up_no_file_and_a_warm_one_each_once(sweep, monkeypatch):
    """A cache with no entry cannot hit and one with no hash memo knows no hash: a cold
    reduction looks up neither, before reading or after; with memos but no entries, each
    file's hash once."""
    import shutil

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    cache = Cache(sweep.parent / "c")
    assert cache.prepare() is None
    looked: list[Path] = []
    known = Cache.known_sha256
    monkeypatch.setattr(Cache, "known_sha256", lambda self, p, st=None: (
        looked.append(p), known(self, p, st))[1])  # fmt: skip
    monkeypatch.setattr(cache_module, "RACY_SECONDS", -10.0)  # the files count as settled
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths]
    gets: list[Key] = []
    get = Cache.get
    monkeypatch.setattr(Cache, "get", lambda self, key: (gets.append(key), get(self, key))[1])
    cold = ingest.reduce_all(tasks, cache=cache)
    assert not any(d.cached for d in cold) and looked == [] and gets == []
    assert all(d.cached for d in ingest.reduce_all(tasks, cache=cache))
    assert sorted(looked) == sorted(paths)  # probed, hit by the remembered hash: read no file
    looked.clear()
    shutil.rmtree(cache.root / "entries")
    again = ingest.reduce_all(tasks, cache=cache)
    assert sorted(looked) == sorted(paths)  # the memos' hashes seed the same replicates
    assert [d.sha256 for d in again] == [d.sha256 for d in cold]
    assert [d.reduced for d in again] == [d.reduced for d in cold]


def test_a_serial_reduction_writes_its_entries_from_a_thread_done_when_it_returns(
    sweep, monkeypatch
):
    """The writes wait on the disk in a thread of their own; every entry and hash memo is on
    disk when reduce_all returns, and a second reduction hits them all."""
    import threading

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    cache = Cache(sweep.parent / "c")
    assert cache.prepare() is None
    writers: list[str] = []
    store = Cache.store

    def recorded(self, folders, name, data):
        writers.append(threading.current_thread().name)
        store(self, folders, name, data)

    monkeypatch.setattr(Cache, "store", recorded)
    monkeypatch.setattr(cache_module, "RACY_SECONDS", -10.0)  # the files count as settled
    tasks = [ingest.Task(str(p), p.name, "cmpc", (), "tpot", ("p90",)) for p in paths]
    assert not any(d.cached for d in ingest.reduce_all(tasks, cache=cache))
    assert len(writers) == 2 * len(paths)  # an entry and a hash memo per file
    assert set(writers) == {"cmpc-cache-writes"}
    assert not [t for t in threading.enumerate() if t.name == "cmpc-cache-writes"]  # joined
    assert len(list((cache.root / "entries").rglob("*.json"))) == len(paths)
    assert all(d.cached for d in ingest.reduce_all(tasks, cache=cache))


def test_a_runs_cdf_quantiles_are_computed_once_for_all_its_statistics(sweep, monkeypatch):
    """Each statistic's point carries the run's CDF quantiles, the same for each: computed
    once per run, and equal to each point made on its own."""
    from cmpc.ingest import points as points_module
    from cmpc.metrics import summarize
    from cmpc.traces import load_runs

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    stats = ("median", "p90", "p99")
    made: list[object] = []
    cdf = points_module.cdf_quantiles
    monkeypatch.setattr(ingest, "cdf_quantiles", lambda m: (made.append(m), cdf(m))[1])
    task = ingest.Task(str(paths[0]), "r", "cmpc", (), "tpot", stats)
    runs, _ = load_runs(task.path, format="cmpc")
    reduced = ingest.reduce_runs(runs, task)
    assert len(made) == len(runs) == 1
    metrics = summarize(load_runs(task.path, format="cmpc")[0][0], percentiles=("90", "99"))
    for stat in stats:
        alone = points_module.run_point(metrics, "tpot", stat, "r")
        assert alone.quantiles and reduced[stat][0].quantiles == alone.quantiles
