"""SHA-256 of a run file computed by the pass that reads it, so no byte is read twice."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import io
import os
import stat
import time
from collections.abc import Iterator
from typing import BinaryIO

BLOCK = 1 << 20  # bytes hashed at a time where the reader skipped ahead


class Held:
    """A file read whole ahead of its reader (ingest/readahead.py), with what that read saw."""

    def __init__(self, data: bytes, digest: str, st: os.stat_result, read_at: float):
        self.data = data
        self.digest = digest  # SHA-256 of `data`
        self.stat = st  # of the opened file, taken before its bytes were read
        self.read_at = read_at  # time.time() once they were


def read_ahead(path: str, limit: int) -> Held | None:
    """The bytes and SHA-256 of `path` from one read, if it is a regular file of at most
    `limit` bytes; else None (as on any OSError), and the reader reads it in its own pass.
    hashlib and the reads release the GIL: on a thread, this runs beside the reduction."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None  # a FIFO would block the thread; a large file is streamed
        blocks: list[bytes] = []
        total = 0
        while block := os.read(fd, max(st.st_size + 1 - total, 1 << 16)):
            blocks.append(block)
            total += len(block)
            if total > limit:
                return None  # grew past the bound while read
        data = blocks[0] if len(blocks) == 1 else b"".join(blocks)
        read_at = time.time()
    except OSError:
        return None
    finally:
        os.close(fd)
    return Held(data, hashlib.sha256(data).hexdigest(), st, read_at)


class Pass:
    """One file's reading pass: `digest` is the file's SHA-256 once a reader has closed it.

    With `held` (the file read ahead), the reader reads those bytes instead of the file."""

    def __init__(self, path: str, held: Held | None = None):
        self.path = path
        self.digest: str | None = None
        self.claimed = False
        self.read = 0  # bytes read from the file in all, by the reader and the hash together
        self.held = held


_CURRENT: contextvars.ContextVar[Pass | None] = contextvars.ContextVar("readpass", default=None)


@contextlib.contextmanager
def hashing(path: str, held: Held | None = None) -> Iterator[Pass]:
    """Hash `path` in the reading pass of the reader called inside this block; with `held`,
    the reader reads the bytes read ahead, whose hash is known."""
    token = _CURRENT.set(current := Pass(os.fspath(path), held))
    try:
        yield current
    finally:
        _CURRENT.reset(token)


def open_input(path: str, buffering: int = -1) -> BinaryIO:
    """`open(path, "rb")`; hashed on the way when a `hashing` block is open for this path."""
    current = _CURRENT.get()
    if current is None or current.claimed or current.path != os.fspath(path):
        return open(path, "rb", buffering=buffering)
    current.claimed = True
    if current.held is not None:
        return _HeldFile(current)  # in memory already: no buffer between
    size = buffering if buffering > 0 else io.DEFAULT_BUFFER_SIZE
    return io.BufferedReader(_HashingFile(path, current), buffer_size=size)


def head(path: str, size: int) -> bytes:
    """The first `size` bytes of `path` (from the bytes read ahead, when its pass holds them)."""
    current = _CURRENT.get()
    if current is not None and current.held is not None and current.path == os.fspath(path):
        return current.held.data[:size]
    with open(path, "rb") as handle:
        return handle.read(size)


class _HeldFile(io.BytesIO):
    """A pass's bytes read ahead, as a file: closing it gives the pass their digest."""

    def __init__(self, current: Pass):
        assert current.held is not None
        super().__init__(current.held.data)  # shares the bytes: they are never written to
        self._pass = current
        current.read = len(current.held.data)  # read once, ahead

    def close(self) -> None:
        if not self.closed and self._pass.held is not None:
            self._pass.digest = self._pass.held.digest
        super().close()


class _HashingFile(io.RawIOBase):
    """A raw file that hashes each byte as the reader first passes it; bytes the reader jumps
    over are hashed where it lands, and the rest at close, each read exactly once."""

    def __init__(self, path: str, current: Pass):
        super().__init__()
        self._file = io.FileIO(path, "rb")
        self._pass = current
        self._sha = hashlib.sha256()
        self._hashed = 0  # the file's first bytes already hashed
        self._failed = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._file.fileno()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def readinto(self, buffer) -> int:
        pos = self._file.tell()
        got = self._file.readinto(buffer) or 0
        self._pass.read += got
        if pos > self._hashed:
            self._catch_up(pos)
        if pos <= self._hashed < pos + got:
            with memoryview(buffer) as view:
                self._sha.update(view[self._hashed - pos : got])
            self._hashed = pos + got
        return got

    def _catch_up(self, end: int | None) -> None:
        """Hash the bytes from the hashed prefix up to `end` (None: the end of the file)."""
        fd = self._file.fileno()
        while end is None or self._hashed < end:
            want = BLOCK if end is None else min(BLOCK, end - self._hashed)
            block = os.pread(fd, want, self._hashed)
            if not block:
                if end is not None:
                    self._failed = True  # the file shrank under the reader: no digest
                return
            self._pass.read += len(block)
            self._sha.update(block)
            self._hashed += len(block)

    def close(self) -> None:
        if self.closed:
            return
        try:
            if not self._failed:
                self._catch_up(None)
                self._pass.digest = self._sha.hexdigest()
        except OSError:
            self._pass.digest = None
        finally:
            self._file.close()
            super().close()
