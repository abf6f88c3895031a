"""The forked child that reduces part of a cold reduction: the same results, entries and
diagnostics as one process, and a child that fails, dies or is not possible costs nothing."""

from __future__ import annotations

import contextlib
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

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task"), reason="the fork is Linux-only, as are its checks here"
)


class Forked(list):
    """The children forked (None: a fork refused), and what each child's `result()` gave."""

    results: list[object]

    def sent(self) -> bool:
        """Whether every child forked sent its result whole."""
        return bool(self) and None not in self and None not in self.results


@pytest.fixture
def forking(monkeypatch) -> Forked:
    """Every default reduction of 4+ files forks its child; the children are recorded."""
    monkeypatch.setattr(ingest, "SPLIT_MIN_BYTES", 0)
    monkeypatch.setattr(split, "possible", lambda: True)
    started = Forked()
    started.results = []
    real_start, real_result = split.start, split.Child.result

    def start(work):
        child = real_start(work)
        started.append(child)
        return child

    def result(self):
        found = real_result(self)
        started.results.append(found)
        return found

    monkeypatch.setattr(split, "start", start)
    monkeypatch.setattr(split.Child, "result", result)
    return started


def _children() -> set[int]:
    """This process's children, unreaped ones included (Linux's /proc)."""
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        # a thread just joined may leave /proc between the listing and the read
        with (
            contextlib.suppress(FileNotFoundError, ProcessLookupError),
            open(f"/proc/self/task/{task}/children") as listed,
        ):
            found.update(int(pid) for pid in listed.read().split())
    return found


_EARLIER: set[int] = set()


@pytest.fixture(autouse=True)
def _earlier_children():
    """The children alive before each test (tests/api/test_cluster.py leaves one running)."""
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
    monkeypatch.setattr(split.sys, "platform", "linux")
    monkeypatch.setattr(split, "_threads", lambda: 1)
    monkeypatch.setattr(split, "_quota", lambda: 1 << 30)
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(split.os, "getloadavg", lambda: (0.9, 0.9, 0.9))
    assert split.possible()
    monkeypatch.setattr(split.os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert not split.possible()  # two cores, both likely busy
    monkeypatch.setattr(split.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0}, raising=False)
    assert not split.possible()  # one core
    monkeypatch.setattr(split.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(split, "_quota", lambda: 1)
    assert not split.possible()  # two cores seen, a quota of one CPU
    monkeypatch.setattr(split, "_quota", lambda: 1 << 30)
    monkeypatch.setattr(split, "_threads", lambda: 2)
    assert not split.possible()  # a fork would copy only this thread, and its locks
    monkeypatch.setattr(split, "_threads", lambda: 1)
    monkeypatch.setattr(split.sys, "platform", "darwin")
    assert not split.possible()
    monkeypatch.setattr(split.sys, "platform", "linux")
    monkeypatch.setattr(split.signal, "getsignal", lambda _: signal.SIG_IGN)
    assert not split.possible()  # SIGCHLD ignored: the kernel reaps the child
    monkeypatch.undo()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux's /proc")
def test_threads_are_counted_native_ones_included():
    import _thread

    before = split._threads()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    native = threading.Event()
    _thread.start_new_thread(native.wait, ())  # invisible to threading.active_count()
    try:
        deadline = time.monotonic() + 10
        while split._threads() < before + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert split._threads() == before + 2
    finally:
        stop.set()
        native.set()
        other.join()


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("max 100000\n", 1 << 30), ("150000 100000\n", 1), ("200000 100000\n", 2), ("x\n", 1 << 30)],
)
def test_the_cgroups_cpu_quota_is_read_in_whole_cpus(tmp_path, text, cpus):
    (tmp_path / "cpu.max").write_text(text)
    assert split._quota(str(tmp_path / "cpu.max")) == cpus
    assert split._quota(str(tmp_path / "none")) == 1 << 30


