"""Content-hash cache of reduced runs: what a build computes per file, keyed by what changes it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

from cmpc import __version__
from cmpc.diagnostics import error
from cmpc.ingest.points import RunPoint
from cmpc.outcome import Outcome

ENV = "CMPC_CACHE_DIR"
DEFAULT_NAME = ".cmpc-cache"
LAYOUT = 1
TAG = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by cmpc (reduced benchmark runs).\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
# A file changed within this many seconds of being hashed could change again without its
# timestamp moving (coarse clocks), so its hash is not remembered ("racily clean" in git).
RACY_SECONDS = 2.0
_POINT_FIELDS = tuple(f.name for f in fields(RunPoint))


@dataclass(frozen=True)
class Reduced:
    """One file reduced for a comparison: its format, kept run count and points per statistic."""

    format: str
    runs: int
    points: Mapping[str, tuple[RunPoint, ...]]


@dataclass(frozen=True)
class Key:
    """Everything a file's reduction depends on; equal keys mean equal reductions."""

    sha256: str
    path: str  # spec-relative: points carry it in their labels
    format: str | None
    where: tuple[tuple[str, str], ...]
    metric: str
    statistics: tuple[str, ...]
    method: str = "linear"
    slos: tuple[tuple[str, float], ...] = ()  # goodput limits change the reduction

    def to_json(self) -> dict:
        return {
            "layout": LAYOUT,
            "cmpc": __version__,
            "code": code_fingerprint(),
            "sha256": self.sha256,
            "path": self.path,
            "format": self.format,
            "where": [list(pair) for pair in self.where],
            "metric": self.metric,
            "statistics": list(self.statistics),
            "method": self.method,
            "slos": [list(pair) for pair in self.slos],
        }

    def digest(self) -> str:
        return hashlib.sha256(_canonical(self.to_json())).hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Digest of the reader and metric sources, so a changed reader never meets old entries."""
    from importlib import resources

    root = resources.files("cmpc")
    digest = hashlib.sha256()
    try:
        sources = [("metrics.py", root / "metrics.py")]
        for folder in ("ingest", "traces"):
            sources += sorted((f"{folder}/{p.name}", p) for p in (root / folder).iterdir()
                              if p.name.endswith(".py"))  # fmt: skip
        for name, source in sources:
            digest.update(name.encode() + b"\0" + source.read_bytes() + b"\0")
    except OSError:
        return "unknown"  # sources not readable (e.g. a zip without them): version alone
    return digest.hexdigest()


def cache_dir(spec_dir: Path) -> Path:
    """`$CMPC_CACHE_DIR` if set, else `.cmpc-cache/` beside the spec."""
    env = os.environ.get(ENV)
    return Path(env) if env else spec_dir / DEFAULT_NAME


def _canonical(doc) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


@dataclass(frozen=True)
class Cache:
    """Entries under `root`; every write is atomic, every read verified."""

    root: Path

    def prepare(self) -> str | None:
        """Create the folder (tagged so backups skip it); the reason when it is not writable."""
        try:
            (self.root / "entries").mkdir(parents=True, exist_ok=True)
            (self.root / "hashes").mkdir(exist_ok=True)
            tag = self.root / TAG
            if not tag.exists():
                _write_atomically(tag, TAG_TEXT.encode())
            with tempfile.TemporaryFile(dir=self.root / "entries"):
                pass  # the folder may exist yet refuse writes
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    def _entry(self, key: Key) -> Path:
        digest = key.digest()
        return self.root / "entries" / digest[:2] / f"{digest}.json"

    def get(self, key: Key) -> Reduced | None:
        """The stored reduction, or None if absent, unreadable, corrupt or for another key."""
        try:
            head, _, body = self._entry(key).read_bytes().partition(b"\n")
            header = json.loads(head)
            if header.get("key") != key.to_json() or hashlib.sha256(body).hexdigest() != header.get(
                "sha256"
            ):
                return None
            return _decode(json.loads(body))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: Key, reduced: Reduced) -> None:
        """Store atomically; a failure only costs speed."""
        body = _canonical(_encode(reduced))
        header = _canonical({"key": key.to_json(), "sha256": hashlib.sha256(body).hexdigest()})
        path = self._entry(key)
        with contextlib.suppress(OSError):
            path.parent.mkdir(exist_ok=True)
            _write_atomically(path, header + b"\n" + body)

    def file_sha256(self, path: Path) -> str:
        """SHA-256 of a file's bytes, remembered by its stat signature so unchanged files
        are not re-read."""
        try:
            st = path.stat()
        except OSError:
            return sha256_of(path)
        known = self.known_sha256(path, st)
        if known is not None:
            return known
        digest = sha256_of(path)
        if time.time() - max(st.st_mtime, st.st_ctime) > RACY_SECONDS:
            with contextlib.suppress(OSError):
                _write_atomically(self._memo(path, st), digest.encode("ascii"))
        return digest

    def known_sha256(self, path: Path, st: os.stat_result | None = None) -> str | None:
        """The remembered SHA-256 of a file whose stat signature is unchanged, else None."""
        try:
            text = self._memo(path, st or path.stat()).read_text(encoding="ascii")
        except (OSError, ValueError):
            return None
        return text if len(text) == 64 and all(c in "0123456789abcdef" for c in text) else None

    def _memo(self, path: Path, st: os.stat_result) -> Path:
        signature = f"{path.resolve()}\0{st.st_dev}\0{st.st_ino}\0{st.st_size}\0"
        signature += f"{st.st_mtime_ns}\0{st.st_ctime_ns}"
        return self.root / "hashes" / hashlib.sha256(signature.encode()).hexdigest()


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    """Temp file in the same folder, then rename: readers see the old file or the new one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _encode(reduced: Reduced) -> dict:
    return {
        "format": reduced.format,
        "runs": reduced.runs,
        "points": {
            stat: [[getattr(p, f) for f in _POINT_FIELDS] for p in points]
            for stat, points in reduced.points.items()
        },
    }


