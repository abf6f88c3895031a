"""The cache is a cache: a committed or damaged `.cmpc-cache/` is ignored and rebuilt, never
followed, trusted for a file's SHA-256 or able to crash a build; cmpc writes and deletes only
what it wrote, and its default folder keeps itself out of git."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cmpc.ingest import cache as cache_module

from .helpers import REPO, copy_spec, run_cli, time_limit

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"
_WATCHED: list[set[str]] = []
_OPENED: list[str] = []
_HOOKED: list[bool] = []


def _hook(event: str, args: tuple) -> None:
    if event != "open" or not _WATCHED or not isinstance(args[0], str | bytes | os.PathLike):
        return
    path = os.fsdecode(args[0])
    if os.path.realpath(path) in _WATCHED[0]:
        _OPENED.append(path)
        raise PermissionError(f"test: {path} must not be opened")  # instead of hanging on it


@pytest.fixture
def spec(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("CMPC_CACHE_DIR", raising=False)
    monkeypatch.setattr("cmpc.ingest.reduce._workers", lambda: 1)  # lookups in this process
    return copy_spec(SWEEP, tmp_path / "spec")


def _build(capsys, spec: Path, out: Path, *more: str) -> tuple[int, str]:
    with time_limit(30):
        code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--quiet", *more])
    return code, err


def _results(out: Path) -> dict:
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {k: v for k, v in doc.items() if k != "warnings"}


def _entries(spec: Path) -> list[Path]:
    return sorted((spec.parent / ".cmpc-cache" / "entries").glob("*/*.json"))


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "secret", "/etc/shadow"])
def test_entries_committed_as_links_or_special_files_are_never_opened(spec, tmp_path, capsys, kind):
    if not _HOOKED:
        sys.addaudithook(_hook)  # hooks cannot be removed; it acts only while _WATCHED is set
        _HOOKED.append(True)
    code, err = _build(capsys, spec, tmp_path / "reference", "--no-cache")
    assert code == 0, err
    assert _build(capsys, spec, tmp_path / "cold")[0] == 0
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET\n", encoding="utf-8")
    target = {"secret": str(secret), "fifo": None}.get(kind, kind)
    entries = _entries(spec)
    assert entries
    for entry in entries:
        entry.unlink()
        if target is None:
            os.mkfifo(entry)  # no writer: opening it for reading blocks
        else:
            os.symlink(target, entry)
    _OPENED.clear()
    _WATCHED.append({os.path.realpath(p) for p in ([target] if target else entries)})
    try:
        code, err = _build(capsys, spec, tmp_path / "out")
    finally:
        _WATCHED.clear()
    assert _OPENED == [], f"opened {_OPENED[:3]}"
    assert code == 0, err
    assert _results(tmp_path / "out") == _results(tmp_path / "reference")
    assert all(e.is_file() and not e.is_symlink() for e in entries), "rebuilt as regular files"


@pytest.mark.parametrize("loop", [".cmpc-cache", ".cmpc-cache/entries", "entries/ab", "hashes"])
def test_link_loops_in_the_cache_folder_do_not_crash_a_build(spec, tmp_path, capsys, loop):
    code, err = _build(capsys, spec, tmp_path / "reference", "--no-cache")
    assert code == 0, err
    root = spec.parent / ".cmpc-cache"
    if loop != ".cmpc-cache":
        assert _build(capsys, spec, tmp_path / "cold")[0] == 0
    place = {"entries/ab": root / "entries" / "ab", "hashes": root / "hashes"}.get(
        loop, spec.parent / loop
    )
    if place.is_dir():
        import shutil

        shutil.rmtree(place)
    os.symlink(place.name, place)  # a link to itself
    code, err = _build(capsys, spec, tmp_path / "out")
    assert code == 0 and "warning[W701]" in err, err
    assert _results(tmp_path / "out") == _results(tmp_path / "reference")


def test_deeply_nested_entries_are_rebuilt(spec, tmp_path, capsys):
    code, err = _build(capsys, spec, tmp_path / "reference", "--no-cache")
    assert code == 0, err
    assert _build(capsys, spec, tmp_path / "cold")[0] == 0
    deep = b"[" * 100_000 + b"]" * 100_000
    for i, entry in enumerate(_entries(spec)):
        head = json.loads(entry.read_bytes().partition(b"\n")[0])
        if i % 2:  # a deep body with a matching checksum, or a deep header
            data = json.dumps({**head, "sha256": hashlib.sha256(deep).hexdigest()}).encode()
            entry.write_bytes(data + b"\n" + deep)
        else:
            entry.write_bytes(b'{"key": ' + deep + b"}\n{}")
    code, err = _build(capsys, spec, tmp_path / "out")
    assert code == 0, err
    assert _results(tmp_path / "out") == _results(tmp_path / "reference")


def test_a_damaged_hash_memo_never_becomes_the_printed_sha256(spec, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cache_module, "RACY_SECONDS", -10.0)  # the files count as settled
    assert _build(capsys, spec, tmp_path / "cold")[0] == 0
    memos = sorted((spec.parent / ".cmpc-cache" / "hashes").iterdir())
    assert memos, "hashes of settled files are remembered"
    wrong = hashlib.sha256(b"not the file").hexdigest()
    for i, memo in enumerate(memos):
        text = memo.read_text(encoding="ascii")
        damaged = [
            wrong,  # a bare digest (what the memo used to hold)
            text.replace(text.split(" ")[1], wrong) if " " in text else wrong,  # checksum stale
            text[:-1] + ("0" if text[-1] != "0" else "1"),  # one digit flipped
        ][i % 3]
        memo.write_text(damaged, encoding="ascii")
    code, err = _build(capsys, spec, tmp_path / "out")
    assert code == 0, err
    inputs = _results(tmp_path / "out")["inputs"]
    assert inputs
    for item in inputs:
        actual = hashlib.sha256((spec.parent / item["path"]).read_bytes()).hexdigest()
        assert item["sha256"] == actual, item["path"]


def _shared_folder(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A folder like `~/.cache`, holding other tools' files."""
    shared = tmp_path / "dot-cache"
    (shared / "pip" / "http").mkdir(parents=True)
    (shared / "pip" / "http" / "blob").write_bytes(b"pip's")
    (shared / "notes.txt").write_bytes(b"keep me")
    return shared, _tree(shared)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_cache_dir_set_to_a_shared_folder_is_not_taken_over(spec, tmp_path, capsys, monkeypatch):
    shared, before = _shared_folder(tmp_path)
    monkeypatch.setenv("CMPC_CACHE_DIR", str(shared))
    code, err = _build(capsys, spec, tmp_path / "out")
    assert code == 0 and "warning[W701]" in err and "did not write" in err, err
    assert _tree(shared) == before, "the build wrote into a folder that is not cmpc's"
    code, _, err = run_cli(capsys, ["cache", "clear"])
    assert code == 1 and "E702" in err
    assert _tree(shared) == before


def test_cache_clear_deletes_only_what_cmpc_wrote(spec, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "mine"
    folder.mkdir()  # empty: cmpc may make it its cache
    monkeypatch.setenv("CMPC_CACHE_DIR", str(folder))
    assert _build(capsys, spec, tmp_path / "out")[0] == 0
    assert (folder / "CACHEDIR.TAG").is_file() and list((folder / "entries").rglob("*.json"))
    (folder / "later.txt").write_bytes(b"another tool's")  # written after cmpc adopted it
    code, _, err = run_cli(capsys, ["cache", "clear"])
    assert code == 0, err
    assert _tree(folder) == {"later.txt": b"another tool's"}
    assert sorted(p.name for p in folder.iterdir()) == ["later.txt"]


def test_the_default_cache_folder_is_never_committed(spec, tmp_path, capsys):
    assert _build(capsys, spec, tmp_path / "out")[0] == 0
    root = spec.parent / ".cmpc-cache"
    assert (root / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    git = ["git", "-C", str(spec.parent)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    listed = subprocess.run([*git, "ls-files"], check=True, capture_output=True, text=True)
    assert listed.stdout and ".cmpc-cache" not in listed.stdout
