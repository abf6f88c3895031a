"""Run files named by fsspec URLs: opt-in, listed and fetched with the bytes read hashed."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cmpc import lazy

if TYPE_CHECKING:
    import hashlib
    import tempfile
else:
    tempfile = lazy.module("tempfile")  # only a fetch writes a file: not every build's start
    hashlib = lazy.module("hashlib")  # nor hashes one (OpenSSL: 3 ms to load)

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_MAGIC = re.compile(r"[*?[]")
# Object stores, the web, and fsspec's two in-process filesystems; no chained URLs (`a::b`),
# whose caching layers would write files of their own.
PROTOCOLS = ("s3", "gs", "gcs", "az", "abfs", "http", "https", "memory", "file")
CHUNK = 1 << 20


class RemoteUnavailable(Exception):
    """fsspec (the `remote` extra) is not installed."""


def is_url(text: str) -> bool:
    """Whether a run glob or input path names a URL rather than a path under the spec."""
    return _SCHEME.match(text) is not None or "::" in text


def protocol(url: str) -> str:
    """The URL's scheme, lower case ('' when there is none)."""
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else ""


def refusal(url: str) -> str | None:
    """Why cmpc will not read this URL even with remote inputs allowed, or None."""
    if "::" in url:
        return "chained fsspec URLs (`a::b`) are not read"
    if protocol(url) not in PROTOCOLS:
        return f"protocol `{protocol(url)}` is not one cmpc reads"
    return None


def local_path(url: str) -> Path | None:
    """The path a `file://` URL names, else None."""
    return Path(url[len("file://") :]) if protocol(url) == "file" else None


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:
        raise RemoteUnavailable("fsspec is not installed") from None
    return fsspec


def expand(url_glob: str, *, limit: int) -> list[str]:
    """Sorted URLs the glob matches (at most `limit` + 1 of them, so the excess is seen)."""
    fsspec = _fsspec()
    fs, path = fsspec.core.url_to_fs(url_glob)
    if not _MAGIC.search(path):
        return [url_glob] if fs.isfile(path) else []
    found = fs.glob(path, maxdepth=None)
    files = sorted(p for p in found if fs.isfile(p))[: limit + 1]
    return [str(fs.unstrip_protocol(p)) for p in files]


@contextlib.contextmanager
def fetched(url: str) -> Iterator[tuple[str, str]]:
    """(a local copy's path, the SHA-256 of the bytes read): readers and hash see one read."""
    fsspec = _fsspec()
    suffix = "".join(Path(url.rsplit("/", 1)[-1]).suffixes)[-16:]
    digest = hashlib.sha256()
    handle, name = tempfile.mkstemp(prefix="cmpc-remote-", suffix=suffix)
    try:
        with os.fdopen(handle, "wb") as out, fsspec.open(url, "rb") as source:
            while chunk := source.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        yield name, digest.hexdigest()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)
