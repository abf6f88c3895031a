"""A spec built as it was at a git revision, in a temporary worktree removed afterwards."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import Diagnostic, error, has_errors
from cmpc.files import display_path

GIT_TIMEOUT_S = 120  # a checkout of a large data folder; every git call is bounded
# No hooks, no pager, no prompts, no fsmonitor: checking a revision out runs nothing of the
# repository's own (a pull request cannot ship a post-checkout hook that runs here).
_GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"]
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0"}


def build_at_revision(
    rev: str, spec: str, *, sets: Sequence[str] = ()
) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """results.json of SPEC as committed at REV (built without the cache, into a temporary
    folder), or E803 saying why that revision cannot be built."""
    spec_path = Path(spec).resolve()
    if rev.startswith("-"):
        return None, [_unavailable(rev, spec, "a revision cannot start with `-`")]
    top, problem = _git(["rev-parse", "--show-toplevel"], spec_path.parent)
    if problem:
        return None, [_unavailable(rev, spec, f"not in a git repository ({problem})")]
    root = Path(top.strip()).resolve()
    try:
        relative = spec_path.relative_to(root).as_posix()
    except ValueError:
        return None, [_unavailable(rev, spec, "the spec is outside its repository's tree")]
    commit, problem = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
    if problem or not commit.strip():
        return None, [_unavailable(rev, spec, f"no commit `{rev}` (fetch it: fetch-depth 0)")]
    commit = commit.strip()
    _, problem = _git(["cat-file", "-e", f"{commit}:{relative}"], root)
    if problem:
        return None, [_unavailable(rev, spec, f"`{relative}` does not exist at `{rev}`")]
    scratch = Path(tempfile.mkdtemp(prefix="cmpc-rev-"))
    tree = scratch / "tree"
    try:
        _, problem = _git(["worktree", "add", "--detach", "--quiet", str(tree), commit], root)
        if problem:
            return None, [_unavailable(rev, spec, f"git worktree add failed: {problem}")]
        out = scratch / "build"
        outcome = build_spec(str(tree / relative), out_dir=str(out), sets=sets, use_cache=False)
        diagnostics = list(outcome.diagnostics)
        if has_errors(diagnostics):
            note = f"the spec as it was at `{rev}` does not build"
            return None, [*diagnostics, _unavailable(rev, spec, note)]
        document = json.loads((out / "results.json").read_text(encoding="utf-8"))
        return document, diagnostics
    finally:
        _git(["worktree", "remove", "--force", str(tree)], root)
        shutil.rmtree(scratch, ignore_errors=True)
        _git(["worktree", "prune"], root)


def _git(args: list[str], cwd: Path) -> tuple[str, str]:
    """(stdout, "") or ("", what went wrong): git's own message, one line."""
    try:
        done = subprocess.run(
            [*_GIT, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env={**os.environ, **_ENV},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", str(exc)
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        return "", lines[-1] if lines else f"git exited {done.returncode}"
    return done.stdout, ""


def _unavailable(rev: str, spec: str, reason: str) -> Diagnostic:
    return error(
        "E803",
        f"cannot build `{display_path(spec)}` at revision `{rev}`: {reason}",
        help="give a commit, branch or tag of the spec's repository in which the spec exists",
    )
