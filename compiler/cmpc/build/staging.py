"""The build's analysis stage: loaded from the cache before the analysis, stored after rendering.

See `cmpc.analysis.stage` (what is remembered) and `cmpc.ingest.cachestage` (how it is stored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cmpc.analysis.stage import Memo, price_free_digest
from cmpc.ingest.cachestage import load_stage, save_stage, stage_key
from cmpc.ingest.load import Input
from cmpc.ir import model as ir


@dataclass(frozen=True)
class Stage:
    """Where a build's stage is stored, and its steps as the build finds and adds them."""

    root: Path
    key: str
    memo: Memo

    def save(self) -> None:
        """Store the stage if the build added a step."""
        if self.memo.changed:
            save_stage(self.root, self.key, self.memo.steps)


def open_stage(
    comparison: ir.Comparison,
    inputs: Sequence[Input],
    root: Path | None,
    sketch: float | None = None,
) -> Stage:
    """The stage for these conditions and inputs under `root` (empty if none is stored).

    `sketch` is the one way a build reduces its runs that the IR does not state (`--sketch`).

    Without a cache folder (`root` None) or run files the stage is never stored: reported
    figures read no run, so there is nothing to keep.
    """
    if root is None or not inputs:
        return Stage(Path(), "", Memo(changed=False, stored=False))
    key = stage_key(
        price_free_digest(comparison),
        [(i.path, i.sha256, i.format, i.system, i.runs) for i in inputs],
        sketch,
    )
    return Stage(root, key, Memo(load_stage(root, key) or {}))
