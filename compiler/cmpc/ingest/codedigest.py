"""Digests of cmpc's own source, which key the cache: a changed reader never meets old entries.

Hashing the ~700 kB of the analysis' sources costs about 3 ms a build, so each digest is
remembered in `cmpc/__pycache__/code-digests.json` under the stat signature (inode, size,
modification and change times) of every file it covers: an edited, replaced or added file
changes the signature, and files changed within SETTLED_SECONDS of hashing are not
remembered (a coarse clock could leave a second edit's times unchanged). The memo sits beside
the bytecode and is as trusted as the code itself; an unreadable or malformed one, or an
unwritable folder, only means hashing again.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import TYPE_CHECKING

import cmpc
from cmpc import lazy
from cmpc.digests import sha256

if TYPE_CHECKING:
    import hashlib
    from importlib import resources
else:  # 2 ms of imports (zipfile): only a package that is not a folder needs them
    resources = lazy.module("importlib.resources")
    hashlib = lazy.module("hashlib")  # OpenSSL's SHA-256, for the sources, once remembered

SETTLED_SECONDS = 2.0
MEMO_STAMP = "cmpc code digests 1"
MEMO_MOST = 64  # digests kept: past that the memo starts over
MEMO_BYTES = 1 << 16
_PACKAGE = os.path.dirname(os.path.abspath(cmpc.__file__))
_MEMO = os.path.join(_PACKAGE, "__pycache__", "code-digests.json")
_memo: dict[str, str] | None = None  # read once per process


def package_digest(files: tuple[str, ...], folders: tuple[str, ...]) -> str:
    """Digest of these package files, every `.py` in these folders and the compiled extensions.

    The extensions (the number scan, the resampling draws) are hashed as built, so a rebuilt
    or patched extension never meets entries its old build made. "unknown" if unreadable.
    """
    if not os.path.isdir(_PACKAGE):  # a zip: its reader lists it
        return _resource_digest(files, folders)
    try:
        sources = list(files)
        for folder in folders:
            listed = os.listdir(os.path.join(_PACKAGE, folder))
            sources += sorted(f"{folder}/{n}" for n in listed if n.endswith(".py"))
        sources += sorted(n for n in os.listdir(_PACKAGE) if _is_extension(n))
        before = _signature(sources)
        found = _remembered().get(before)
        if found is not None:
            return found
        digest = hashlib.sha256()
        for name in sources:
            with open(os.path.join(_PACKAGE, name), "rb") as handle:
                digest.update(name.encode() + b"\0" + handle.read() + b"\0")
        if _signature(sources) == before and _settled(sources):
            _remember(before, digest.hexdigest())
    except OSError:
        return "unknown"  # sources not readable: version alone
    return digest.hexdigest()


def _signature(sources: list[str]) -> str:
    """What names these files' bytes: each one's name and stat (OSError if one is missing)."""
    parts = []
    for name in sources:
        st = os.stat(os.path.join(_PACKAGE, name))
        parts.append(f"{name}\0{st.st_dev}\0{st.st_ino}\0{st.st_size}\0")
        parts.append(f"{st.st_mtime_ns}\0{st.st_ctime_ns}\0")
    return sha256("".join(parts).encode()).hexdigest()


def _settled(sources: list[str]) -> bool:
    newest = max(
        max(st.st_mtime, st.st_ctime)
        for st in (os.stat(os.path.join(_PACKAGE, n)) for n in sources)
    )
    return time.time() - newest > SETTLED_SECONDS


def _remembered() -> dict[str, str]:
    global _memo
    if _memo is None:
        _memo = {}
        with contextlib.suppress(OSError, ValueError, RecursionError):
            with open(_MEMO, "rb") as handle:
                doc = json.loads(handle.read(MEMO_BYTES + 1)[:MEMO_BYTES])
            ours = isinstance(doc, dict) and doc.get("stamp") == MEMO_STAMP
            digests = doc.get("digests") if ours else None
            if isinstance(digests, dict):
                _memo = {k: v for k, v in digests.items() if _is_hex(k) and _is_hex(v)}
    return _memo


def _remember(signature: str, digest: str) -> None:
    """Add a digest to the memo (atomically; a failure only costs speed)."""
    memo = _remembered()
    if len(memo) >= MEMO_MOST:
        memo.clear()
    memo[signature] = digest
    text = json.dumps({"stamp": MEMO_STAMP, "digests": memo}, sort_keys=True)
    part = f"{_MEMO}.{os.getpid()}.{os.urandom(4).hex()}"
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(_MEMO), exist_ok=True)
        try:
            with open(part, "x", encoding="ascii") as handle:
                handle.write(text)
            os.replace(part, _MEMO)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(part)


def _is_hex(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _resource_digest(files: tuple[str, ...], folders: tuple[str, ...]) -> str:
    """`package_digest` of a package importlib.resources reads (a zip)."""
    root = resources.files("cmpc")
    digest = hashlib.sha256()
    try:
        sources = [(name, root / name) for name in files]
        for folder in folders:
            sources += sorted((f"{folder}/{p.name}", p) for p in (root / folder).iterdir()
                              if p.name.endswith(".py"))  # fmt: skip
        sources += sorted((p.name, p) for p in root.iterdir() if _is_extension(p.name))
        for name, source in sources:
            digest.update(name.encode() + b"\0" + source.read_bytes() + b"\0")
    except OSError:
        return "unknown"  # sources not readable (e.g. a zip without them): version alone
    return digest.hexdigest()


def _is_extension(name: str) -> bool:
    return name.startswith("_fast") and name.endswith((".so", ".pyd"))
