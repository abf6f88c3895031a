"""Content-hash cache of reduced runs: what a build computes per file, keyed by what changes it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from stat import S_ISDIR
from typing import TYPE_CHECKING, Any

from cmpc import __version__, lazy
from cmpc.diagnostics import error
from cmpc.digests import sha256 as _sha256  # not a name: `sha256` is a parameter below
from cmpc.ingest import cachefs
from cmpc.ingest.codedigest import package_digest
from cmpc.ingest.points import RunPoint
from cmpc.jsontypes import JsonObject
from cmpc.limits import current
from cmpc.outcome import Outcome

if TYPE_CHECKING:
    import hashlib
    import shutil
else:  # OpenSSL (3 ms to load) for files and entries; keys and memos are small texts
    hashlib = lazy.module("hashlib")
    shutil = lazy.module("shutil")  # 2 ms with the compressors: `cmpc cache clear` only

ENV = "CMPC_CACHE_DIR"
DEFAULT_NAME = ".cmpc-cache"
LAYOUT = 2  # 2: the header states the entry's summary, so a hit need not decode its points
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
    # the fields the file's runs state, with their values, before `where` (E504 lists them)
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()


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
    limits: tuple[tuple[str, str], ...] = ()  # statistics the percentile SLOs limit
    bootstrap: tuple[str, int, int] = ("", 0, 0)  # interval method, resamples, seed

    def to_json(self) -> JsonObject:
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
            "limits": [list(pair) for pair in self.limits],
            "bootstrap": list(self.bootstrap),
        }

    def digest(self) -> str:
        return _sha256(_canonical(self.to_json())).hexdigest()


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """Digest of the reader and metric sources, so a changed reader never meets old entries."""
    return package_digest(("metrics.py",), ("ingest", "traces"))


def cache_dir(spec_dir: Path) -> Path:
    """`$CMPC_CACHE_DIR` if set, else `.cmpc-cache/` beside the spec."""
    env = os.environ.get(ENV)
    return Path(env) if env else spec_dir / DEFAULT_NAME


def _canonical(doc: JsonObject) -> bytes:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


class CorruptEntry(Exception):
    """A lazily decoded entry whose points do not decode (its checksum matched): rebuild eagerly."""


class LazyPoints(Mapping[str, tuple[RunPoint, ...]]):
    """An entry's points per statistic, decoded at the first read (its checksum already verified).

    A warm build whose analysis stage hits reads no point, so it never pays for the decoding.
    """

    def __init__(self, body: bytes, counts: Mapping[str, int]) -> None:
        self._body: bytes | None = body
        self._points: Mapping[str, tuple[RunPoint, ...]] | None = None
        self.counts = dict(counts)  # points per statistic, from the header

    def _decoded(self) -> Mapping[str, tuple[RunPoint, ...]]:
        if self._points is None:
            assert self._body is not None
            if _too_deep(self._body):
                raise CorruptEntry("the entry nests too deep")
            try:
                points = _decode(json.loads(self._body)).points
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                raise CorruptEntry(str(exc)) from None
            if {k: len(v) for k, v in points.items()} != self.counts:
                raise CorruptEntry("the points do not match the header's counts")
            self._points, self._body = points, None
        return self._points

    def __getitem__(self, stat: str) -> tuple[RunPoint, ...]:
        return self._decoded()[stat]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


def point_count(points: Mapping[str, tuple[RunPoint, ...]], stat: str) -> int:
    """How many points `points` holds at `stat`, without decoding a lazy entry."""
    if isinstance(points, LazyPoints):
        return points.counts.get(stat, 0)
    return len(points.get(stat, ()))


@dataclass(frozen=True)
class Cache:
    """Entries under `root`; every write is atomic, every read verified, no link followed.

    `lazy`: a hit's points are decoded at their first read (`LazyPoints`); its summary and
    checksum are checked at once, its points' types when read (`CorruptEntry` if they fail).
    """

    root: Path
    lazy: bool = False

    def prepare(self, confine_to: Path | None = None) -> str | None:
        """Create the folder, or adopt an empty one (tagged so backups skip it); else the reason
        it cannot be used. `confine_to`: the spec's folder, for the default cache inside it."""
        if not cachefs.SUPPORTED:
            return "this platform cannot open files without following links"
        if confine_to is not None:
            reason = _committed_links(self.root, confine_to)
            if reason is not None:
                return reason
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with cachefs.folder(self.root) as fd:
                reason = _claim(fd)
                if reason is not None:
                    return reason
            with cachefs.folder(self.root, "hashes", create=True):
                pass
            with cachefs.folder(self.root, "entries", create=True) as fd:
                cachefs.probe(fd)  # the folder may exist yet refuse writes
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    def _entry(self, key: Key) -> Path:
        digest = key.digest()
        return self.root / "entries" / digest[:2] / f"{digest}.json"

    def get(self, key: Key) -> Reduced | None:
        """The stored reduction, or None if absent, not a regular file, too large or too deep,
        corrupt, or for another key."""
        digest = key.digest()
        try:
            with cachefs.folder(self.root, "entries", digest[:2]) as fd:
                data = cachefs.read(fd, f"{digest}.json", _entry_bytes())
        except OSError:
            return None
        return _parse_entry(data, key, lazy=self.lazy)

    def put(self, key: Key, reduced: Reduced) -> None:
        """Store atomically; a failure only costs speed."""
        self.put_encoded(key, _encoded_body(reduced), _summary(reduced), _entry_bytes())

    def put_encoded(self, key: Key, body: bytes, summary: JsonObject, limit: int) -> None:
        """`put` of an entry whose body and summary are made: its header (the body's SHA-256)
        and the write, which cachewrite's thread makes (hashlib releases the GIL)."""
        header = _canonical(
            {"key": key.to_json(), "sha256": hashlib.sha256(body).hexdigest(), "summary": summary}
        )
        if len(header) + 1 + len(body) > limit:
            return  # get() would refuse it
        digest = key.digest()
        self.store(("entries", digest[:2]), f"{digest}.json", header + b"\n" + body)

    def store(self, folders: tuple[str, ...], name: str, data: bytes) -> None:
        """Write `root/folders.../name` atomically, making the folders; a failure costs speed
        only. (ingest/cachewrite.py hands these writes to a thread of their own.)"""
        with contextlib.suppress(OSError), cachefs.folder(self.root, *folders, create=True) as fd:
            cachefs.write(fd, name, data)

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
        self.remember_sha256(path, st, digest)
        return digest

    def remember_sha256(
        self, path: Path, st: os.stat_result, digest: str, read_at: float | None = None
    ) -> None:
        """Remember `digest`, read from `path` since `st` was taken (the read ending at
        `read_at`, by default now), if the file had settled by then and its stat signature is
        still `st`'s."""
        read_at = time.time() if read_at is None else read_at
        with contextlib.suppress(OSError):
            after = path.stat()
            # settled when the bytes were read, not when a writer thread gets to this
            if read_at - max(after.st_mtime, after.st_ctime) <= RACY_SECONDS:
                return  # not settled
            where = path.resolve()
            signature = _signature(where, st)
            if _signature(where, after) == signature:
                # unchanged while it was read: the digest is of the bytes this signature names
                name, text = _memo(signature, digest)
                self.store(("hashes",), name, text.encode("ascii"))

    def holds_entries(self) -> bool:
        """Whether any entry is stored (a cache without one cannot hit); links are not followed."""
        try:
            with os.scandir(self.root / "entries") as folders:
                for folder in folders:
                    if folder.is_dir(follow_symlinks=False):
                        with os.scandir(folder.path) as names:
                            if any(True for _ in names):
                                return True
        except OSError:
            return False
        return False

    def known_sha256(self, path: Path, st: os.stat_result | None = None) -> str | None:
        """The remembered SHA-256 of a file whose stat signature is unchanged, else None.

        A memo counts only if it is a small regular file naming this very signature, with a
        checksum over both: a damaged memo is re-hashed, never printed as the file's SHA-256.
        """
        try:
            st = st or path.stat()
            signature = _signature(path.resolve(), st)
            name, _ = _memo(signature, "")
            with cachefs.folder(self.root, "hashes") as fd:
                text = cachefs.read(fd, name, MEMO_BYTES).decode("ascii")
        except (OSError, ValueError):
            return None
        parts = text.split(" ")
        if len(parts) != 3 or not _is_sha256(parts[1]):
            return None
        return parts[1] if _memo(signature, parts[1])[1] == text else None


