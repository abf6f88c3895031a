"""The cache's writer thread: the same memos and entries, the same failures, as writing in turn."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from cmpc.cli import main
from cmpc.ingest import cache as cache_module
from cmpc.ingest import cachewrite
from cmpc.ingest.cache import Cache, sha256_of


def _blocked(writing: Cache) -> threading.Event:
    """An event the writer thread waits on before the jobs queued after this call."""
    go = threading.Event()
    assert isinstance(writing, cachewrite._Behind)
    writing.put_job(lambda: go.wait(30) or None)
    return go


def test_a_hash_read_while_the_file_was_racy_is_not_remembered_by_a_late_writer(
    tmp_path, monkeypatch
):
    """Settled is judged at the read, not seconds later when a queued write gets its turn."""
    cache = Cache(tmp_path / "c")
    cache.prepare()
    path = tmp_path / "run.json"
    path.write_bytes(b'{"a": 1}')
    st, digest = path.stat(), sha256_of(path)
    cache.remember_sha256(path, st, digest)
    assert cache.known_sha256(path) is None, "just written: could change unseen"
    real = time.time
    with cachewrite.behind(cache) as writing:
        go = _blocked(writing)
        writing.remember_sha256(path, st, digest)
        monkeypatch.setattr(cache_module.time, "time", lambda: real() + 10)  # the queue lags
        go.set()
    assert cache.known_sha256(path) is None


def test_a_settled_file_is_still_remembered_through_the_writer(tmp_path, monkeypatch):
    cache = Cache(tmp_path / "c")
    cache.prepare()
    path = tmp_path / "run.json"
    path.write_bytes(b'{"a": 1}')
    st, digest = path.stat(), sha256_of(path)
    real = time.time
    monkeypatch.setattr(cache_module.time, "time", lambda: real() + 10)
    with cachewrite.behind(cache) as writing:
        writing.remember_sha256(path, st, digest)
    assert cache.known_sha256(path) == digest


def test_a_write_that_raises_is_raised_by_behind_and_later_writes_drain(tmp_path):
    cache = Cache(tmp_path / "c")
    cache.prepare()
    ran: list[int] = []

    def broken() -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"), cachewrite.behind(cache) as writing:
        assert isinstance(writing, cachewrite._Behind)
        writing.put_job(broken)
        for n in range(cachewrite.PENDING * 2):  # more than fit: the thread keeps draining
            writing.put_job(lambda n=n: ran.append(n))
    assert ran == []


def test_a_build_whose_cache_write_raises_is_an_internal_error(
    sweep, tmp_path, monkeypatch, capsys
):
    """As before the writer thread: cli's one line and exit 2, not a thread's traceback and 0."""
    plain_store = Cache.store

    def store(self, folders, name, data):
        if folders[0] == "entries":
            raise RuntimeError("entries are broken")
        plain_store(self, folders, name, data)

    monkeypatch.setattr(Cache, "store", store)
    assert main(["build", str(sweep), "-o", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "cmpc: internal error: RuntimeError: entries are broken" in err
    assert "Traceback" not in err and "Exception in thread" not in err


def test_a_cold_build_with_no_thread_to_start_writes_in_turn(sweep, tmp_path, monkeypatch):
    """A pids cgroup or RLIMIT_NPROC: the same results and entries, written without a thread."""
    assert main(["build", str(sweep), "-o", str(tmp_path / "a"), "--no-cache", "--quiet"]) == 0

    def start(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", start)
    assert main(["build", str(sweep), "-o", str(tmp_path / "b"), "--quiet"]) == 0
    assert len(list((sweep.parent / ".cmpc-cache" / "entries").rglob("*.json"))) == 8
    assert (tmp_path / "a" / "results.json").read_bytes() == (
        tmp_path / "b" / "results.json"
    ).read_bytes()


def test_the_queue_holds_at_most_pending_writes(tmp_path):
    """A stalled disk makes the producer wait instead of holding every entry's bytes."""
    cache = Cache(tmp_path / "c")
    cache.prepare()
    with cachewrite.behind(cache) as writing:
        assert isinstance(writing, cachewrite._Behind)
        go = _blocked(writing)
        producer = threading.Thread(
            target=lambda: [writing.put_job(lambda: None) for _ in range(cachewrite.PENDING * 2)]
        )
        producer.start()
        for _ in range(500):  # bounded: 5 s at most for the producer to fill the queue
            if len(writing.jobs) >= cachewrite.PENDING:
                break
            time.sleep(0.01)
        time.sleep(0.05)
        assert len(writing.jobs) == cachewrite.PENDING and producer.is_alive()
        go.set()
        producer.join(30)
        assert not producer.is_alive()


