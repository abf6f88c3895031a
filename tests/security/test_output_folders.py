"""Output folders: a build replaces only a folder a build made (or a missing or empty one); the
spec's folder, its data, a folder of other files or a regular file are refused, nothing touched."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from cmpc import _fastswap  # built by setup.py, as CI installs it
from cmpc.build import outputs
from cmpc.safefs import remove_tree, why_not_replaceable

from .helpers import REPO, copy_spec, run_cli

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"
NOT_REPLACEABLE = "E506"
REFUSED = f"error[{NOT_REPLACEABLE}]"


def listing(root: Path) -> dict[str, str]:
    """Every entry under `root`: folders, links (with their target), files (with their hash)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = f"link {os.readlink(path)}"
            elif path.is_dir():
                out[rel] = f"folder {oct(path.stat().st_mode & 0o777)}"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def spec(tmp_path) -> Path:
    return copy_spec(SWEEP, tmp_path / "spec")


def _build(capsys, spec: Path, out: str) -> tuple[int, str, str]:
    return run_cli(capsys, ["build", str(spec), "-o", out, "--no-cache", "--quiet"])


@pytest.mark.parametrize("out", ["$PWD", ".", "data", "data/synthetic", ".."])
def test_the_spec_folder_and_its_data_are_never_replaced(spec, tmp_path, capsys, monkeypatch, out):
    monkeypatch.chdir(spec.parent)
    (spec.parent / ".cmpc-build").write_text("planted\n")  # a marker cannot make them replaceable
    before = listing(tmp_path)
    code, stdout, err = _build(capsys, Path(spec.name), out.replace("$PWD", str(spec.parent)))
    assert code == 2 and REFUSED in err, err
    assert "wrote" not in stdout
    assert listing(tmp_path) == before


def test_a_folder_of_other_files_is_refused_untouched(spec, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports" / "other").mkdir(parents=True)
    (tmp_path / "reports" / "README.md").write_text("# our reports\n")
    (tmp_path / "reports" / "other" / "q3.md").write_text("kept\n")
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, "reports")
    assert code == 2 and REFUSED in err and "reports" in err
    assert "did not write" in err
    assert listing(tmp_path) == before


def test_a_regular_file_is_not_turned_into_a_folder(spec, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile.txt").write_text("notes\n")
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, "afile.txt")
    assert code == 2 and REFUSED in err and "afile.txt" in err
    assert listing(tmp_path) == before


def test_the_working_folder_is_never_replaced(spec, tmp_path, capsys, monkeypatch):
    here = tmp_path / "empty"
    here.mkdir()
    monkeypatch.chdir(here)
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, ".")
    assert code == 2 and REFUSED in err and "working folder" in err
    assert listing(tmp_path) == before


def test_a_link_to_an_output_folder_is_refused(spec, tmp_path, capsys):
    assert _build(capsys, spec, str(tmp_path / "real"))[0] == 0
    (tmp_path / "link").symlink_to(tmp_path / "real")
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, str(tmp_path / "link"))
    assert code == 2 and REFUSED in err and "symbolic link" in err
    assert listing(tmp_path) == before


def test_a_marked_folder_that_holds_the_data_is_refused(spec, tmp_path, capsys):
    data = spec.parent / "data" / "synthetic" / "alpha"
    (data / ".cmpc-build").write_text("planted\n")
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, str(data))
    assert code == 2 and REFUSED in err and "input of this build" in err
    assert listing(tmp_path) == before


def test_missing_empty_and_built_folders_are_written(spec, tmp_path, capsys):
    out = tmp_path / "out"
    assert _build(capsys, spec, str(out))[0] == 0  # missing
    assert (out / ".cmpc-build").is_file() and (out / "report.md").is_file()
    code, stdout, _ = _build(capsys, spec, str(out))  # a build made it: replaced whole
    assert code == 0 and stdout.startswith("wrote ")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _build(capsys, spec, str(empty))[0] == 0
    assert (empty / "report.md").is_file()


def test_a_build_that_cannot_write_prints_no_wrote(spec, tmp_path, capsys):
    (tmp_path / "afile.txt").write_text("notes\n")
    code, stdout, err = _build(capsys, spec, str(tmp_path / "afile.txt" / "out"))
    assert code == 2 and "error[E500]" in err
    assert "wrote" not in stdout and "throughput" not in stdout


