"""Regular expressions of module bodies compiled once and kept: a later start reuses the program.

`re.compile` parses a pattern and writes its matching program in Python at every start: about
9 ms of a cold build for the 55 patterns cmpc's modules compile as they are imported (the spec
lexer's, the run-file field names', the text checks'). The program depends only on the
pattern's type and text, its flags and the `re` version, the key under which `re` caches it in
memory too; so `cmpc`'s `main()` keeps, in `cmpc/__pycache__` (marshal, beside the dataclass
codes of cmpc/_classcache.py), each such pattern's program, group count and names, and builds
the Pattern from them with `_sre.compile`, as `re._compiler.compile` ends.

Only a pattern compiled by the body of an imported module (the first frame outside `re` is
`<module>` code, not `__main__`'s) is kept: one compiled inside a function (fnmatch's, a spec's
`runs` glob, any text read at run time) is compiled as usual and never written. The file is
trusted as much as the `.pyc` beside it (same folder, same writer); its BLAKE2b digest guards
against bit rot and half-written files, since `_sre` takes many damaged programs and then
crashes on a match: a file whose digest does not match is no file. It holds at most `_MOST`
records of at most `_RECORD_BYTES` each, `_FILE_BYTES` in all; a run adds records while there
is room and never drops one it did not replace (delete the file to start afresh). Nothing is
written under `-B` or PYTHONDONTWRITEBYTECODE. A pattern whose parse warns (FutureWarning for
a possible set) is not kept: the warning is shown and the next start parses it again.
A debug compile, a parsed pattern or a record `_sre` refuses is compiled as usual; an
unwritable folder only means no saving.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]
import atexit
import contextlib
import marshal
import os
import re
import sys
import warnings
from typing import Any

try:  # the C module itself: cmpc.digests would add _sha256 to `cmpc check`'s imports
    from _blake2 import blake2b
except ImportError:  # a Python built without it
    from hashlib import blake2b

_compiler = re._compiler  # type: ignore[attr-defined]
_FOLDER = os.path.join(os.path.dirname(__file__), "__pycache__")
_FILE = os.path.join(_FOLDER, f"regex-code.{sys.implementation.cache_tag}.marshal")
_STAMP = f"{sys.version} sre {_sre.MAGIC} {_sre.CODESIZE} 3"  # 3: a digest before the records
_DIGEST = 32  # bytes of BLAKE2b heading the file
# the file is read at every start: a bound on records and bytes (cmpc's own: 55, about 20 KB)
_MOST = 256
_RECORD_BYTES = 16 * 1024
_FILE_BYTES = 256 * 1024
_original = _compiler.compile
# (is str, pattern, flags) -> its record, marshalled until a start compiles that pattern
_kept: dict[tuple[bool, str | bytes, int], bytes] = {}
_added: list[tuple[bool, str | bytes, int]] = []  # the keys this process compiled afresh
_read = False
misses = 0  # module-body patterns compiled afresh in this process (read by the tests)
hits = 0  # patterns built from a kept program (read by the tests)


def _load() -> None:
    global _read
    _read = True
    try:
        with open(_FILE, "rb") as handle:
            data = handle.read(_DIGEST + _FILE_BYTES + 1)
    except OSError:
        return
    body = data[_DIGEST:]
    if len(body) > _FILE_BYTES or blake2b(body, digest_size=_DIGEST).digest() != data[:_DIGEST]:
        return
    try:
        stamp, kept = marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return
    if stamp == _STAMP and isinstance(kept, dict):
        _kept.update((k, v) for k, v in kept.items() if isinstance(v, bytes))


def _in_module_body() -> bool:
    """Whether the compile comes from an imported module's body, past the frames of `re`."""
    frame: Any = sys._getframe(2)  # the caller of compile()
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name != "re" and not (isinstance(name, str) and name.startswith("re.")):
            return frame.f_code.co_name == "<module>" and name != "__main__"
        frame = frame.f_back
    return False


def compile(p: Any, flags: int = 0) -> Any:  # re._compiler.compile's own signature
    """`re._compiler.compile`, from the kept program for a module body's pattern."""
    global misses, hits
    if not isinstance(p, (str, bytes)) or flags & re.DEBUG or not _in_module_body():
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
            return pattern
    warned: list[warnings.WarningMessage] = []
    try:  # re._compiler.compile's steps, keeping what they hand `_sre`
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            parsed = _compiler._parser.parse(p, flags)
            code = _compiler._code(parsed, flags)
        state = parsed.state
    except AttributeError:  # another re: its own compile
        return _original(p, flags)
    finally:  # shown as re shows them (an error too): where and how the parse warned
        for w in warned:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    groupindex = dict(state.groupdict)
    indexgroup = [None] * state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # the opcodes are an int subclass, which marshal does not write: plain ints, same values
    code = [int(op) for op in code]
    record = (int(flags | state.flags), code, state.groups - 1, groupindex, tuple(indexgroup))
    pattern = _sre.compile(p, *record)
    if warned:  # not kept: a later start, building it from the record, would not warn
        return pattern
    _kept[key] = marshal.dumps(record)
    _added.append(key)
    misses += 1
    return pattern


def _kept_now() -> dict[tuple[bool, str | bytes, int], bytes]:
    """What the file keeps: the records read, then this run's while the bounds allow."""
    added = set(_added)
    records = list(_kept.items())  # a copy: another thread may compile while this runs
    ordered = [r for r in records if r[0] not in added] + [r for r in records if r[0] in added]
    kept: dict[tuple[bool, str | bytes, int], bytes] = {}
    room = _FILE_BYTES - len(marshal.dumps(_STAMP)) - 16  # the tuple's and the dict's marks
    for key, record in ordered:
        # at most what marshal writes for the entry: the key, and the record's bytes with
        # their type mark and length (a shared reference only makes it shorter)
        weight = len(marshal.dumps(key)) + len(record) + 5
        if len(record) > _RECORD_BYTES or weight > room or len(kept) >= _MOST:
            continue
        kept[key] = record
        room -= weight
    return kept


def _save() -> None:
    """Write the programs compiled in this run next to those read, atomically."""
    if not misses or sys.dont_write_bytecode:
        return
    part = f"{_FILE}.{os.getpid()}.{os.urandom(6).hex()}.tmp"  # a stale one never blocks
    try:
        body = marshal.dumps((_STAMP, _kept_now()))
        if len(body) > _FILE_BYTES:
            return
        os.makedirs(_FOLDER, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(blake2b(body, digest_size=_DIGEST).digest() + body)
        os.replace(part, _FILE)
    except (OSError, ValueError, RuntimeError):
        with contextlib.suppress(OSError):
            os.unlink(part)


def install() -> None:
    """Hand `re` the keeping compile (it looks `_compiler.compile` up at each compile)."""
    if _compiler.compile is compile:
        return
    _compiler.compile = compile
    atexit.register(_save)
