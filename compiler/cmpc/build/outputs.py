"""A build's outputs swapped in atomically: the old folder stays until the new one is complete.

Only a folder a build may replace is touched: a missing or empty one, or one holding the marker
(`.cmpc-build`) that every build writes last; see `cmpc.safefs.why_not_replaceable`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from cmpc import __version__
from cmpc.diagnostics import Diagnostic, error
from cmpc.safefs import (
    OUTPUT_MARKER,
    new_folder,
    output_marker,
    remove_tree,
    why_not_replaceable,
)

try:
    from cmpc import _fastswap  # optional C module (setup.py): renameat2 without ctypes
except ImportError:  # pragma: no cover - built without a C compiler
    _fastswap = None  # type: ignore[assignment]


def check_target(target: Path, keep: Iterable[Path] = ()) -> list[Diagnostic]:
    """E506 when the build may not replace `target` (see `why_not_replaceable`), else nothing."""
    reason = why_not_replaceable(target, keep)
    if reason is None:
        return []
    return [
        error(
            "E506",
            f"output folder is not replaced: {reason}",
            file=str(target),
            help="nothing was changed; name a new or empty folder with -o (e.g. build/NAME), "
            f"or one an earlier build wrote (it holds {OUTPUT_MARKER} and only the files it lists)",
        )
    ]


def write_atomically(
    target: Path, files: dict[str, str | bytes], keep: Iterable[Path] = ()
) -> list[Diagnostic]:
    """Write into a fresh folder beside the target, then swap it in; failures leave it as was.

    `keep` names the build's inputs (spec, data, templates): a folder holding one is never replaced.
    """
    target = Path(os.path.abspath(target))  # `-o .` has no name to put a sibling beside
    refused = check_target(target, keep)
    if refused:
        return refused
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _restore(target)
        staging = new_folder(target.parent, f".{target.name}.")  # the umask applies, unlike mkdtemp
    except OSError as exc:
        return [error("E500", f"cannot create output folder: {exc.strerror}", file=str(target))]
    try:
        marker = output_marker(__version__, files)
        for name, content in [*sorted(files.items()), (OUTPUT_MARKER, marker)]:
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if not target.exists():
            os.replace(staging, target)
        elif _exchange(staging, target):
            remove_tree(staging)  # it now holds the previous outputs
        else:  # no atomic exchange here: two renames, the old folder put back on failure
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            os.replace(target, old)
            try:
                os.replace(staging, target)
            except OSError:
                os.replace(old, target)
                raise
            remove_tree(old)
    except OSError as exc:
        remove_tree(staging)
        return [error("E500", f"cannot write outputs: {exc.strerror}", file=str(target))]
    return []


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported.

    With it a build killed at any moment leaves the old outputs or the new ones, never neither.
    """
    if not sys.platform.startswith("linux"):
        return False
    if _fastswap is not None:
        return _fastswap.exchange(a, b)
    import ctypes  # without the C module: 1.7 ms of imports, for one call

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    status: int = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return status == 0


def _restore(target: Path) -> None:
    """Put back outputs that a build killed between its two renames left at `.NAME.old-PID`."""
    if target.exists():
        return
    prefix = f".{target.name}.old-"
    for old in sorted(p for p in target.parent.iterdir() if p.name.startswith(prefix)):
        os.replace(old, target)
        return
