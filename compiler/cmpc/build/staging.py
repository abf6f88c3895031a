"""The build's analysis stage: found in the cache as the runs are loaded, stored after rendering.

See `cmpc.analysis.stage` (what is remembered) and `cmpc.ingest.cachestage` (how it is stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cmpc.analysis.stage import Memo, price_free_digest
from cmpc.ingest.cachestage import StageFile, save_stage
from cmpc.ir import model as ir


@dataclass(frozen=True)
class Stage:
    """A build's stage as it finds and adds steps, and the file it is stored in (None: never)."""

    file: StageFile | None
    memo: Memo

    def save(self) -> None:
        """Store the stage if the build added a step."""
        if self.file is not None and self.memo.changed:
            save_stage(self.file.root, self.file.key, self.memo.steps)


def stage_file(
    comparison: ir.Comparison, root: Path | None, sketch: float | None = None
) -> StageFile | None:
    """Where `load_data` looks the stage up once it knows the run files' entries (None: no cache).

    `sketch` is the one way a build reduces its runs that the IR does not state (`--sketch`).
    """
    return None if root is None else StageFile(root, price_free_digest(comparison), sketch)


def open_stage(found: StageFile | None) -> Stage:
    """The stage `load_data` settled on (empty if none is stored).

    Without a cache folder or run files it is never settled, nor stored: reported figures read
    no run, so there is nothing to keep.
    """
    if found is None or not found.key:
        return Stage(None, Memo(changed=False, stored=False))
    return Stage(found, Memo(found.steps))
