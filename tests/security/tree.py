"""A scratch tree for fuzz cases: every command runs in it, and the tree is compared before and
after, so a case fails if anything is written outside the output and cache folders."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
from pathlib import Path

from .helpers import run_cli

# A file's digest, remembered by what any write changes (ctime cannot be set back by a program).
_DIGESTS: dict[tuple, str] = {}


def _digest(path: str, info: os.stat_result) -> str:
    key = (path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if key not in _DIGESTS:
        with open(path, "rb") as handle:
            _DIGESTS[key] = hashlib.file_digest(handle, "sha256").hexdigest()
    return _DIGESTS[key]


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under `root` (links not followed): relative path -> kind, mode, size, mtime
    in ns and SHA-256 for files, target for links."""
    entries: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            rel = os.path.relpath(path, root)
            if stat.S_ISLNK(info.st_mode):
                entries[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                entries[rel] = ("folder", info.st_mode)
            elif stat.S_ISREG(info.st_mode):
                digest = _digest(path, info)
                entries[rel] = ("file", info.st_mode, info.st_size, info.st_mtime_ns, digest)
            else:
                entries[rel] = ("special", info.st_mode)
    return entries


def changes(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """Paths added, removed or changed between two snapshots."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def _under(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f + os.sep) for f in folders)


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """root/specs (copied data, no links), root/out, root/cache (CMPC_CACHE_DIR), root/cwd."""

    root: Path

    @property
    def specs(self) -> Path:
        return self.root / "specs"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def cwd(self) -> Path:
        return self.root / "cwd"

    def run(self, capsys, argv: list[str], *, seconds: float = 30.0) -> tuple[int, str, str]:
        """`cmpc ARGV`, asserting what every case must hold: exit 0, 1 or 2, no traceback or
        internal error, a diagnostic on failure, nothing written outside `out/` (and only by a
        build that succeeded) or `cache/`, and a complete output folder or the previous one."""
        before = snapshot(self.root)
        code, out, err = run_cli(capsys, argv, seconds=seconds)
        stray = changes(before, snapshot(self.root))
        allowed = ("cache", "out") if argv[0] == "build" and code == 0 else ("cache",)
        stray = [p for p in stray if not _under(p, allowed)]
        assert not stray, (argv, code, stray[:20], err[-1500:])
        if code != 0:
            assert "error[" in err, (argv, code, err[-1500:])
        elif argv[0] == "build":
            assert_complete(self.out)
        return code, out, err


def assert_complete(out: Path) -> None:
    """An output folder as a finished build leaves it: every file, the marker last."""
    assert (out / ".cmpc-build").is_file(), sorted(os.listdir(out))
    json.loads((out / "results.json").read_text(encoding="utf-8"), parse_constant=_not_json)
    assert (out / "report.md").read_text(encoding="utf-8").strip()
    assert (out / "figures.csv").is_file()
    leftovers = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    assert not leftovers, leftovers


def _not_json(constant: str):
    raise AssertionError(f"results.json holds {constant}, which is not JSON")


def make_sandbox(root: Path, patch) -> Sandbox:
    """The folders of a sandbox, the cache pointed inside it, the working folder in it."""
    box = Sandbox(root)
    box.cwd.mkdir(parents=True)
    box.specs.mkdir(exist_ok=True)
    patch.setenv("CMPC_CACHE_DIR", str(box.cache))
    patch.chdir(box.cwd)
    patch.setattr("cmpc.ingest.reduce._workers", lambda: 1)  # serial: no process pool per case
    return box


def assert_no_links(root: Path) -> None:
    """A copy made for a sandbox holds real files only."""
    links = [p for p in root.rglob("*") if p.is_symlink()]
    assert not links, links
