"""The forked child that reduces part of a cold reduction: the same results, entries and
diagnostics as one process, and a child that fails, dies or is not possible costs nothing."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from cmpc.cli import main
from cmpc.ingest import cache as cache_module
from cmpc.ingest import reduce as ingest
from cmpc.ingest import split
from cmpc.ingest.cache import Cache
from cmpc.traces import readpass

from .test_readahead import tasks

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")


@pytest.fixture
def forking(monkeypatch):
    """Every default reduction of 4+ files forks its child; the children forked are counted."""
    monkeypatch.setattr(ingest, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(split, "possible", lambda: True)
    started: list[split.Child | None] = []
    real = split.start

    def start(work):
        child = real(work)
        started.append(child)
        return child

    monkeypatch.setattr(split, "start", start)
    return started


def _children() -> set[int]:
    """This process's children, unreaped ones included (Linux's /proc)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as listed:
            found.update(int(pid) for pid in listed.read().split())
    return found


_EARLIER: set[int] = set()


@pytest.fixture(autouse=True)
def _earlier_children():
    """The children alive before each test: an earlier test's (tests/api/test_cluster.py leaves
    multiprocessing's resource tracker running), which no fork of this module made."""
    _EARLIER.clear()
    _EARLIER.update(_children())


def no_children_left() -> bool:
    """No child of this process but those alive before the test: every fork was reaped."""
    return _children() <= _EARLIER


def test_a_child_returns_what_its_work_returned_even_past_a_pipes_buffer():
    big = os.urandom(3 << 20)  # far past the 64 KiB a pipe holds: the parent reads it all
    child = split.start(lambda: {"pid": os.getpid(), "bytes": big})
    assert child is not None
    found = child.result()
    assert found["bytes"] == big
    assert found["pid"] != os.getpid()
    assert no_children_left()


@pytest.mark.parametrize(
    "work",
    [
        lambda: 1 / 0,  # an exception
        lambda: os._exit(0),  # exits "well" having sent nothing
        lambda: os.kill(os.getpid(), signal.SIGKILL),  # killed, e.g. by the OOM killer
        lambda: threading.Lock(),  # a result that cannot be pickled
    ],
    ids=["raises", "sends-nothing", "killed", "unpicklable"],
)
def test_a_child_that_fails_or_dies_gives_none_and_is_reaped(work):
    child = split.start(work)
    assert child is not None
    assert child.result() is None
    assert no_children_left()


def test_a_stopped_child_is_killed_and_reaped():
    child = split.start(lambda: threading.Event().wait(60))
    assert child is not None
    child.stop()
    assert no_children_left()


def test_no_fork_beside_another_thread_off_linux_or_without_a_free_core(monkeypatch):
    earlier = threading.active_count() - 1  # threads an earlier test left (test_cluster's dask)
    counted = threading.active_count
    monkeypatch.setattr(split.threading, "active_count", lambda: counted() - earlier)
    monkeypatch.setattr(split.sys, "platform", "linux")
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(split.os, "getloadavg", lambda: (0.9, 0.9, 0.9))
    assert split.possible()
    monkeypatch.setattr(split.os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert not split.possible()  # two cores, both likely busy
    monkeypatch.setattr(split.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0}, raising=False)
    assert not split.possible()  # one core
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(split.sys, "platform", "darwin")
    assert not split.possible()
    monkeypatch.setattr(split.sys, "platform", "linux")
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not split.possible()  # a fork would copy only this thread, and its locks
    finally:
        stop.set()
        other.join()
    assert split.possible()


def test_a_split_reduction_equals_one_process_with_and_without_a_cache(
    tmp_path, forking, monkeypatch
):
    todo = tasks(tmp_path, count=7)
    alone = ingest.reduce_all(todo, workers=1)  # asked for one worker: never forks
    assert forking == []
    assert ingest.reduce_all(todo) == alone
    assert len(forking) == 1 and forking[0] is not None
    cache = Cache(tmp_path / "cache")
    assert cache.prepare() is None
    later = time.time() + 10  # the files have settled: their hashes may be remembered
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(readpass.time, "time", lambda: later)
    cold = ingest.reduce_all(todo, cache=cache)
    assert [cache.known_sha256(Path(t.path)) for t in todo] == [d.sha256 for d in alone]
    assert len(forking) == 2
    assert [d.reduced for d in cold] == [d.reduced for d in alone]
    assert [d.sha256 for d in cold] == [d.sha256 for d in alone]
    assert not any(d.cached for d in cold)
    # the child's entries (and hash memos) are on disk: every file hits, none is read again
    warm = ingest.reduce_all(todo, cache=cache)
    assert all(d.cached for d in warm)
    assert [d.reduced for d in warm] == [d.reduced for d in alone]
    assert len(forking) == 2  # a warm reduction has nothing to split
    assert no_children_left()