MEMO_BYTES = 1024
HEADER_BYTES = 1 << 20
DEPTH = 32  # an entry nests 5 deep; json would exhaust the recursion limit near 1,000
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = "# Created by cmpc automatically.\n*\n"
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_PAIRS = re.compile(rb"\[\]|\{\}")
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


def _entry_bytes() -> int:
    """Entries are single JSON documents: the record-size limit bounds them as it does traces."""
    return current().record_bytes


def _parse_entry(data: bytes, key: Key, *, lazy: bool = False) -> Reduced | None:
    head, _, body = data.partition(b"\n")
    if len(head) > HEADER_BYTES or _too_deep(head) or (not lazy and _too_deep(body)):
        return None  # a lazy entry's body is checked when its points are first read
    try:
        header = json.loads(head)
        if header.get("key") != key.to_json():
            return None
        if hashlib.sha256(body).hexdigest() != header.get("sha256"):
            return None
        summary = _summary_of(header.get("summary"))
        if lazy:
            fmt, runs, fields, counts = summary
            return Reduced(fmt, runs, LazyPoints(body, counts), fields)
        reduced = _decode(json.loads(body))
        return reduced if _summary_of(_summary(reduced)) == summary else None
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def _summary(reduced: Reduced) -> JsonObject:
    """What a hit needs before its points: format, runs kept, fields stated, counts."""
    return {
        "format": reduced.format,
        "runs": reduced.runs,
        "fields": {k: list(v) for k, v in reduced.fields},
        "counts": {stat: point_count(reduced.points, stat) for stat in reduced.points},
    }


