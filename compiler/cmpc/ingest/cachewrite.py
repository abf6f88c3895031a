"""Cache writes made by a thread of their own, so a cold build reduces the next file meanwhile.

Creating an entry's file and its folder, and checking a hashed file's stat again before its
hash is remembered, wait on the disk (1-3 ms a file on a busy machine, more than the
reduction's own CPU); a waiting thread holds no GIL. The entries' bytes are still made by the
caller, in order; only the writes move to the thread, and `behind` returns once every one is
done (or failed, which as always costs only speed).
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import fields
from functools import partial
from pathlib import Path

from cmpc.ingest.cache import Cache

_Job = Callable[[], None]


class _Behind(Cache):
    """The cache, its writes queued for the writer thread (a plain subclass: a dataclass of
    its own would cost a millisecond of every cold build to define)."""

    plain: Cache
    memos: bool
    jobs: collections.deque[_Job | None]  # deque's append and popleft are thread-safe
    ready: threading.Semaphore  # released once per job queued (queue's import is 1 ms)

    def __init__(self, plain: Cache, memos: bool) -> None:
        super().__init__(**{f.name: getattr(plain, f.name) for f in fields(plain)})
        object.__setattr__(self, "plain", plain)  # the cache the thread writes to
        object.__setattr__(self, "memos", memos)  # whether any hash memo was there at the start
        object.__setattr__(self, "jobs", collections.deque())
        object.__setattr__(self, "ready", threading.Semaphore(0))

    def put_job(self, job: _Job | None) -> None:
        """Queue `job` for the writer thread (None: the last)."""
        self.jobs.append(job)
        self.ready.release()

    def store(self, folders: tuple[str, ...], name: str, data: bytes) -> None:
        self.put_job(partial(self.plain.store, folders, name, data))

    def remember_sha256(self, path: Path, st: os.stat_result, digest: str) -> None:
        self.put_job(partial(self.plain.remember_sha256, path, st, digest))

    def known_sha256(self, path: Path, st: os.stat_result | None = None) -> str | None:
        # no memo then: none to find but the thread's own, made since (which only saves a hash)
        return super().known_sha256(path, st) if self.memos else None


@contextlib.contextmanager
def behind(cache: Cache) -> Iterator[Cache]:
    """`cache`, its writes made by a thread that has finished them all when the block ends."""
    writing = _Behind(cache, _holds_files(cache.root / "hashes"))
    thread = threading.Thread(target=_work, args=(writing,), name="cmpc-cache-writes")
    thread.start()
    try:
        yield writing
    finally:
        writing.put_job(None)
        thread.join()


def _work(writing: _Behind) -> None:
    while writing.ready.acquire() and (job := writing.jobs.popleft()) is not None:
        job()


def _holds_files(folder: Path) -> bool:
    """Whether the folder holds any entry (a missing or unreadable one holds none)."""
    try:
        with os.scandir(folder) as names:
            return any(True for _ in names)
    except OSError:
        return False
