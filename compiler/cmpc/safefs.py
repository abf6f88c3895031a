"""Filesystem rules for untrusted trees: confined reads, exclusive writes, replaceable folders.

Every verb that reads a spec or writes a file goes through these functions.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from typing import TYPE_CHECKING

from cmpc import lazy

if TYPE_CHECKING:
    import pathlib
    import tempfile
    from pathlib import Path
else:  # only writes need them, and `cmpc check` writes nothing
    tempfile = lazy.module("tempfile")
    # with urllib.parse and ipaddress, a twentieth of `cmpc check`, whose reads take strings
    pathlib = lazy.module("pathlib")

# Written last into every output folder of a build; a folder holding it may be replaced whole.
OUTPUT_MARKER = ".cmpc-build"
# Pseudo-filesystems whose "regular" files are generated on read (`/proc/self/environ`).
PSEUDO_ROOTS = ("/proc", "/sys", "/dev")
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class Refused(Exception):
    """A file the rules do not let cmpc read or write; the message says why."""


def confined(path: str | Path, root: str | Path) -> Path:
    """The real path of `path`, refused when a link takes it out of the folder tree `root`."""
    return pathlib.Path(_confined(path, root))


def _confined(path: str | Path, root: str | Path) -> str:
    real, top = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath((real, top)) != top:  # both absolute and normalized
        raise Refused("it is a symbolic link that leads outside its folder")
    return real


def read_regular(path: str | Path, root: str | Path, limit: int) -> bytes:
    """At most `limit + 1` bytes of a regular file confined to `root`; FIFOs and devices unopened.

    Raises Refused for a file the rules forbid and OSError when it cannot be read.
    """
    real = _confined(path, root)
    for pseudo in PSEUDO_ROOTS:
        if real == pseudo or real.startswith(pseudo + "/"):
            raise Refused(f"it is a system file under {pseudo}/, not a spec")
    _require_regular(os.stat(real).st_mode)  # before opening: opening a device can act on it
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(real, flags)  # O_NONBLOCK: a FIFO swapped in meanwhile cannot hang the open
    with os.fdopen(fd, "rb") as handle:
        _require_regular(os.fstat(handle.fileno()).st_mode)  # what was opened, not what was named
        return handle.read(limit + 1)


def _require_regular(mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise Refused(f"it is {kind}, not a regular file")


def replace_file(path: Path, data: bytes) -> None:
    """Replace a regular file atomically through an exclusive temporary beside it, mode kept.

    A destination that is a symbolic link or not a regular file is refused (Refused).
    """
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise Refused("it is a symbolic link; rewrite the file it points to instead")
    _require_regular(info.st_mode)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".cmpc-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise


def create_file(path: Path, data: bytes) -> None:
    """Write a new file, never over an existing file or through a link (FileExistsError)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)  # the umask applies
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def new_folder(parent: Path, prefix: str) -> Path:
    """A new folder with a random name in `parent`, made exclusively, with the user's umask."""
    for _ in range(100):
        path = parent / f"{prefix}{os.urandom(4).hex()}"  # unique, not secret: no secrets
        try:
            path.mkdir(0o777)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"no free temporary name in {parent}")


_NOFOLLOW_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
TREE_DEPTH = 64  # a build's outputs are two folders deep; below this nothing is removed


def remove_tree(path: Path) -> None:
    """Remove a folder and what it holds, as far as it can (shutil.rmtree's ignore_errors).

    As shutil's does, it walks by descriptors, never following a link: a folder swapped for a
    link meanwhile is unlinked, not entered. (shutil, with the compressors it imports, is 2 ms
    of every rebuild's start, which removes the outputs it replaced.)
    """
    try:
        fd = os.open(path, _NOFOLLOW_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # gone, or a link or a file (which shutil.rmtree leaves too)
    try:
        _empty(fd, TREE_DEPTH)
    finally:
        os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def _empty(dir_fd: int, depth: int) -> None:
    """Remove what the folder open at `dir_fd` holds, `depth` folders down at most."""
    entries: list[tuple[str, bool]] = []
    with contextlib.suppress(OSError), os.scandir(dir_fd) as listing:
        entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
    for name, is_folder in entries:
        with contextlib.suppress(OSError):
            if not is_folder:
                os.unlink(name, dir_fd=dir_fd)
                continue
            if depth <= 0:
                continue
            inner = os.open(name, _NOFOLLOW_DIRECTORY | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
            try:
                _empty(inner, depth - 1)
            finally:
                os.close(inner)
            os.rmdir(name, dir_fd=dir_fd)


def why_not_replaceable(folder: Path, keep: Iterable[Path]) -> str | None:
    """Why a build must not replace `folder` with its outputs, or None when it may.

    It may when the folder is missing, empty, or holds the marker of an earlier build; never when
    it is a link or a file, holds the working folder, or holds a file of `keep` (the spec, its
    data, the templates), marked or not.
    """
    folder = pathlib.Path(os.path.abspath(folder))
    if folder.is_symlink():
        return "it is a symbolic link; name the folder itself"
    if folder.exists() and not folder.is_dir():
        return "it is a file, not a folder"
    real = pathlib.Path(os.path.realpath(folder))
    try:
        here = pathlib.Path(os.path.realpath(os.getcwd()))
    except OSError:
        here = None
    if here is not None and (real == here or real in here.parents):
        return "it holds the working folder"
    for path in keep:
        for base, kept in ((folder, os.path.abspath(path)), (real, os.path.realpath(path))):
            # `kept` is `base` or below it (its parts begin with base's: Path.parents, faster)
            if pathlib.Path(kept).parts[: len(base.parts)] == base.parts:
                return f"it holds `{os.path.relpath(kept, base)}`, an input of this build"
    if not folder.exists():
        return None
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
    except OSError as exc:
        return f"it cannot be listed ({(exc.strerror or 'error').lower()})"
    if not names:
        return None
    try:
        marked = stat.S_ISREG(os.lstat(folder / OUTPUT_MARKER).st_mode)
    except OSError:
        marked = False
    if not marked:
        return f"it holds files a cmpc build did not write (no {OUTPUT_MARKER} in it)"
    foreign = _not_written(folder)
    if foreign:
        return f"it holds `{foreign}`, which the earlier build did not write; move it out first"
    return None


_WROTE = "It wrote:"


def output_marker(version: str, names: Iterable[str]) -> str:
    """The marker's text: who wrote the folder, and every file it wrote (so others are seen)."""
    listed = "".join(f"{name}\n" for name in sorted(names))
    return (
        f"Written by cmpc {version} (cmpc build). The next build may replace this folder whole:\n"
        f"keep nothing else in it. {_WROTE}\n{listed}"
    )


def _not_written(folder: Path) -> str | None:
    """A file in a marked folder that its marker does not list; None when there is none.

    A marker without a list (written before cmpc listed its files) vouches for the whole folder.
    """
    try:
        text = (folder / OUTPUT_MARKER).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    _, found, listed = text.partition(_WROTE + "\n")
    if not found:
        return None
    written = {*listed.splitlines(), OUTPUT_MARKER}
    for base, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(base, name), folder).replace(os.sep, "/")
            if relative not in written:
                return relative
    return None