# format, runs kept, the fields stated with their values, points per statistic
Summary = tuple[str, int, tuple[tuple[str, tuple[str, ...]], ...], dict[str, int]]


def summary_of(doc: object) -> Summary:
    """A stored summary with its types checked (TypeError if one is wrong)."""
    return _summary_of(doc)


def summary_of_reduced(reduced: Reduced) -> Summary:
    """A reduction's summary as an entry's header stores it (keys sorted); decodes no point."""
    points = reduced.points
    if isinstance(points, LazyPoints):
        counts = dict(points.counts)
    else:
        counts = {stat: len(p) for stat, p in points.items()}
    doc = {"format": reduced.format, "runs": reduced.runs, "counts": counts}
    doc["fields"] = {k: list(v) for k, v in reduced.fields}
    return _summary_of(json.loads(_canonical(doc)))


def _summary_of(doc: object) -> Summary:
    """A header's summary with its types checked (TypeError if one is wrong)."""
    if not isinstance(doc, dict):
        raise TypeError("cache entry: no summary")
    fmt, runs, fields, counts = doc["format"], doc["runs"], doc["fields"], doc["counts"]
    if not isinstance(fmt, str) or type(runs) is not int:
        raise TypeError("cache entry: `format` or `runs` has the wrong type")
    if not isinstance(fields, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in fields.values()
    ):
        raise TypeError("cache entry: `fields` has the wrong type")
    if not isinstance(counts, dict) or not all(type(n) is int and n >= 0 for n in counts.values()):
        raise TypeError("cache entry: `counts` has the wrong type")
    stated = tuple((str(k), tuple(v)) for k, v in fields.items())
    return fmt, runs, stated, {str(k): n for k, n in counts.items()}


def _too_deep(data: bytes, limit: int = DEPTH) -> bool:
    """Whether the JSON text nests deeper than `limit` (or is unbalanced): its brackets outside
    strings, innermost pairs peeled `limit` times, each pass in C."""
    brackets = _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not brackets:
            return False
        brackets = _PAIRS.sub(b"", brackets)
    return bool(brackets)


def _signature(resolved: Path, st: os.stat_result) -> str:
    """What names a file's bytes: its resolved path (resolved once by the caller) and stat."""
    return f"{resolved}\0{st.st_dev}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"


def _memo(signature: str, sha256: str) -> tuple[str, str]:
    """A memo's file name (the digest of the file's signature) and its text for `sha256`."""
    name = _sha256(signature.encode()).hexdigest()
    check = _sha256(f"{name} {sha256}".encode()).hexdigest()
    return name, f"{name} {sha256} {check}"


