"""The files a run glob names, found without wandering through symbolic links to folders."""

from __future__ import annotations

import fnmatch
import os
import re

_MAGIC = re.compile(r"[*?[]")


class WalkTooLarge(Exception):
    """A glob's walk visited more files and folders than its limit allows."""


def expand(root: str, pattern: str, *, limit: int | None = None) -> list[str]:
    """Sorted paths under `root` that match `pattern` (glob syntax; `**` is any depth).

    Matches what `glob.glob(root/pattern, recursive=True)` finds in a tree without symbolic
    links, but a wildcard or `**` never enters a symbolic link to a folder (a literal folder name
    still may): glob follows them, so two links to `..` make its walk exponential, a hang that
    a hostile pull request could plant. Each (folder, pattern step) is visited once; past `limit`
    files and folders visited the walk stops with WalkTooLarge. A `..` segment is a ValueError:
    `**/..` names each folder under new spellings, so the walk would never meet itself (the
    checker refuses such globs as E119 first).
    """
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"run glob `{pattern}` has a `..` segment")
    found: set[str] = set()
    seen: set[tuple[str, int]] = set()
    stack = [(root, 0)]
    visited = 0

    def listed(folder: str, *, hidden: bool) -> list[tuple[str, bool]]:
        nonlocal visited
        entries = _entries(folder, hidden=hidden)
        visited += len(entries)
        if limit is not None and visited > limit:
            raise WalkTooLarge(f"visited more than {limit} files and folders")
        return entries

    while stack:
        folder, step = stack.pop()
        if (folder, step) in seen:
            continue
        seen.add((folder, step))
        if step == len(parts):
            found.add(folder)
            continue
        part, last = parts[step], step == len(parts) - 1
        if part == "**":
            stack.append((folder, step + 1))
            for name, is_dir in listed(folder, hidden=False):
                path = os.path.join(folder, name)
                if is_dir:
                    stack.append((path, step))
                elif last:
                    found.add(path)
        elif _MAGIC.search(part):
            hidden = part.startswith(".")
            for name, is_dir in listed(folder, hidden=hidden):
                if fnmatch.fnmatchcase(name, part) and (last or is_dir):
                    stack.append((os.path.join(folder, name), step + 1))
        else:
            path = os.path.join(folder, part)
            if os.path.isdir(path) if not last else os.path.lexists(path):
                stack.append((path, step + 1))
    if pattern.endswith("/"):  # as in glob: folders only
        return sorted(p for p in found if os.path.isdir(p))
    return sorted(found)


def _entries(folder: str, *, hidden: bool) -> list[tuple[str, bool]]:
    """(name, is a real folder) of each entry; links to folders count as files."""
    try:
        with os.scandir(folder) as it:
            out = []
            for entry in it:
                if not hidden and entry.name.startswith("."):
                    continue
                try:
                    out.append((entry.name, entry.is_dir(follow_symlinks=False)))
                except OSError:
                    continue
            return out
    except OSError:
        return []
