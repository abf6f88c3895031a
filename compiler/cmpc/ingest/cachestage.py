"""The analysis stage in the cache: one file per price-free IR and set of inputs.

`stages/<key>.json` is a header line `{"layout", "kind", "key", "sha256"}` (the SHA-256 of the
body), then the body `{step key: JSON text}` (see `cmpc.analysis.stage`). The key digests the
layout, cmpc's version and the source of every module that computes figures, the IR without
its prices and each input's path and SHA-256, so a changed run file, condition or analysis
never meets an old stage. A stage that is absent, not a regular file, too large, not JSON, of
another layout or key, damaged or of the wrong shape is a miss; writes are atomic and a failed
one only costs speed. Never pickle: a cache folder may come from someone else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from cmpc import __version__
from cmpc.ingest import cachefs
from cmpc.ingest.cache import package_digest
from cmpc.limits import current

STAGE_LAYOUT = 1
KIND = "cmpc-analysis-stage"
FOLDER = "stages"
# the modules whose code decides a figure; the IR's shape is in the key already
CODE_FOLDERS = ("analysis", "compute", "ingest", "traces", "ir", "language")
CODE_FILES = ("metrics.py", "__init__.py", "report/figures.py")  # figures: the stored curve


@lru_cache(maxsize=1)
def analysis_fingerprint() -> str:
    """Digest of the source of every module that computes figures ("unknown" if unreadable)."""
    return package_digest(CODE_FILES, CODE_FOLDERS)


def stage_key(
    price_free_ir: str,
    inputs: Sequence[tuple[str, str, str, str, int]],
    sketch: float | None = None,
) -> str:
    """The stage's name: layout, version, code, the price-free IR's digest, the inputs and how
    their percentiles were taken (`sketch`: a DDSketch's relative accuracy; None: exactly)."""
    doc = {
        "sketch": sketch,
        "layout": STAGE_LAYOUT,
        "cmpc": __version__,
        "code": analysis_fingerprint(),
        "ir": price_free_ir,
        "inputs": [list(i) for i in inputs],
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


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
        "sha256": hashlib.sha256(body).hexdigest(),
    }
