"""Cache writes made by a thread of their own, so a cold build reduces the next file meanwhile.

Creating an entry's file and its folder, and checking a hashed file's stat again before its
hash is remembered, wait on the disk (1-3 ms a file on a busy machine, more than the
reduction's own CPU); a waiting thread holds no GIL. The entries' bodies are still made by the
caller, in order; their SHA-256 (hashlib releases the GIL too), headers and writes move to the
thread, at most PENDING queued, and `behind` returns once every one is done (an OSError, as
always, costs only speed; any other exception a write raises is raised by `behind`, as the
write itself would have). When no thread can be started, the writes are made in turn, as
without it.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import fields
from functools import partial
from pathlib import Path

from cmpc.ingest import cache as cache_module
from cmpc.ingest.cache import Cache, Key, Reduced

try:  # a cold build's entries: their packed rows' text checked in C (a fifth of translate's time)
    from cmpc._fastdraw import verbatim_ascii as _verbatim
except ImportError:  # not built: cache.py's own check
    _verbatim = cache_module._verbatim_bytes

_Job = Callable[[], None]
PENDING = 16  # jobs queued at most (an entry may be up to the record-size limit, 64 MiB)


class _Behind(Cache):
    """The cache, its writes queued for the writer thread (a plain subclass: a dataclass of
    its own would cost a millisecond of every cold build to define)."""

    plain: Cache
    memos: bool
    jobs: collections.deque[_Job | None]  # deque's append and popleft are thread-safe
    ready: threading.Semaphore  # released once per job queued (queue's import is 1 ms)
    room: threading.Semaphore  # PENDING slots, so a stalled disk does not hold every entry
    failure: list[BaseException]  # the first exception a job raised, re-raised by `behind`

    def __init__(self, plain: Cache, memos: bool) -> None:
        super().__init__(**{f.name: getattr(plain, f.name) for f in fields(plain)})
        object.__setattr__(self, "plain", plain)  # the cache the thread writes to
        object.__setattr__(self, "memos", memos)  # whether any hash memo was there at the start
        object.__setattr__(self, "jobs", collections.deque())
        object.__setattr__(self, "ready", threading.Semaphore(0))
        object.__setattr__(self, "room", threading.Semaphore(PENDING))
        object.__setattr__(self, "failure", [])

    def put_job(self, job: _Job | None) -> None:
        """Queue `job` for the writer thread (None: the last), waiting while PENDING are."""
        self.room.acquire()
        self.jobs.append(job)
        self.ready.release()

    def store(self, folders: tuple[str, ...], name: str, data: bytes) -> None:
        self.put_job(partial(self.plain.store, folders, name, data))

    def put(self, key: Key, reduced: Reduced) -> None:
        # the body in the caller's turn (it reads the points); its hash, header and write here
        body = cache_module._encoded_body(reduced, _verbatim)
        summary = cache_module._summary(reduced)
        limit = cache_module._entry_bytes()
        self.put_job(partial(self.plain.put_encoded, key, body, summary, limit))

    def remember_sha256(
        self, path: Path, st: os.stat_result, digest: str, read_at: float | None = None
    ) -> None:
        # the read ended just now: the thread may get to the job seconds later
        read_at = time.time() if read_at is None else read_at
        self.put_job(partial(self.plain.remember_sha256, path, st, digest, read_at))

    def known_sha256(self, path: Path, st: os.stat_result | None = None) -> str | None:
        # no memo then: none to find but the thread's own, made since (which only saves a hash)
        return super().known_sha256(path, st) if self.memos else None


@contextlib.contextmanager
def behind(cache: Cache) -> Iterator[Cache]:
    """`cache`, its writes made by a thread that has finished them all when the block ends."""
    writing = _Behind(cache, _holds_files(cache.root / "hashes"))
    # a daemon: `behind` joins it, but a Ctrl-C during that join ends the process, not a
    # shutdown waiting on the writes (Python 3.13 waits; a write cut short costs only speed)
    thread = threading.Thread(target=_work, args=(writing,), name="cmpc-cache-writes", daemon=True)
    try:
        thread.start()
        started = True
    except RuntimeError:  # no thread to be had (a pids cgroup, RLIMIT_NPROC): write in turn
        started = False
    if not started:
        yield cache
        return
    try:
        yield writing
    finally:
        writing.put_job(None)
        thread.join()
    if writing.failure:
        raise writing.failure[0]  # as the write itself would have raised, in the caller's turn


def _work(writing: _Behind) -> None:
    while writing.ready.acquire() and (job := writing.jobs.popleft()) is not None:
        writing.room.release()
        if not writing.failure:  # after a failure, only drained: no write the caller missed
            try:
                job()
            except BaseException as exc:  # re-raised in the caller's thread
                writing.failure.append(exc)
    writing.room.release()


def _holds_files(folder: Path) -> bool:
    """Whether the folder holds any entry (a missing or unreadable one holds none)."""
    try:
        with os.scandir(folder) as names:
            return any(True for _ in names)
    except OSError:
        return False