@pytest.mark.parametrize("umask", [0o022, 0o027], ids=oct)
def test_output_folders_follow_the_umask(spec, tmp_path, capsys, umask):
    previous = os.umask(umask)
    try:
        assert _build(capsys, spec, str(tmp_path / "out"))[0] == 0
    finally:
        os.umask(previous)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o777 & ~umask
    assert (tmp_path / "out" / "figures").stat().st_mode & 0o777 == 0o777 & ~umask
    assert (tmp_path / "out" / "report.md").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_file_the_earlier_build_did_not_write_stops_the_next(spec, tmp_path, capsys):
    """Notes a user put into a built folder are never deleted by the next build."""
    out = tmp_path / "out"
    assert _build(capsys, spec, str(out))[0] == 0
    (out / "notes.txt").write_text("mine\n")
    (out / "figures" / "mine.svg").write_text("<svg/>\n")
    before = listing(tmp_path)
    code, _, err = _build(capsys, spec, str(out))
    assert code == 2 and REFUSED in err and "`notes.txt`, which the earlier build" in err
    assert listing(tmp_path) == before
    (out / "figures" / "mine.svg").unlink()
    (out / "notes.txt").unlink()
    assert _build(capsys, spec, str(out))[0] == 0  # only its own files left: replaced


def test_files_the_earlier_build_wrote_are_replaced(spec, tmp_path, capsys):
    """A figure the earlier build wrote and this one does not write goes with the old folder."""
    out = tmp_path / "out"
    assert _build(capsys, spec, str(out))[0] == 0
    marker = out / ".cmpc-build"
    marker.write_text(marker.read_text() + "figures/old.svg\n")
    (out / "figures" / "old.svg").write_text("<svg/>\n")
    assert _build(capsys, spec, str(out))[0] == 0
    assert not (out / "figures" / "old.svg").exists()


@pytest.mark.parametrize(
    ("kept", "held"),
    [
        ("out", True),  # the folder itself (a template folder named as the output)
        ("out/spec.cmp", True),
        ("out/data/deep/run.json", True),
        ("out2/spec.cmp", False),  # a sibling whose name begins with the folder's
        ("spec.cmp", False),
    ],
)
def test_a_folder_holds_an_input_exactly_when_the_input_is_at_or_below_it(tmp_path, kept, held):
    reason = why_not_replaceable(tmp_path / "out", [tmp_path / kept])
    assert (reason is not None and "an input of this build" in reason) is held


def test_remove_tree_removes_a_folder_and_never_follows_a_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    tree = tmp_path / "old-outputs"
    (tree / "figures" / "deep").mkdir(parents=True)
    (tree / "report.md").write_text("# old\n")
    (tree / "figures" / "a.svg").write_text("<svg/>")
    (tree / "figures" / "deep" / "b.svg").write_text("<svg/>")
    (tree / "figures" / "link").symlink_to(outside)  # a link to a folder: removed, not entered
    (tree / "file-link").symlink_to(outside / "keep.txt")
    remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "mine\n"


def test_remove_tree_leaves_a_link_or_a_file_in_place(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "x").write_text("x")
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "file").write_text("f")
    for name in ("link", "file", "missing"):
        remove_tree(tmp_path / name)  # as shutil.rmtree(..., ignore_errors=True): nothing
    assert (target / "x").read_text() == "x"
    assert (tmp_path / "link").is_symlink() and (tmp_path / "file").is_file()


def _two_folders(root: Path) -> tuple[Path, Path]:
    a, b = root / "a", root / "b"
    a.mkdir()
    b.mkdir()
    (a / "which").write_text("a")
    (b / "which").write_text("b")
    return a, b


def test_the_c_exchange_swaps_two_folders_in_one_step(tmp_path):
    a, b = _two_folders(tmp_path)
    assert _fastswap.exchange(a, b) is True
    assert (a / "which").read_text() == "b" and (b / "which").read_text() == "a"
    assert _fastswap.exchange(str(a), os.fsencode(b)) is True  # str and bytes paths too
    assert (a / "which").read_text() == "a"
    assert _fastswap.exchange(a, tmp_path / "missing") is False
    assert (a / "which").read_text() == "a"


@pytest.mark.parametrize("c_module", [True, False])
def test_outputs_are_exchanged_with_or_without_the_c_module(tmp_path, monkeypatch, c_module):
    if not c_module:
        monkeypatch.setattr(outputs, "_fastswap", None)  # the ctypes way
    a, b = _two_folders(tmp_path)
    assert outputs._exchange(a, b) is True
    assert (a / "which").read_text() == "b" and (b / "which").read_text() == "a"
