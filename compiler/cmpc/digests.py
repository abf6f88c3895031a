"""Digests without OpenSSL: hashlib's import loads it, about 3 ms of a warm rebuild.

`sha256` is the interpreter's own SHA-256 (the same digest; a tenth of OpenSSL's speed, so
files are hashed with hashlib, and only texts of a few kilobytes here). `blake2b` is the
interpreter's BLAKE2b, as fast as OpenSSL's SHA-256: for checksums of the cache's larger
files, where no published digest is expected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    try:
        from _sha256 import sha256  # Python 3.11
    except ImportError:  # pragma: no cover - the name since 3.12, or a build without it
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a build without it
        from hashlib import blake2b

__all__ = ["blake2b", "sha256"]


def checksum(data: bytes) -> str:
    """A 256-bit BLAKE2b of `data`, in hex: what the cache's stage files are checked with."""
    return blake2b(data, digest_size=32).hexdigest()
