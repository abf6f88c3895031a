"""The next run files read and hashed on a thread of their own while the current one is reduced.

A cold build hashes every byte it reads (SHA-256 keys the cache and seeds the replicates): on
a sweep of small files that hash and the reads are a tenth of the reduction, and both release
the GIL. So a thread reads each file whole, one read, and hashes it, at most DEPTH files ahead
of the reduction (their bytes are all it holds); the reader then parses those bytes
(`readpass.Held`), each byte still read once. A file past LIMIT bytes, or one that is not a
regular file, is left to the reader's own pass, as is every file when no thread can be had.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from cmpc.traces import readpass

LIMIT = 4 << 20  # bytes of a file read ahead at most (larger ones are streamed by the reader)
DEPTH = 1  # files read ahead of the one being reduced


class ReadAhead:
    """`take(i)`: the `i`-th path's bytes and hash (or None: read it in the reader's pass).

    Paths are taken in order, each once; `close` stops the thread (it finishes its read)."""

    def __init__(self, paths: Sequence[str]):
        self._paths = list(paths)
        self._held: dict[int, readpass.Held | None] = {}
        self._taken = 0  # paths handed out so far
        self._stop = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._work, name="cmpc-read-ahead", daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had (a pids cgroup, RLIMIT_NPROC)
            self._stop = True
            self._held = dict.fromkeys(range(len(self._paths)))

    def _work(self) -> None:
        for i, path in enumerate(self._paths):
            with self._changed:
                while not self._stop and i > self._taken + DEPTH - 1:
                    self._changed.wait()
                if self._stop:
                    return
            try:
                held = readpass.read_ahead(path, LIMIT)
            except Exception:  # e.g. MemoryError: the reader's own pass reads it (and says why)
                held = None
            with self._changed:
                self._held[i] = held
                self._changed.notify_all()

    def take(self, i: int) -> readpass.Held | None:
        """The bytes read ahead for path `i` (taken in order), waiting for them if need be."""
        with self._changed:
            self._taken = i + 1
            self._changed.notify_all()
            while i not in self._held and not self._stop:
                self._changed.wait()
            return self._held.pop(i, None)

    def close(self) -> None:
        with self._changed:
            self._stop = True
            self._held.clear()
            self._changed.notify_all()
        if self._thread.is_alive():
            self._thread.join()