def _decode(doc: dict) -> Reduced:
    points = {}
    for stat, rows in doc["points"].items():
        points[stat] = tuple(_point(row) for row in rows)
    if not isinstance(doc["format"], str) or type(doc["runs"]) is not int:
        raise TypeError("cache entry: `format` or `runs` has the wrong type")
    return Reduced(doc["format"], doc["runs"], points)


def _point(row: list) -> RunPoint:
    """A stored point with its types checked: a checksum that matches does not make an entry
    trustworthy (one committed in a pull request's `.cmpc-cache/` was built by its author)."""
    values = dict(zip(_POINT_FIELDS, row, strict=True))
    for name, value in values.items():
        if name in ("path", "label"):
            ok = isinstance(value, str)
        elif name == "index":
            ok = type(value) is int
        elif name == "fields":
            ok = isinstance(value, dict) and all(
                v is None or isinstance(v, str | int | float) for v in value.values()
            )
        else:
            ok = value is None or (isinstance(value, int | float) and not isinstance(value, bool))
        if not ok:
            raise TypeError(f"cache entry: `{name}` has the wrong type")
    return RunPoint(**values)


def clear(root: Path) -> str | None:
    """Delete a cache folder; the reason when it could not, or is not a cmpc cache (kept)."""
    if not root.exists():
        return None
    try:
        if (root / TAG).read_text(encoding="utf-8") != TAG_TEXT:
            return "it is not a cmpc cache (its CACHEDIR.TAG was not written by cmpc)"
    except OSError:
        return "it is not a cmpc cache (it holds no CACHEDIR.TAG)"
    try:
        shutil.rmtree(root)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def clear_cache(target: str = ".") -> Outcome:
    """`cmpc cache clear [SPEC_DIR]`: delete the cache a build of specs there would use."""
    place = Path(target)
    root = cache_dir(place.parent if place.is_file() else place)
    reason = clear(root)
    if reason is None:
        return Outcome(stdout=f"cleared {root}\n")
    return Outcome(
        diagnostics=(
            error(
                "E702",
                f"cannot clear `{root}`: {reason}",
                file=str(root),
                help=f"check `${ENV}`; cmpc only deletes folders it created",
            ),
        )
    )
