"""Cache writes made by a thread of their own, so a cold build reduces the next file meanwhile.

Creating an entry's file and its folder, and checking a hashed file's stat again before its
hash is remembered, wait on the disk (1-3 ms a file on a busy machine, more than the
reduction's own CPU); a waiting thread holds no GIL. The entries' bytes are still made by the
caller, in order; only the writes move to the thread, and `behind` returns once every one is
done (or failed, which as always costs only speed).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from cmpc.ingest.cache import Cache

_Job = Callable[[], None]


@dataclass(frozen=True)
class _Behind(Cache):
    """The cache, its writes queued for the writer thread."""

    plain: Cache | None = None  # the cache the thread writes to
    memos: bool = True  # whether any file hash was remembered when the block began
    jobs: queue.SimpleQueue[_Job | None] = field(
        default_factory=queue.SimpleQueue, compare=False, repr=False
    )

    def store(self, folders: tuple[str, ...], name: str, data: bytes) -> None:
        assert self.plain is not None
        self.jobs.put(partial(self.plain.store, folders, name, data))

    def remember_sha256(self, path: Path, st: os.stat_result, digest: str) -> None:
        assert self.plain is not None
        self.jobs.put(partial(self.plain.remember_sha256, path, st, digest))

    def known_sha256(self, path: Path, st: os.stat_result | None = None) -> str | None:
        # no memo then: none to find but the thread's own, made since (which only saves a hash)
        return super().known_sha256(path, st) if self.memos else None


@contextlib.contextmanager
def behind(cache: Cache) -> Iterator[Cache]:
    """`cache`, its writes made by a thread that has finished them all when the block ends."""
    memos = _holds_files(cache.root / "hashes")
    writing = _Behind(cache.root, cache.lazy, plain=cache, memos=memos)
    thread = threading.Thread(target=_work, args=(writing.jobs,), name="cmpc-cache-writes")
    thread.start()
    try:
        yield writing
    finally:
        writing.jobs.put(None)
        thread.join()


def _work(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while (job := jobs.get()) is not None:
        job()


def _holds_files(folder: Path) -> bool:
    """Whether the folder holds any entry (a missing or unreadable one holds none)."""
    try:
        with os.scandir(folder) as names:
            return any(True for _ in names)
    except OSError:
        return False
