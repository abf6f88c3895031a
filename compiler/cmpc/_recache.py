"""Regular expressions compiled once and kept: a later start hands `_sre` the kept program.

`re.compile` parses a pattern and writes its matching program in Python at every start: about
9 ms of a cold build for its 60 patterns (the spec lexer's, the run-file field names', the
text checks'). The program depends only on the pattern's type and text, its flags and the
`re` version, the key under which `re` caches it in memory too; so the command line keeps, in
`cmpc/__pycache__` (marshal, beside the dataclass codes of cmpc/_classcache.py), each pattern's
program, group count and names, and builds the Pattern from them with `_sre.compile`, as
`re._compiler.compile` ends. A pattern not kept, a debug compile, a parsed pattern or a record
`_sre` refuses is compiled as usual; an unwritable folder only means no saving.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import atexit
import contextlib
import marshal
import os
import re
import sys
from typing import Any

_compiler = re._compiler  # type: ignore[attr-defined]
_FOLDER = os.path.join(os.path.dirname(__file__), "__pycache__")
_FILE = os.path.join(_FOLDER, f"regex-code.{sys.implementation.cache_tag}.marshal")
_STAMP = f"{sys.version} sre {_sre.MAGIC} {_sre.CODESIZE} 2"  # 2: records marshalled each
# entries kept: those this run used first, then others up to this many (a test suite compiles
# hundreds of patterns a build never sees; the file is read at every start)
_MOST = 256
_original = _compiler.compile
# (is str, pattern, flags) -> its record, marshalled until a start compiles that pattern
_kept: dict[tuple[bool, str | bytes, int], bytes] = {}
_used: list[tuple[bool, str | bytes, int]] = []  # the keys this process compiled, in order
_read = False
misses = 0  # patterns compiled afresh in this process (read by the tests)
hits = 0  # patterns built from a kept program (read by the tests)


def _load() -> None:
    global _read
    _read = True
    try:
        with open(_FILE, "rb") as handle:
            stamp, kept = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if stamp == _STAMP and isinstance(kept, dict):
        _kept.update((k, v) for k, v in kept.items() if isinstance(v, bytes))


def compile(p: Any, flags: int = 0) -> Any:  # re._compiler.compile's own signature
    """`re._compiler.compile`, from the kept program when there is one."""
    global misses, hits
    if not isinstance(p, (str, bytes)) or flags & re.DEBUG:
        return _original(p, flags)
    flags = int(flags)  # re passes a plain int; a RegexFlag is one too, and marshal takes ints
    key = (isinstance(p, str), p, flags)
    if not _read:
        _load()
    kept = _kept.get(key)
    if kept is not None:
        try:
            final_flags, code, groups, groupindex, indexgroup = marshal.loads(kept)
            pattern = _sre.compile(p, final_flags, code, groups, groupindex, indexgroup)
        except (TypeError, ValueError, RuntimeError, OverflowError, EOFError):
            pass  # not a record this `_sre` takes: compiled afresh below
        else:
            hits += 1
            _used.append(key)
            return pattern
    try:  # re._compiler.compile's steps, keeping what they hand `_sre`
        parsed = _compiler._parser.parse(p, flags)
        code = _compiler._code(parsed, flags)
        state = parsed.state
    except AttributeError:  # another re: its own compile
        return _original(p, flags)
    groupindex = dict(state.groupdict)
    indexgroup = [None] * state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # the opcodes are an int subclass, which marshal does not write: plain ints, same values
    code = [int(op) for op in code]
    record = (int(flags | state.flags), code, state.groups - 1, groupindex, tuple(indexgroup))
    pattern = _sre.compile(p, *record)
    _kept[key] = marshal.dumps(record)
    _used.append(key)
    misses += 1
    return pattern


def _kept_now() -> dict[tuple[bool, str | bytes, int], bytes]:
    """What the file keeps: this run's patterns, then earlier ones, up to _MOST."""
    keys = dict.fromkeys(_used)
    for key in _kept:
        if len(keys) >= _MOST:
            break
        keys.setdefault(key)
    return {key: _kept[key] for key in list(keys)[:_MOST] if key in _kept}


def _save() -> None:
    """Write the programs compiled in this run next to those read, atomically."""
    if not misses:
        return
    part = f"{_FILE}.{os.getpid()}.tmp"
    try:
        os.makedirs(_FOLDER, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(marshal.dumps((_STAMP, _kept_now())))
        os.replace(part, _FILE)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(part)


def install() -> None:
    """Hand `re` the keeping compile (it looks `_compiler.compile` up at each compile)."""
    if _compiler.compile is compile:
        return
    _compiler.compile = compile
    atexit.register(_save)
