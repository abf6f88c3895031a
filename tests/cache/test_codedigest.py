"""The code digests that key the cache: remembered by the files' stat, recomputed on any edit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cmpc.ingest import codedigest


def _expected(root: Path, names: list[str]) -> str:
    """The digest as documented, computed here: each file's name and bytes, in order."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return digest.hexdigest()


@pytest.fixture
def package(tmp_path, monkeypatch) -> Path:
    """A stand-in package folder: two modules in `ingest/`, one file, one extension."""
    root = tmp_path / "cmpc"
    (root / "ingest").mkdir(parents=True)
    (root / "ingest" / "a.py").write_text("A = 1\n")
    (root / "ingest" / "b.py").write_text("B = 2\n")
    (root / "ingest" / "notes.txt").write_text("not code\n")
    (root / "metrics.py").write_text("M = 3\n")
    (root / "_fastscan.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    monkeypatch.setattr(codedigest, "_PACKAGE", str(root))
    monkeypatch.setattr(codedigest, "_MEMO", str(root / "__pycache__" / "code-digests.json"))
    monkeypatch.setattr(codedigest, "_memo", None)
    monkeypatch.setattr(codedigest, "SETTLED_SECONDS", -10.0)  # files just written count
    return root


NAMES = ["metrics.py", "ingest/a.py", "ingest/b.py", "_fastscan.cpython-311-x86_64-linux-gnu.so"]


def _digest() -> str:
    codedigest._memo = None  # as a new process would: the memo is read again
    return codedigest.package_digest(("metrics.py",), ("ingest",))


def test_the_digest_is_of_the_files_bytes_and_is_remembered(package):
    assert _digest() == _expected(package, NAMES)
    memo = json.loads((package / "__pycache__" / "code-digests.json").read_text())
    assert list(memo["digests"].values()) == [_expected(package, NAMES)]
    assert _digest() == _expected(package, NAMES)


def test_a_remembered_digest_is_used_until_a_file_changes(package):
    _digest()
    path = package / "__pycache__" / "code-digests.json"
    memo = json.loads(path.read_text())
    planted = "f" * 64
    memo["digests"] = dict.fromkeys(memo["digests"], planted)
    path.write_text(json.dumps(memo))
    assert _digest() == planted  # the memo is read: no source was hashed
    (package / "ingest" / "b.py").write_text("B = 20\n")
    assert _digest() == _expected(package, NAMES)  # an edit changes the stat signature
    (package / "ingest" / "c.py").write_text("C = 4\n")  # a new module is covered too
    assert _digest() == _expected(package, [*NAMES[:3], "ingest/c.py", NAMES[3]])


def test_files_changed_just_now_are_not_remembered(package, monkeypatch):
    monkeypatch.setattr(codedigest, "SETTLED_SECONDS", 3600.0)
    assert _digest() == _expected(package, NAMES)
    assert not (package / "__pycache__" / "code-digests.json").exists()


@pytest.mark.parametrize(
    "text", ["", "{", "[]", '{"stamp": "other", "digests": {}}', '{"stamp": 1}', "[" * 10_000]
)
def test_a_malformed_memo_means_hashing_again(package, text):
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "code-digests.json").write_text(text)
    assert _digest() == _expected(package, NAMES)


def test_a_memo_entry_that_is_not_a_digest_is_ignored(package):
    _digest()
    path = package / "__pycache__" / "code-digests.json"
    memo = json.loads(path.read_text())
    memo["digests"] = dict.fromkeys(memo["digests"], "not a digest")
    path.write_text(json.dumps(memo))
    assert _digest() == _expected(package, NAMES)


def test_the_real_package_digest_matches_its_sources():
    root = Path(codedigest._PACKAGE)
    names = ["metrics.py"]
    for folder in ("ingest", "traces"):
        names += sorted(
            f"{folder}/{p.name}" for p in (root / folder).iterdir() if p.suffix == ".py"
        )
    names += sorted(p.name for p in root.iterdir() if codedigest._is_extension(p.name))
    assert codedigest.package_digest(("metrics.py",), ("ingest", "traces")) == _expected(
        root, names
    )
