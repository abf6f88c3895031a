"""Spec files: read only as regular files inside their folder tree, rewritten by `cmpc fmt` only
through an exclusive temporary, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from .helpers import REPO, copy_spec, run_cli

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"
SECRET = "TOP-SECRET-91c4"
VERBS = (["check"], ["fmt", "--check"], ["fmt"], ["build", "--no-cache"])


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A checkout with `specs/` (the sweep spec and its data) and a folder outside it."""
    copy_spec(SWEEP, tmp_path / "repo" / "specs")
    (tmp_path / "outside").mkdir()
    return tmp_path / "repo"


def _unformatted(spec: Path) -> str:
    return spec.read_text(encoding="utf-8").replace("\n  ", "\n     ", 1)


@pytest.mark.parametrize("target", ["/proc/self/environ", "/etc/passwd"])
def test_a_spec_linked_outside_its_folder_is_refused_unread(checkout, capsys, monkeypatch, target):
    monkeypatch.setenv("CMPC_TEST_SECRET", SECRET)
    monkeypatch.chdir(checkout)
    os.symlink(target, "specs/leak.cmp")
    first = Path(target).read_bytes().split(b"\n")[0].decode(errors="replace")[:20]
    for verb in VERBS:
        code, out, err = run_cli(capsys, [*verb, "specs/leak.cmp"])
        assert code == 2 and "error[E092]" in err, (verb, err)
        assert SECRET not in out + err and first not in out + err, verb
        assert "specs/leak.cmp" in err


def test_a_spec_linked_above_its_folder_does_not_move_the_root(checkout, capsys, monkeypatch):
    monkeypatch.chdir(checkout)
    copy_spec(SWEEP, checkout)  # a valid spec and data at the checkout root
    (checkout / "synthetic-sweep.cmp").rename(checkout / "rootspec.cmp")
    os.symlink("../rootspec.cmp", "specs/root.cmp")
    for verb in VERBS:
        code, _, err = run_cli(capsys, [*verb, "specs/root.cmp"])
        assert code == 2 and "error[E092]" in err, (verb, err)
    assert not Path("build").exists()


def test_a_spec_linked_inside_its_folder_is_read(checkout, capsys, monkeypatch):
    monkeypatch.chdir(checkout)
    (checkout / "specs" / "sub").mkdir()
    (checkout / "specs" / "synthetic-sweep.cmp").rename(checkout / "specs" / "sub" / "b.cmp")
    os.symlink("sub/b.cmp", "specs/a.cmp")
    assert run_cli(capsys, ["check", "specs/a.cmp"])[0] == 0
    assert run_cli(capsys, ["fmt", "--check", "specs/a.cmp"])[0] == 0


def test_pipes_devices_and_system_files_are_refused_before_reading(checkout, capsys):
    fifo = checkout / "specs" / "pipe.cmp"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    for path in (str(fifo), "/dev/zero", "/proc/self/environ", str(checkout / "specs")):
        for verb in VERBS:
            code, _, err = run_cli(capsys, [*verb, path], seconds=5)
            assert code == 2 and "error[E092]" in err, (path, verb, err)


def test_standard_input_is_still_a_spec(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(SWEEP.read_text(encoding="utf-8")))
    assert run_cli(capsys, ["check", "-"])[0] == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("comparison {\n"))
    code, _, err = run_cli(capsys, ["check", "-"])
    assert code == 1 and "<stdin>" in err


def test_fmt_does_not_write_through_a_link_at_the_old_temporary_name(checkout, capsys):
    spec = checkout / "specs" / "synthetic-sweep.cmp"
    victim = checkout.parent / "outside" / "victim.txt"
    victim.write_text("precious\n")
    planted = spec.with_name(f".{spec.name}.cmpc-fmt")
    planted.symlink_to(victim)
    spec.write_text(_unformatted(spec), encoding="utf-8")
    spec.chmod(0o640)
    assert run_cli(capsys, ["fmt", str(spec)])[0] == 0
    assert victim.read_text() == "precious\n"
    assert run_cli(capsys, ["fmt", "--check", str(spec)])[0] == 0  # it was formatted
    assert stat.S_IMODE(spec.stat().st_mode) == 0o640  # and kept its mode
    assert sorted(p.name for p in spec.parent.iterdir() if p.name.startswith(".")) == [planted.name]


def test_fmt_does_not_replace_a_spec_that_is_a_link(checkout, capsys):
    specs = checkout / "specs"
    (specs / "sub").mkdir()
    target = specs / "sub" / "b.cmp"
    target.write_text(_unformatted(specs / "synthetic-sweep.cmp"), encoding="utf-8")
    before = target.read_bytes()
    (specs / "a.cmp").symlink_to("sub/b.cmp")
    code, _, err = run_cli(capsys, ["fmt", str(specs / "a.cmp")])
    assert code == 2 and "error[E092]" in err and "symbolic link" in err
    assert (specs / "a.cmp").is_symlink() and target.read_bytes() == before


def test_init_does_not_follow_a_link_at_the_new_name(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outside = tmp_path / "outside.txt"
    Path("comparison.cmp").symlink_to(outside)  # dangling: the file would be created there
    code, _, err = run_cli(capsys, ["init"])
    assert code == 2 and "error[E090]" in err and "already exists" in err
    assert not outside.exists()


def test_a_link_to_a_sibling_folder_sharing_the_name_prefix_is_refused(tmp_path):
    # the tree is compared by path components: `specs-old/` is not inside `specs/`
    from cmpc.safefs import Refused, confined, read_regular

    (tmp_path / "specs").mkdir()
    (tmp_path / "specs-old").mkdir()
    (tmp_path / "specs-old" / "a.cmp").write_text(SECRET)
    (tmp_path / "specs" / "b.cmp").write_text("inside")
    os.symlink(tmp_path / "specs-old" / "a.cmp", tmp_path / "specs" / "a.cmp")
    for root in (tmp_path / "specs", str(tmp_path / "specs")):
        with pytest.raises(Refused, match="outside its folder"):
            read_regular(str(tmp_path / "specs" / "a.cmp"), root, 100)
        assert read_regular(tmp_path / "specs" / "b.cmp", root, 100) == b"inside"
        assert confined(tmp_path / "specs" / "b.cmp", root) == (tmp_path / "specs" / "b.cmp")
