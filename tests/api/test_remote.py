"""Remote run globs (fsspec URLs): refused unless allowed, confined, hashed as read."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import fsspec
import pytest

import cmpc
from cmpc.cli import main

from .helpers import cli_build, sweep_copy

BETA = '"data/synthetic/beta/*.jsonl"'


@pytest.fixture
def memory():
    """fsspec's in-process memory filesystem, emptied after the test."""
    fs = fsspec.filesystem("memory")
    yield fs
    fs.rm("/", recursive=True)


def _remote_spec(tmp_path, glob: str):
    spec = sweep_copy(tmp_path)
    text = spec.read_text()
    assert BETA in text
    remote = spec.with_name("remote.cmp")
    remote.write_text(text.replace(BETA, f'"{glob}"'))
    return spec, remote


def _put_beta(fs, spec) -> dict[str, str]:
    """The beta runs copied into memory://bench/beta/; their SHA-256 by URL."""
    hashes = {}
    for path in sorted((spec.parent / "data" / "synthetic" / "beta").glob("*.jsonl")):
        data = path.read_bytes()
        fs.pipe(f"/bench/beta/{path.name}", data)
        hashes[f"memory:///bench/beta/{path.name}"] = hashlib.sha256(data).hexdigest()
    return hashes


def test_a_url_glob_is_refused_by_default_before_fsspec_is_imported(tmp_path):
    _, remote = _remote_spec(tmp_path, "s3://bench/beta/*.jsonl")
    code = (
        "import sys; from cmpc.cli import main; "
        "code = main(['build', sys.argv[1], '-o', sys.argv[2], '--no-cache']); "
        "print(code, 'fsspec' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(remote), str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert done.stdout.split() == ["1", "False"]
    assert "E508" in done.stderr and "--allow-remote" in done.stderr
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(remote)
    assert raised.value.codes == ("E508",)


def test_memory_urls_build_the_local_figures_with_the_hashes_of_the_bytes_read(tmp_path, memory):
    spec, remote = _remote_spec(tmp_path, "memory://bench/beta/*.jsonl")
    hashes = _put_beta(memory, spec)
    here = cmpc.build(spec, render=False)
    there = cmpc.build(remote, render=False, allow_remote=True)
    assert there.headline == here.headline
    read, local = (r.reads["beta"] for r in (there, here))
    assert read["throughput_per_gpu"] == local["throughput_per_gpu"]
    assert [k["label"] for k in read["knots"]] == [
        "memory:///bench/beta/" + k["label"].rsplit("/", 1)[1] for k in local["knots"]
    ]
    inputs = {i["path"]: i["sha256"] for i in there.document["inputs"] if i["system"] == "beta"}
    assert inputs == hashes


def test_the_cache_is_keyed_by_the_bytes_read_not_the_url(tmp_path, memory):
    spec, remote = _remote_spec(tmp_path, "memory://bench/beta/*.jsonl")
    _put_beta(memory, spec)
    cache = tmp_path / "cache"
    first = cmpc.build(remote, render=False, allow_remote=True, cache=True, cache_dir=cache)
    # the same URL now holds another run's bytes: a stale cache entry would hide the change
    memory.pipe("/bench/beta/conc-64.jsonl", memory.cat("/bench/beta/conc-01.jsonl"))
    second = cmpc.build(remote, render=False, allow_remote=True, cache=True, cache_dir=cache)
    uncached = cmpc.build(remote, render=False, allow_remote=True)
    assert second.document == uncached.document
    assert second.document["systems"]["beta"] != first.document["systems"]["beta"]
    url = "memory:///bench/beta/conc-64.jsonl"
    sha = {i["path"]: i["sha256"] for i in second.document["inputs"]}[url]
    assert sha == hashlib.sha256(memory.cat("/bench/beta/conc-01.jsonl")).hexdigest()


def test_file_urls_are_held_to_the_spec_folder(tmp_path):
    spec, inside = _remote_spec(tmp_path / "a", "")
    beta = spec.parent / "data" / "synthetic" / "beta"
    inside.write_text(spec.read_text().replace(BETA, f'"file://{beta}/*.jsonl"'))
    out = tmp_path / "out"
    assert main(["build", str(inside), "-o", str(out), "--no-cache", "--allow-remote"]) == 0
    assert cli_build(spec, tmp_path / "local") == 0
    built, local = (json.loads((p / "results.json").read_text()) for p in (out, tmp_path / "local"))
    assert built["headline"] == local["headline"]
    other = sweep_copy(tmp_path / "b").parent / "data" / "synthetic" / "beta"
    inside.write_text(spec.read_text().replace(BETA, f'"file://{other}/*.jsonl"'))
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(inside, allow_remote=True)
    assert set(raised.value.codes) == {"E503"}


@pytest.mark.parametrize(
    "glob, reason",
    [
        ("simplecache::memory://bench/beta/*.jsonl", "chained"),
        ("ftp://127.0.0.1/beta/*.jsonl", "protocol `ftp`"),
    ],
)
def test_chained_urls_and_other_protocols_are_refused_even_when_allowed(tmp_path, glob, reason):
    _, remote = _remote_spec(tmp_path, glob)
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(remote, allow_remote=True)
    assert raised.value.codes == ("E508",) and reason in str(raised.value)


def test_a_missing_remote_file_is_an_io_error_naming_the_url(tmp_path, memory, capsys):
    spec, remote = _remote_spec(tmp_path, "memory://bench/beta/conc-01.jsonl")
    out = tmp_path / "out"
    assert main(["build", str(remote), "-o", str(out), "--no-cache", "--allow-remote"]) == 1
    assert "E502" in capsys.readouterr().err  # nothing at that URL: the glob matches no file
    _put_beta(memory, spec)
    assert main(["build", str(remote), "-o", str(out), "--no-cache", "--allow-remote"]) == 0


def test_without_fsspec_remote_globs_say_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "fsspec", None)  # `import fsspec` now raises ImportError
    _, remote = _remote_spec(tmp_path, "memory://bench/beta/*.jsonl")
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(remote, allow_remote=True)
    assert raised.value.codes == ("E509",) and "cmpc[remote]" in raised.value.diagnostics[0].help
