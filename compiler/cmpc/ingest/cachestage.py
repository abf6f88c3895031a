"""The analysis stage in the cache: one file per price-free IR and set of inputs.

`stages/<key>.json` is a header line `{"layout", "kind", "key", "blake2b"}` (a 256-bit BLAKE2b
of the body: as strong a check, without loading OpenSSL), then the body `{step key: JSON
text}` (see `cmpc.analysis.stage`), one of whose steps (`entries`) states the summary of each
cache entry the build read. The key digests the layout, cmpc's version and the source of every
module that computes figures, the IR without its prices and, for each run file, its system,
path and the digest of its entry's key (which holds the file's SHA-256 and everything its
reduction reads), so a changed run file, condition or analysis never meets an old stage. The
key is known before any entry is opened (the files' SHA-256 come from the stat memo), so a
stage hit reads no entry: the entries' summaries in the stage list the inputs, and an entry is
opened only if a step the stage lacks reads its points (`EntryPoints`). A stage that is
absent, not a regular file, too large, not JSON, of another layout or key, damaged or of the
wrong shape is a miss; writes are atomic and a failed one only costs speed.
Never pickle: a cache folder may come from someone else.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cmpc import __version__
from cmpc.digests import checksum, sha256
from cmpc.ingest import cachefs
from cmpc.ingest.cache import (
    Cache,
    CorruptEntry,
    Key,
    LazyPoints,
    Reduced,
    Summary,
    summary_of,
    summary_of_reduced,
)
from cmpc.ingest.codedigest import package_digest
from cmpc.ingest.points import RunPoint
from cmpc.limits import current

STAGE_LAYOUT = 2  # 2: keyed by the entries' keys, which it summarizes (a hit opens none)
KIND = "cmpc-analysis-stage"
FOLDER = "stages"
# the modules whose code decides a figure; the IR's shape is in the key already
CODE_FOLDERS = ("analysis", "compute", "ingest", "traces", "ir", "language")
CODE_FILES = ("metrics.py", "__init__.py", "report/figures.py")  # figures: the stored curve


@lru_cache(maxsize=1)
def analysis_fingerprint() -> str:
    """Digest of the source of every module that computes figures ("unknown" if unreadable)."""
    return package_digest(CODE_FILES, CODE_FOLDERS)


# A run file as the stage knows it: (system, spec-relative path, the digest of its entry's key)
Identity = tuple[str, str, str]
ENTRIES = "entries"  # the step that states each entry's summary (step keys are hex digests)


def stage_key(
    price_free_ir: str,
    entries: Sequence[Identity],
    sketch: float | None = None,
) -> str:
    """The stage's name: layout, version, code, the price-free IR's digest, each run file's
    entry and how percentiles were taken (`sketch`: a DDSketch's accuracy; None: exactly)."""
    doc = {
        "sketch": sketch,
        "layout": STAGE_LAYOUT,
        "cmpc": __version__,
        "code": analysis_fingerprint(),
        "ir": price_free_ir,
        "entries": [list(i) for i in entries],
    }
    return sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@dataclass
class StageFile:
    """A build's stage under `root`, found (`find`) once the run files' entries are known."""

    root: Path
    price_free_ir: str
    sketch: float | None = None
    key: str = ""  # "" until `settle`: nothing is stored
    steps: dict[str, str] = field(default_factory=dict)
    _tried: str = ""
    _entries: list[Identity] = field(default_factory=list)
    _summaries: dict[str, Summary] = field(default_factory=dict)

    def find(self, entries: Sequence[Identity]) -> dict[str, Summary]:
        """The stage stored for these entries: each entry's summary by digest ({}: a miss)."""
        if not self._tried or list(entries) != self._entries:
            key = stage_key(self.price_free_ir, entries, self.sketch)
            self._tried, self._entries = key, list(entries)
            steps = load_stage(self.root, key) or {}
            found = _summaries(steps.get(ENTRIES), {digest for _, _, digest in entries})
            self.steps, self._summaries = (steps, found) if found else ({}, {})
        return self._summaries

    def settle(self, entries: Sequence[Identity], summaries: Mapping[str, Summary]) -> None:
        """The entries the build read, with their summaries: the stage is theirs, stored under
        their key (one that states other summaries for them is a miss)."""
        if self.find(entries) != summaries:
            self.steps = {}
        self.key = self._tried
        self.steps[ENTRIES] = json.dumps(
            {d: _summary_json(s) for d, s in summaries.items()}, sort_keys=True
        )


def _summaries(text: str | None, digests: set[str]) -> dict[str, Summary]:
    """The `entries` step decoded, if it states a summary for exactly these digests."""
    if text is None:
        return {}
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or set(doc) != digests:
            return {}
        return {str(d): summary_of(s) for d, s in doc.items()}
    except (ValueError, KeyError, TypeError, RecursionError):
        return {}


def _summary_json(summary: Summary) -> dict[str, object]:
    fmt, runs, fields, counts = summary
    return {"format": fmt, "runs": runs, "fields": dict(fields), "counts": counts}


class EntryPoints(LazyPoints):
    """An entry's points, its file opened and checked only when a point is first read.

    The stage stated the entry's summary; the entry read then must state the same one, else
    `CorruptEntry` (the build starts again without the stage).
    """

    def __init__(self, cache: Cache, key: Key, summary: Summary) -> None:
        self._points: Mapping[str, tuple[RunPoint, ...]] | None = None
        self._cache, self._key, self._summary = Cache(cache.root), key, summary
        self.counts = dict(summary[3])

    def _decoded(self) -> Mapping[str, tuple[RunPoint, ...]]:
        if self._points is None:
            found = self._cache.get(self._key)  # eager: checksum, key, every point's type
            if found is None or summary_of_reduced(found) != self._summary:
                raise CorruptEntry("the entry the stage summarizes is missing or differs")
            self._points = found.points
        return self._points


def staged(cache: Cache, key: Key, summary: Summary) -> Reduced:
    """An entry as the stage summarizes it, opened only when its points are read."""
    fmt, runs, fields, _ = summary
    return Reduced(fmt, runs, EntryPoints(cache, key, summary), fields)


def load_stage(root: Path, key: str) -> dict[str, str] | None:
    """The stage's steps, or None: a miss (absent, unreadable, foreign or malformed)."""
    try:
        with cachefs.folder(root, FOLDER) as fd:
            data = cachefs.read(fd, f"{key}.json", current().record_bytes)
        head, _, body = data.partition(b"\n")
        if json.loads(head) != _header(key, body):
            return None
        steps = json.loads(body)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(steps, dict):
        return None
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in steps.items()):
        return None
    return steps


def save_stage(root: Path, key: str, steps: Mapping[str, str]) -> None:
    """Store the stage atomically; too large or unwritable: not stored."""
    body = json.dumps(dict(steps), sort_keys=True, separators=(",", ":")).encode()
    data = json.dumps(_header(key, body), sort_keys=True).encode() + b"\n" + body
    if len(data) > current().record_bytes:
        return
    with contextlib.suppress(OSError), cachefs.folder(root, FOLDER, create=True) as fd:
        cachefs.write(fd, f"{key}.json", data)


def _header(key: str, body: bytes) -> dict[str, object]:
    return {
        "layout": STAGE_LAYOUT,
        "kind": KIND,
        "key": key,
        "blake2b": checksum(body),
    }
