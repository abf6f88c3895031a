"""Files under a cache folder, reached without following links: a committed cache is untrusted."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening relative to a folder's descriptor is what keeps a link swapped in for `entries/ab`
# from redirecting a read or a write; without it (Windows) the cache is not used.
# (os.replace takes the same dir_fd arguments as os.rename, which is the one listed.)
SUPPORTED = bool(_NOFOLLOW and _DIRECTORY) and {os.open, os.mkdir, os.rename} <= os.supports_dir_fd


class NotRegular(OSError):
    """A cache file that is a link, a device, a FIFO or a folder, or larger than its bound."""


@contextlib.contextmanager
def folder(root: Path, *names: str, create: bool = False) -> Iterator[int]:
    """A descriptor of `root/names...`; each name is entered only if it is a real folder."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for name in names:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = inner
        yield fd
    finally:
        os.close(fd)


def read(dir_fd: int, name: str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; NotRegular for anything else.

    O_NOFOLLOW refuses a link (to `/dev/zero`, `/etc/shadow`), O_NONBLOCK keeps a FIFO from
    hanging the open, and the type and size are those of what was opened.
    """
    flags = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (getattr(os, "ELOOP", None), getattr(os, "EMLINK", None)):
            raise NotRegular(exc.errno, "a symbolic link", name) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(0, "not a regular file", name)
        if info.st_size > limit:
            raise NotRegular(0, f"larger than {limit} bytes", name)
        data = handle.read(limit + 1)
    if len(data) > limit:  # grew since the fstat
        raise NotRegular(0, f"larger than {limit} bytes", name)
    return data


def write(dir_fd: int, name: str, data: bytes) -> None:
    """Replace `name` atomically: an exclusive new file beside it, then a rename over it."""
    temporary = f".{name}.{_token()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    fd = os.open(temporary, flags, 0o666, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise


def _token() -> str:
    """Eight random hex digits: the names' uniqueness, not a secret (secrets costs 2 ms)."""
    return os.urandom(4).hex()


def probe(dir_fd: int) -> None:
    """Create and remove a file of a name no other build uses: OSError if the folder refuses."""
    name = f".write-test.{_token()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    os.close(os.open(name, flags, 0o666, dir_fd=dir_fd))
    os.unlink(name, dir_fd=dir_fd)