def test_a_ctrl_c_while_waiting_for_the_writer_ends_the_process(tmp_path):
    """Shutdown does not wait on a stalled write after the join was interrupted (Python 3.13
    did, so a further Ctrl-C printed threading._shutdown's traceback; 3.11 never waits, so on
    3.11 only the daemon check below can fail)."""
    cache = Cache(tmp_path / "d")
    cache.prepare()
    with cachewrite.behind(cache) as writing:
        go = _blocked(writing)
        writers = [t for t in threading.enumerate() if t.name == "cmpc-cache-writes"]
        go.set()
    assert writers and all(t.daemon for t in writers), "a non-daemon writer holds up shutdown"
    script = (
        "import os, signal, sys, threading, time\n"
        "from pathlib import Path\n"
        "from cmpc.ingest import cachewrite\n"
        "from cmpc.ingest.cache import Cache\n"
        "cache = Cache(Path(sys.argv[1]))\n"
        "cache.prepare()\n"
        "ctrl_c = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))\n"
        "ctrl_c.daemon = True\n"
        "ctrl_c.start()\n"
        "with cachewrite.behind(cache) as writing:\n"
        "    writing.put_job(lambda: time.sleep(60))  # a stalled disk\n"
    )
    command = [sys.executable, "-c", script, str(tmp_path / "c")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=20)
    assert run.returncode != 0 and "KeyboardInterrupt" in run.stderr


def test_an_entry_is_hashed_and_written_by_the_thread_with_the_bytes_of_a_put_in_turn(
    sweep, tmp_path, monkeypatch
):
    """The caller encodes the body (it reads the points); the writer thread hashes it (hashlib
    releases the GIL) and writes the very entry a plain put writes."""
    from cmpc.ingest import reduce as ingest

    paths = sorted((sweep.parent / "data").rglob("*.jsonl"))
    task = ingest.Task(str(paths[0]), "r", "cmpc", (), "tpot", ("median", "p90"), resamples=50)
    reduced = ingest._reduce(task, lambda: "0" * 64)[0]
    key = cache_module.Key("0" * 64, "r", "cmpc", (), "tpot", ("median", "p90"))
    plain, behind = Cache(tmp_path / "plain"), Cache(tmp_path / "behind")
    assert plain.prepare() is None and behind.prepare() is None
    plain.put(key, reduced)
    hashed_on: list[str] = []
    real = cache_module.hashlib.sha256

    def sha256(data=b""):
        hashed_on.append(threading.current_thread().name)
        return real(data)

    monkeypatch.setattr(cache_module.hashlib, "sha256", sha256)
    with cachewrite.behind(behind) as writing:
        writing.put(key, reduced)
    assert hashed_on == ["cmpc-cache-writes"]
    entry = ("entries", key.digest()[:2], f"{key.digest()}.json")
    assert behind.root.joinpath(*entry).read_bytes() == plain.root.joinpath(*entry).read_bytes()
    assert behind.get(key) == reduced
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", "1000")  # the limit the caller saw is kept
    small = Cache(tmp_path / "small")
    assert small.prepare() is None
    with cachewrite.behind(small) as writing:
        writing.put(key, reduced)
    assert not small.root.joinpath(*entry).exists()
