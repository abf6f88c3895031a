"""A short path from a cmpc module's name to its current `.pyc`, ahead of the generic finders.

Finding and loading a module the standard way (`PathFinder`, `FileFinder`, `SourceFileLoader`)
costs about 100 µs on this machine, in Python-level path joins, suffix loops and repeated
`cache_from_source` calls, before its code runs: 14 ms for the 140 modules of a cold build.
For a plain module of cmpc (`cmpc/x/y.py`, one folder on its package's `__path__`) this finder
stats the source and hands it to `Loader`, a `SourceFileLoader` (so `__file__`, `__cached__`,
`get_source` and resources are the standard ones) whose `get_code` reads the `.pyc` beside it
in one open and checks it as the standard loader does: magic number, timestamp flags, the
source's mtime and size. Anything else is left to the standard machinery, unchanged: packages,
C extensions, a missing or stale or hash-based `.pyc` (then `SourceFileLoader.get_code`
compiles and writes it as usual), `-O`, `sys.pycache_prefix`, a package with several folders.
A name is taken only as its folder lists it (read once per folder), so a case-insensitive file
system does not hand `cmpc.Limits` the file `limits.py`, as FileFinder would not.
"""

from __future__ import annotations

import _imp
import marshal
import os
import sys
import types
from importlib import _bootstrap, _bootstrap_external
from stat import S_ISREG
from typing import Any

_TAG = sys.implementation.cache_tag
_MAGIC = _bootstrap_external.MAGIC_NUMBER
_listed: dict[str, frozenset[str]] = {}  # a package folder -> its entries' exact names
hits = 0  # modules whose code came from the short path (read by the tests)


class Loader(_bootstrap_external.SourceFileLoader):
    """The standard source loader, reading a current `.pyc` without its generic steps."""

    def __init__(self, fullname: str, path: str, cached: str, stat: os.stat_result) -> None:
        super().__init__(fullname, path)
        self.cached = cached
        self.stat = stat  # the source's, taken by find_spec (the base loader stats it once too)

    def get_code(self, fullname: str) -> Any:
        """The module's code from its `.pyc` if that matches the source, else as the base does."""
        source, stat = self.path, self.stat
        try:
            with open(self.cached, "rb") as handle:
                data = handle.read()
        except OSError:
            return super().get_code(fullname)
        header = (
            _MAGIC
            + b"\0\0\0\0"
            + (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        )
        if data[:16] != header:
            return super().get_code(fullname)
        global hits
        code = marshal.loads(memoryview(data)[16:])
        if not isinstance(code, types.CodeType):  # as the standard loader says it
            raise ImportError(f"Non-code object in {self.cached!r}", name=fullname, path=source)
        _imp._fix_co_filename(code, source)  # type: ignore[attr-defined]
        hits += 1
        return code


class Finder:
    """On sys.meta_path: specs for cmpc's plain modules; None (the next finder) for the rest."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> Any:
        """A spec for `cmpc.<...>.x` when `x.py` is a file in its package's one folder."""
        if not name.startswith("cmpc.") or path is None or len(path) != 1:
            return None
        folder = path[0]
        if not isinstance(folder, str) or not folder.startswith("/"):
            return None
        tail = name.rpartition(".")[2]
        names = _listed.get(folder)
        if names is None:
            try:
                names = _listed[folder] = frozenset(os.listdir(folder))
            except (OSError, ValueError):
                return None
        if f"{tail}.py" not in names:
            return None
        source = f"{folder}/{tail}.py"
        try:
            stat = os.stat(source)
        except (OSError, ValueError):
            return None
        if not S_ISREG(stat.st_mode):
            return None
        # a package `x/` or a C module `x.*.so` beside x.py would be found first by FileFinder:
        # cmpc has none (tests/test_pycfinder.py compares every module's spec with PathFinder's)
        cached = f"{folder}/__pycache__/{tail}.{_TAG}.pyc"
        spec = _bootstrap.ModuleSpec(name, Loader(name, source, cached, stat), origin=source)
        spec.has_location = True
        spec.cached = cached
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        """Forget the folders' listings (`importlib.invalidate_caches`, after writing a module)."""
        _listed.clear()


def install() -> None:
    """Put the finder first on sys.meta_path, once, unless pycs are not the standard ones."""
    if sys.flags.optimize or sys.pycache_prefix is not None or os.sep != "/":
        return
    if Finder not in sys.meta_path:
        sys.meta_path.insert(0, Finder)
