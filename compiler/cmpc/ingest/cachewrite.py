"""Cache writes made by a thread of their own, so a cold build reduces the next file meanwhile.

Creating an entry's file and its folder waits on the disk (1-3 ms a file on a busy machine,
more than the reduction's own CPU); a waiting thread holds no GIL. The entries' bytes are still
made by the caller, in order; only `Cache.store` moves to the thread, and `behind` returns once
every write is done (or failed, which as always costs only speed).
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from cmpc.ingest.cache import Cache

_Job = tuple[tuple[str, ...], str, bytes]


@dataclass(frozen=True)
class _Behind(Cache):
    """The cache, its writes queued for the writer thread."""

    jobs: queue.SimpleQueue[_Job | None] = field(
        default_factory=queue.SimpleQueue, compare=False, repr=False
    )

    def store(self, folders: tuple[str, ...], name: str, data: bytes) -> None:
        self.jobs.put((folders, name, data))


@contextlib.contextmanager
def behind(cache: Cache) -> Iterator[Cache]:
    """`cache`, its writes made by a thread that has finished them all when the block ends."""
    writing = _Behind(cache.root, cache.lazy)
    thread = threading.Thread(target=_write, args=(cache, writing.jobs), name="cmpc-cache-writes")
    thread.start()
    try:
        yield writing
    finally:
        writing.jobs.put(None)
        thread.join()


def _write(cache: Cache, jobs: queue.SimpleQueue[_Job | None]) -> None:
    while (job := jobs.get()) is not None:
        cache.store(*job)
