"""The read-ahead thread: the next files read and hashed beside the reduction, each byte read
once, and every result (hashes, points, diagnostics, memos) the reading pass's own."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from cmpc.ingest import cache as cache_module
from cmpc.ingest import readahead
from cmpc.ingest import reduce as ingest
from cmpc.ingest.cache import Cache
from cmpc.traces import readpass


def vllm_run(path: Path, seed: int, requests: int) -> Path:
    """A synthetic (seeded) vLLM `--save-detailed` file."""
    rng = np.random.default_rng(seed)
    ttfts = rng.gamma(2.0, 0.05, requests).round(6)
    itls = rng.gamma(4.0, 0.005, (requests, 40)).round(6)
    doc = {
        "backend": "vllm",
        "duration": 30.0,
        "completed": requests,
        "failed": 0,
        "request_throughput": requests / 30.0,
        "max_concurrency": requests,
        "input_lens": [512] * requests,
        "output_lens": [41] * requests,
        "ttfts": ttfts.tolist(),
        "itls": itls.tolist(),
        "latencies": (ttfts + itls.sum(axis=1)).tolist(),
        "errors": [""] * requests,
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def tasks(tmp_path: Path, count: int = 5) -> list[ingest.Task]:
    folder = tmp_path / "runs"
    folder.mkdir(parents=True)
    paths = [vllm_run(folder / f"conc-{i:02d}.json", i, 4 * (i + 1)) for i in range(count)]
    return [
        ingest.Task(str(p), p.name, "vllm", (), "tpot", ("median", "p90"), resamples=50, seed=1)
        for p in paths
    ]


def sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_a_cold_reduction_reads_the_files_after_the_first_ahead_with_the_same_results(
    tmp_path, monkeypatch
):
    todo = tasks(tmp_path)
    alone = [ingest.reduce_file(t) for t in todo]  # no read-ahead: each file in its own pass
    read: list[str] = []
    real = readpass.read_ahead

    def spy(path: str, limit: int):
        read.append(path)
        assert threading.current_thread().name == "cmpc-read-ahead"
        return real(path, limit)

    passes: list[readpass.Pass] = []
    real_hashing = readpass.hashing

    def hashing(path, held=None):
        with real_hashing(path, held) as current:
            passes.append(current)
            yield current

    monkeypatch.setattr(readpass, "read_ahead", spy)
    monkeypatch.setattr(ingest.readpass, "hashing", readpass.contextlib.contextmanager(hashing))
    done = ingest.reduce_all(todo)
    assert read == [t.path for t in todo[1:]], "each file after the first, in order, once"
    assert done == alone, "hashes, points and diagnostics as the file's own pass gives them"
    assert [d.sha256 for d in done] == [sha256(t.path) for t in todo]
    assert [p.held is not None for p in passes] == [False] + [True] * (len(todo) - 1)
    for current, task in zip(passes[1:], todo[1:], strict=True):
        assert current.read == os.path.getsize(task.path), "each byte read once"
    assert not any(t.name == "cmpc-read-ahead" for t in threading.enumerate())


def test_the_read_ahead_remembers_the_hash_by_the_stat_taken_before_its_read(tmp_path, monkeypatch):
    todo = tasks(tmp_path, 3)
    cache = Cache(tmp_path / "cache")
    assert cache.prepare() is None
    later = time.time() + 10  # the files have settled: their hashes may be remembered
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(readpass.time, "time", lambda: later)
    ingest.reduce_all(todo, cache=cache)
    assert [cache.known_sha256(Path(t.path)) for t in todo] == [sha256(t.path) for t in todo]


def test_a_file_changed_after_it_was_read_ahead_is_reduced_and_hashed_as_read_not_remembered(
    tmp_path, monkeypatch
):
    todo = tasks(tmp_path, 2)
    changed = todo[1].path
    original = Path(changed).read_bytes()
    real = readpass.read_ahead

    def then_changed(path: str, limit: int):
        held = real(path, limit)
        vllm_run(Path(path), 99, 3)  # rewritten once read: the reduction must not mix the two
        return held

    cache = Cache(tmp_path / "cache")
    assert cache.prepare() is None
    later = time.time() + 10
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(readpass, "read_ahead", then_changed)
    done = ingest.reduce_all(todo, cache=cache)
    assert done[1].sha256 == hashlib.sha256(original).hexdigest()
    assert done[1].reduced.points["p90"][0].fields["max_concurrency"] == 8  # as read: 8 requests
    assert cache.known_sha256(Path(changed)) is None, "its stat changed since the read"


def test_what_is_not_read_ahead_is_read_in_the_readers_own_pass(tmp_path, monkeypatch):
    todo = tasks(tmp_path, 3)
    fifo = tmp_path / "runs" / "fifo.json"
    os.mkfifo(fifo)
    assert readpass.read_ahead(str(fifo), readahead.LIMIT) is None, "a FIFO would block"
    assert readpass.read_ahead(str(tmp_path / "missing.json"), readahead.LIMIT) is None
    assert readpass.read_ahead(todo[1].path, 10) is None, "past the limit: streamed"
    monkeypatch.setattr(readahead, "LIMIT", 10)
    assert ingest.reduce_all(todo) == [ingest.reduce_file(t) for t in todo]
    gone = tasks(tmp_path / "b", 2)
    Path(gone[1].path).unlink()
    done = ingest.reduce_all(gone)
    assert done[1].sha256 == "" and [d.code for d in done[1].diagnostics] == ["E300"]


def test_without_a_thread_every_file_is_read_in_its_own_pass(tmp_path, monkeypatch):
    todo = tasks(tmp_path, 3)

    def refused(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(readahead.threading.Thread, "start", refused)
    monkeypatch.setattr(readpass, "read_ahead", lambda *a: pytest.fail("no thread, no read"))
    assert ingest.reduce_all(todo) == [ingest.reduce_file(t) for t in todo]


def test_a_warm_reduction_reads_nothing_ahead(tmp_path, monkeypatch):
    todo = tasks(tmp_path, 3)
    cache = Cache(tmp_path / "cache")
    assert cache.prepare() is None
    first = ingest.reduce_all(todo, cache=cache)
    monkeypatch.setattr(readpass, "read_ahead", lambda *a: pytest.fail("read ahead when warm"))
    again = ingest.reduce_all(todo, cache=cache)
    assert [d.reduced for d in again] == [d.reduced for d in first]