def test_a_split_reduction_equals_one_process_with_and_without_a_cache(
    tmp_path, forking, monkeypatch
):
    todo = tasks(tmp_path, count=7)
    alone = ingest.reduce_all(todo, workers=1)  # asked for one worker: never forks
    assert forking == []
    assert ingest.reduce_all(todo) == alone
    assert len(forking) == 1 and forking.sent()
    cache = Cache(tmp_path / "cache")
    assert cache.prepare() is None
    later = time.time() + 10  # the files have settled: their hashes may be remembered
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(readpass.time, "time", lambda: later)
    cold = ingest.reduce_all(todo, cache=cache)
    assert [cache.known_sha256(Path(t.path)) for t in todo] == [d.sha256 for d in alone]
    assert len(forking) == 2 and forking.sent()
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
    assert forking and forking[0] is not None and forking.results == [None]
    # each file is told once as this process reduces it, its own share then the child's
    assert [n for n, _ in seen] == [0, 1, 2, 3, 4, 5, 6, 6]
    assert {total for _, total in seen} == {6}
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
    assert len(forking) == 1 and forking.sent()
    assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
    assert len(list((sweep.parent / ".cmpc-cache" / "entries").rglob("*.json"))) == 8
    monkeypatch.setattr(split, "start", lambda work: pytest.fail("a warm build forked"))
    assert main(["build", str(spec), "-o", str(tmp_path / "warm"), "--quiet"]) == 0
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "one")


def test_the_child_freezes_what_it_inherited_and_this_process_freezes_nothing():
    import gc

    before = gc.get_freeze_count()
    child = split.start(gc.get_freeze_count)
    assert child is not None
    assert child.result() > before + 1000  # the parent's objects: out of the child's collector
    assert gc.get_freeze_count() == before


def test_no_child_when_the_fork_fails(monkeypatch):
    def fork():
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(split.os, "fork", fork)
    assert split.start(lambda: 1) is None


def test_an_interrupt_while_waiting_for_the_child_stops_and_reaps_it(
    tmp_path, forking, monkeypatch
):
    todo = tasks(tmp_path, count=6)
    parent = os.getpid()
    real = ingest.reduce_file

    def reduce_file(task, cache=None, held=None):
        if os.getpid() != parent:
            threading.Event().wait(60)  # the child would take a minute
        return real(task, cache, held)

    def interrupted(self):
        raise KeyboardInterrupt  # Ctrl-C (or a supervisor's SIGINT) while the parent waits

    monkeypatch.setattr(ingest, "reduce_file", reduce_file)
    monkeypatch.setattr(split.Child, "result", interrupted)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        ingest.reduce_all(todo)
    assert forking and forking[0] is not None
    assert no_children_left()
    assert time.monotonic() - started < 30, "the child was stopped, not waited for"


def test_a_stopped_child_finishes_its_queued_cache_writes(tmp_path):
    """SIGINT first: the child's writer thread drains, so no temporary file is left behind."""
    written = tmp_path / "written"
    ready = tmp_path / "ready"

    def work():
        try:
            ready.write_text("")
            threading.Event().wait(60)
        finally:  # what cachewrite.behind's exit does on the interrupt: finish the writes
            written.write_text("done")

    child = split.start(work)
    assert child is not None
    deadline = time.monotonic() + 10
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    child.stop()
    assert written.read_text() == "done"
    assert no_children_left()


def test_a_reaped_child_is_never_signalled(monkeypatch):
    child = split.start(lambda: 1)
    assert child is not None and child.result() == 1
    monkeypatch.setattr(split.os, "kill", lambda *a: pytest.fail("signalled a reaped pid"))
    child.stop()


def test_a_child_whose_exit_cannot_be_waited_for_still_counts_if_it_sent_its_result(monkeypatch):
    child = split.start(lambda: [1, 2])
    assert child is not None

    def waitpid(pid, options):
        raise ChildProcessError(10, "No child processes")  # reaped by someone else

    monkeypatch.setattr(split.os, "waitpid", waitpid)
    assert child.result() == [1, 2]
    monkeypatch.undo()
    os.waitpid(-1, 0)  # the zombie this test's waitpid left
    assert no_children_left()


def test_a_pool_that_broke_leaves_its_files_to_this_process_alone(tmp_path, forking, monkeypatch):
    """After a pool's worker died (e.g. of memory), the rest is reduced one file at a time."""
    todo = tasks(tmp_path, count=6)
    alone = ingest.reduce_all(todo, workers=1)

    class Broken:
        def __init__(self, **kwargs):
            pass

        def submit(self, *args, **kwargs):
            raise ingest.futures.BrokenExecutor("a worker died")

        def shutdown(self, **kwargs):
            pass

    ingest.lazy.load("concurrent.futures")
    monkeypatch.setattr(ingest, "_local_workers", lambda todo: 2)
    monkeypatch.setattr(ingest.futures, "ProcessPoolExecutor", Broken)
    assert ingest.reduce_all(todo) == alone
    assert forking == []
