"""Compiled dataclass methods kept beside the package's byte code, so imports do not recompile them.

`@dataclass` writes each class's `__init__`, `__eq__`, `__hash__`, ... as source text and
compiles it at every import: about a third of `cmpc check`'s start-up for cmpc's frozen
records. The same text always compiles to the same code, so the code is kept by text in
`cmpc/__pycache__` (marshal, like the `.pyc` files beside it, and never in a shared folder)
and `dataclasses` is handed an `exec` that looks it up first. Each code stays marshalled bytes
until a class asks for it: a process builds the code objects of the classes it defines, not of
every class the file has seen. Nothing changes for a class: the
text, its globals and what runs are the same. An unwritable folder only means no saving.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import marshal
import os
import sys

from cmpc import lazy

# dataclasses imports inspect (with ast, dis, tokenize: about 7 ms) for one branch, the
# docstring of a class that has none; deferred, it loads only if such a class is defined.
lazy.module("inspect")

import dataclasses  # noqa: E402  (after inspect is deferred)

_FOLDER = os.path.join(os.path.dirname(__file__), "__pycache__")
_FILE = os.path.join(_FOLDER, f"dataclass-code.{sys.implementation.cache_tag}.marshal")
_MOST = 4096  # entries kept: past that the file starts over (old classes' texts go)
_STAMP = f"{sys.version} marshalled-codes"  # older files (codes, not bytes) are not read

_codes: dict[str, object] = {}
misses = 0  # texts compiled in this process (read by the tests)


def _load() -> None:
    try:
        with open(_FILE, "rb") as handle:
            stamp, codes = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if stamp == _STAMP and isinstance(codes, dict):
        _codes.update(codes)  # text -> marshalled code (or, from older files, the code)


def _exec(source, globals=None, locals=None, /):  # exec's own parameter names
    """`exec` for dataclasses: text compiled once, then its code from the file."""
    global misses
    if not isinstance(source, str):
        return builtins.exec(source, globals, locals)
    code = _codes.get(source)
    if isinstance(code, bytes):
        try:
            code = _codes[source] = marshal.loads(code)
        except (EOFError, ValueError, TypeError):
            code = None
    if code is None:
        code = _codes[source] = compile(source, "<string>", "exec")
        misses += 1
    return builtins.exec(code, globals, locals)


def _marshalled(code: object) -> bytes:
    return code if isinstance(code, bytes) else marshal.dumps(code)  # type: ignore[arg-type]


def _save() -> None:
    """Write the texts compiled in this run next to those read, atomically."""
    if not misses:
        return
    kept = _codes if len(_codes) <= _MOST else {}
    codes = {text: _marshalled(code) for text, code in kept.items()}
    part = f"{_FILE}.{os.getpid()}.tmp"
    try:
        os.makedirs(_FOLDER, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(marshal.dumps((_STAMP, codes)))
        os.replace(part, _FILE)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(part)


def install() -> None:
    """Hand dataclasses the caching `exec` (it looks `exec` up in its module first)."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _load()
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save)