def _is_sha256(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _claim(root_fd: int) -> str | None:
    """Use a folder tagged by cmpc, or tag an empty one; refuse any other (it is not cmpc's)."""
    try:
        ours = cachefs.read(root_fd, TAG, 4096) == TAG_TEXT.encode()
    except OSError:
        ours = False
    if not ours:
        if any(not _OWN_FILE.fullmatch(name) for name in os.listdir(root_fd)):  # a race
            return (
                "it holds files cmpc did not write and no CACHEDIR.TAG of cmpc's; "
                "cmpc keeps its entries in a folder of its own"
            )
        cachefs.write(root_fd, TAG, TAG_TEXT.encode())
    try:
        os.stat(GITIGNORE, dir_fd=root_fd, follow_symlinks=False)
    except FileNotFoundError:  # never committed by accident, as pytest, mypy and ruff do
        cachefs.write(root_fd, GITIGNORE, GITIGNORE_TEXT.encode())
    return None


def _committed_links(root: Path, spec_dir: Path) -> str | None:
    """Why the default cache (beside the spec) is refused: it, or a folder or file cmpc writes
    in it, is a symbolic link (a pull request may commit one, even a loop). Links not followed."""
    entries = root / "entries"
    candidates = [root, entries, root / "hashes", root / TAG, root / GITIGNORE]
    with contextlib.suppress(OSError):
        if not root.is_symlink() and not entries.is_symlink() and entries.is_dir():
            candidates += [entries / name for name in os.listdir(entries)]
    home = Path(os.path.realpath(spec_dir))
    for path in candidates:
        if not path.is_symlink():
            continue
        real = Path(os.path.realpath(path))  # a loop resolves to itself, without raising
        if real != home and home not in real.parents:
            return "it links outside the spec's folder"
        return f"`{path.relative_to(root.parent)}` is a symbolic link, which cmpc never writes"
    return None


def sha256_of(path: Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _encode(reduced: Reduced) -> JsonObject:
    return {
        "format": reduced.format,
        "runs": reduced.runs,
        "points": {
            stat: [[getattr(p, f) for f in _POINT_FIELDS] for p in points]
            for stat, points in reduced.points.items()
        },
        "fields": {k: list(v) for k, v in reduced.fields},
    }


SPLICED = 256  # a point's strings this long (packed replicates) are copied in, not escaped
_MARK = re.compile(rb'"\\u0000(\d+)"')
_QUANTILES = _POINT_FIELDS.index("quantiles")


def _encoded_body(reduced: Reduced, verbatim: Callable[[str], bytes | None] | None = None) -> bytes:
    """`_canonical(_encode(reduced))`, byte for byte, with each long string of the points that
    json writes unchanged (printable ASCII, no quote or backslash) copied in afterwards: json
    escapes base64 at about 150 MB/s, and a sweep's entries hold 130 kB of it each. A run's
    points hold copies of one dict of CDF quantiles (a hundred floats): it is encoded once,
    not once a point (json's float repr was half of an entry's encoding). `verbatim`:
    `_verbatim_bytes` computed elsewhere (cachewrite's, in C)."""
    verbatim = verbatim or _verbatim_bytes
    doc = _encode(reduced)
    spliced: list[tuple[list[Any], int, object, tuple[bytes, ...]]] = []
    # a quantiles dict's keys and the ids of its value tuples (the points' copies of one dict
    # hold the same tuples, which outlive this call) -> its text
    shared: dict[tuple[tuple[object, int], ...], tuple[bytes, ...]] = {}
    for rows in doc["points"].values():
        for row in rows:
            for i, value in enumerate(row):
                text: tuple[bytes, ...]
                if isinstance(value, str) and len(value) >= SPLICED:
                    plain = verbatim(value)
                    if plain is None:
                        continue
                    text = (b'"', plain, b'"')  # joined once, with the rest, below
                elif i == _QUANTILES and isinstance(value, dict) and value:
                    same = tuple((k, id(v)) for k, v in value.items())
                    known = shared.get(same)
                    text = known if known is not None else (_canonical(value),)
                    shared[same] = text
                else:
                    continue
                row[i] = f"\0{len(spliced)}"  # json writes it as "\u0000<n>"
                spliced.append((row, i, value, text))
    out = _canonical(doc)
    if not spliced:
        return out
    parts = _MARK.split(out)  # text, mark number, text, ...: in key order, not the points'
    if sorted(int(n) for n in parts[1::2]) != list(range(len(spliced))):
        for row, i, value, _ in spliced:  # a stored string looks like a mark: no splicing
            row[i] = value
        return _canonical(doc)
    pieces: list[bytes] = []
    for k, part in enumerate(parts):
        if k % 2:
            pieces.extend(spliced[int(part)][3])
        else:
            pieces.append(part)
    return b"".join(pieces)


def _verbatim_bytes(text: str) -> bytes | None:
    """`text` as the ASCII bytes json writes between its quotes (ensure_ascii's plain characters:
    printable ASCII but the quote and the backslash), else None; a C pass, four times
    isprintable's speed."""
    if not text.isascii():
        return None
    data = text.encode("ascii")
    return None if data.translate(None, _PLAIN) else data


_PLAIN = bytes(c for c in range(0x20, 0x7F) if c not in b'"\\')


def _decode(doc: JsonObject) -> Reduced:
    points: dict[str, tuple[RunPoint, ...]] = {}
    for stat, rows in doc["points"].items():
        points[stat] = tuple(_point(row) for row in rows)
    if not isinstance(doc["format"], str) or type(doc["runs"]) is not int:
        raise TypeError("cache entry: `format` or `runs` has the wrong type")
    fields = doc.get("fields", {})
    if not isinstance(fields, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in fields.values()
    ):
        raise TypeError("cache entry: `fields` has the wrong type")
    stated = tuple((str(k), tuple(v)) for k, v in fields.items())
    return Reduced(doc["format"], doc["runs"], points, stated)


def _point(row: list[object]) -> RunPoint:
    """A stored point with its types checked: a checksum that matches does not make an entry
    trustworthy (one committed in a pull request's `.cmpc-cache/` was built by its author)."""
    # JSON values of any type until the loop below has checked each against its field
    values: dict[str, Any] = dict(zip(_POINT_FIELDS, row, strict=True))
    for name, value in values.items():
        if name in ("path", "label"):
            ok = isinstance(value, str)
        elif name in ("resampled", "pool"):
            ok = value is None or isinstance(value, str)
        elif name in ("index", "resamples"):
            ok = type(value) is int
        elif name == "limits":
            ok = isinstance(value, dict) and all(
                v is None or (isinstance(v, int | float) and not isinstance(v, bool))
                for v in value.values()
            )
        elif name == "fields":
            ok = isinstance(value, dict) and all(
                v is None or isinstance(v, str | int | float) for v in value.values()
            )
        elif name == "quantiles":
            ok = isinstance(value, dict) and all(
                isinstance(v, list)
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
                for v in value.values()
            )
            if ok:
                values[name] = {str(k): tuple(float(x) for x in v) for k, v in value.items()}
        else:
            ok = value is None or (isinstance(value, int | float) and not isinstance(value, bool))
        if not ok:
            raise TypeError(f"cache entry: `{name}` has the wrong type")
    return RunPoint(**values)


def clear(root: Path) -> str | None:
    """Delete what cmpc wrote in a cache folder, and the folder once empty; the reason when it
    could not, or the folder is not a cmpc cache (then nothing is deleted)."""
    if not root.exists():
        return None
    try:
        with cachefs.folder(root) as fd:
            try:
                tag = cachefs.read(fd, TAG, 4096)
            except OSError:
                return "it is not a cmpc cache (it holds no CACHEDIR.TAG)"
            if tag != TAG_TEXT.encode():
                return "it is not a cmpc cache (its CACHEDIR.TAG was not written by cmpc)"
            for name in ("entries", "hashes", "stages"):
                _remove(fd, name)
            for name in os.listdir(fd):
                if _OWN_FILE.fullmatch(name):
                    os.unlink(name, dir_fd=fd)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    with contextlib.suppress(OSError):
        os.rmdir(root)  # kept while it holds anything cmpc did not write
    return None


# Files cmpc writes at the top of its folder, and the temporary names they pass through.
_OWN_FILE = re.compile(r"\.?(CACHEDIR\.TAG|\.gitignore)(\.[0-9a-f]{8})?")


def _remove(dir_fd: int, name: str) -> None:
    """Remove a folder cmpc made (a link in its place is removed, never followed)."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def clear_cache(target: str = ".") -> Outcome:
    """`cmpc cache clear [SPEC_DIR]`: delete the cache a build of specs there would use."""
    place = Path(target)
    root = cache_dir(place.parent if place.is_file() else place)
    reason = clear(root)
    if reason is None:
        kept = " (kept the files cmpc did not write)" if root.exists() else ""
        return Outcome(stdout=f"cleared {root}{kept}\n")
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
