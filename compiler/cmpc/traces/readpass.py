"""SHA-256 of a run file computed by the pass that reads it, so no byte is read twice."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import io
import os
from collections.abc import Iterator
from typing import BinaryIO

BLOCK = 1 << 20  # bytes hashed at a time where the reader skipped ahead


class Pass:
    """One file's reading pass: `digest` is the file's SHA-256 once a reader has closed it."""

    def __init__(self, path: str):
        self.path = path
        self.digest: str | None = None
        self.claimed = False
        self.read = 0  # bytes read from the file in all, by the reader and the hash together


_CURRENT: contextvars.ContextVar[Pass | None] = contextvars.ContextVar("readpass", default=None)


@contextlib.contextmanager
def hashing(path: str) -> Iterator[Pass]:
    """Hash `path` in the reading pass of the reader called inside this block."""
    token = _CURRENT.set(current := Pass(os.fspath(path)))
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
    size = buffering if buffering > 0 else io.DEFAULT_BUFFER_SIZE
    return io.BufferedReader(_HashingFile(path, current), buffer_size=size)


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