def test_the_child_takes_about_half_the_bytes_and_this_process_the_rest(tmp_path, forking):
    todo = tasks(tmp_path, count=8)
    theirs = ingest._child_share(todo)
    sizes = {t: Path(t.path).stat().st_size for t in todo}
    mine = [t for t in todo if t not in theirs]
    assert theirs and mine
    assert abs(sum(map(sizes.get, theirs)) - sum(map(sizes.get, mine))) <= max(sizes.values())


def test_too_few_or_too_small_files_are_not_split(tmp_path, monkeypatch):
    todo = tasks(tmp_path, count=6)
    monkeypatch.setattr(split, "possible", lambda: True)
    assert ingest._child_share(todo[:6]) == []  # a few kB: below SPLIT_MIN_BYTES
    monkeypatch.setattr(ingest, "SPLIT_MIN_BYTES", 0)
    assert ingest._child_share(todo[:3]) == []  # below SPLIT_MIN_FILES
    assert ingest._child_share(todo) != []


def test_a_failing_child_leaves_its_files_to_this_process_with_the_same_results(
    tmp_path, forking, monkeypatch
):
    todo = tasks(tmp_path, count=6)
    alone = ingest.reduce_all(todo, workers=1)
    parent = os.getpid()
    real = ingest.reduce_file

    def reduce_file(task, cache=None, held=None):
        if os.getpid() != parent:
            raise MemoryError("the child ran out")  # the child dies; this process goes on
        return real(task, cache, held)

    monkeypatch.setattr(ingest, "reduce_file", reduce_file)
    seen: list[tuple[int, int]] = []
    assert ingest.reduce_all(todo, progress=lambda n, total: seen.append((n, total))) == alone
    assert forking and forking[0] is not None
    assert seen[-1] == (6, 6)
    assert [n for n, _ in seen] == sorted(n for n, _ in seen)
    assert no_children_left()


def test_an_interrupted_reduction_kills_and_reaps_its_child(tmp_path, forking, monkeypatch):
    todo = tasks(tmp_path, count=6)
    parent = os.getpid()
    real = ingest.reduce_file

    def reduce_file(task, cache=None, held=None):
        if os.getpid() == parent:
            raise KeyboardInterrupt  # Ctrl-C while this process reduces its share
        threading.Event().wait(60)  # the child would take a minute
        return real(task, cache, held)

    monkeypatch.setattr(ingest, "reduce_file", reduce_file)
    with pytest.raises(KeyboardInterrupt):
        ingest.reduce_all(todo)
    assert forking and forking[0] is not None
    assert no_children_left()


def outputs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_cold_build_split_across_two_processes_writes_the_same_bytes(
    sweep, tmp_path, forking, monkeypatch
):
    """The fixture's 8 files with intervals on: every output byte as one process writes it, and
    the entries and hash memos the child made serve the next build, which reads no file."""
    (sweep.parent / "intervals.cmp").write_text(
        sweep.read_text().replace("sensitivity", "uncertainty { resamples 200 }\n  sensitivity")
    )
    spec = sweep.parent / "intervals.cmp"
    monkeypatch.setattr(split, "possible", lambda: False)
    assert main(["build", str(spec), "-o", str(tmp_path / "one"), "--no-cache", "--quiet"]) == 0
    assert forking == []
    monkeypatch.setattr(split, "possible", lambda: True)
    later = time.time() + 10  # the files have settled: their hashes are remembered
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(readpass.time, "time", lambda: later)
    assert main(["build", str(spec), "-o", str(tmp_path / "two"), "--quiet"]) == 0
    assert len(forking) == 1 and forking[0] is not None
    assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
    assert len(list((sweep.parent / ".cmpc-cache" / "entries").rglob("*.json"))) == 8
    monkeypatch.setattr(split, "start", lambda work: pytest.fail("a warm build forked"))
    assert main(["build", str(spec), "-o", str(tmp_path / "warm"), "--quiet"]) == 0
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "one")


def test_a_fork_leaves_objects_a_program_froze_frozen_and_freezes_none_of_its_own():
    import gc

    assert gc.get_freeze_count() == 0
    child = split.start(lambda: 1)
    assert child is not None and child.result() == 1
    assert gc.get_freeze_count() == 0, "what the fork froze is unfrozen after it"
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        child = split.start(lambda: 2)
        assert child is not None and child.result() == 2
        assert gc.get_freeze_count() > frozen // 2  # not unfrozen (objects freed since leave it)
    finally:
        gc.unfreeze()


def test_no_child_when_the_fork_fails(monkeypatch):
    def fork():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(split.os, "fork", fork)
    assert split.start(lambda: 1) is None
