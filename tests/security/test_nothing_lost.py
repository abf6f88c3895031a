"""Nothing lost: a build killed at any point, or failing, leaves the previous outputs as they
were; cache entries are verified, and damaged or planted ones are rebuilt, never trusted."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cmpc import __version__
from cmpc.safefs import output_marker

from .helpers import REPO, copy_spec, run_cli

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"
OLD = ["--set", "cost.utilization=50%"]
NEW = ["--set", "cost.utilization=80%"]
STATS = ("median", "p90", "p99")
NAN = float("nan")

# A build in a child process that stops at one point, says so in a marker file, and waits to be
# killed there: after reading the runs, while rendering, with one output file staged, or just
# before the finished folder is swapped in.
CHILD = r"""
import os, pathlib, sys, time
spec, out, marker, point, *sets = sys.argv[1:]

def pause():
    pathlib.Path(marker).write_text(point)
    time.sleep(120)

def after(module, name, calls=1):
    import importlib
    mod = importlib.import_module(module)
    real, seen = getattr(mod, name), []
    def wrapper(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append(1)
        if len(seen) == calls:
            pause()
        return result
    setattr(mod, name, wrapper)

def before(module, name):
    import importlib
    mod = importlib.import_module(module)
    real = getattr(mod, name)
    def wrapper(*args, **kwargs):
        pause()
        return real(*args, **kwargs)
    setattr(mod, name, wrapper)

if point == "reading":
    after("cmpc.ingest.reduce", "reduce_file", calls=3)
elif point == "rendering":
    before("cmpc.report", "render_outputs")
elif point == "staging":
    import pathlib as _p
    real = _p.Path.write_text
    def write_text(self, *args, **kwargs):
        n = real(self, *args, **kwargs)
        if self.name == "report.md":
            pause()
        return n
    _p.Path.write_text = write_text
elif point == "swapping":
    import cmpc.build.outputs as b
    real_replace = os.replace
    def replace(src, dst, *args, **kwargs):
        if os.path.basename(str(dst)) == os.path.basename(out):
            pause()
        return real_replace(src, dst, *args, **kwargs)
    os.replace = replace
    swap = b._exchange
    def exchange(a, c):
        pause()
        return swap(a, c)
    b._exchange = exchange
import cmpc.ingest.reduce
cmpc.ingest.reduce._workers = lambda: 1
from cmpc.cli import main
sys.exit(main(["build", spec, "-o", out, "--no-cache", "--quiet", *sets]))
"""


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A spec with its data, and the output trees of its OLD and NEW builds."""
    root = tmp_path_factory.mktemp("lost")
    spec = copy_spec(SWEEP, root / "spec")
    from cmpc.cli import main

    trees = {}
    for name, sets in (("old", OLD), ("new", NEW)):
        out = root / name
        assert main(["build", str(spec), "-o", str(out), "--no-cache", "--quiet", *sets]) == 0
        trees[name] = tree(out)
    assert trees["old"] != trees["new"]
    return spec, trees


def _outputs(tmp_path: Path, trees) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    for rel, data in trees["old"].items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def _child(spec: Path, out: Path, marker: Path, point: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(spec), str(out), str(marker), point, *NEW],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("point", ["reading", "rendering", "staging", "swapping"])
def test_a_build_killed_midway_leaves_the_previous_outputs(built, tmp_path, point):
    spec, trees = built
    out = _outputs(tmp_path, trees)
    marker = tmp_path / "marker"
    child = _child(spec, out, marker, point)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, child.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, f"the build never reached {point}"
            time.sleep(0.02)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert tree(out) == trees["old"], f"killed while {point}: outputs changed"
    strays = [p.name for p in out.parent.iterdir() if p.name not in ("out", "marker")]
    assert all(name.startswith(".out.") for name in strays), strays
    # The next build succeeds and replaces them with the new outputs, leaving no litter of its own.
    before = set(strays)
    from cmpc.cli import main

    assert main(["build", str(spec), "-o", str(out), "--no-cache", "--quiet", *NEW]) == 0
    assert tree(out) == trees["new"]
    after = {p.name for p in out.parent.iterdir() if p.name not in ("out", "marker")}
    assert after <= before


def test_a_build_killed_at_random_moments_leaves_old_or_new_outputs(built, tmp_path):
    spec, trees = built
    out = _outputs(tmp_path, trees)
    rng = random.Random(8)
    for delay in sorted(rng.uniform(0.3, 3.0) for _ in range(2)):
        child = _child(spec, out, tmp_path / "never", "none")
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert tree(out) in (trees["old"], trees["new"]), f"killed after {delay:.2f} s"


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda spec: spec.write_text("comparison {\n", encoding="utf-8"), "E002"),
        (lambda spec: (spec.parent / "data/synthetic/alpha/conc-01.jsonl").write_text("{"), "E3"),
        (
            lambda spec: os.symlink("/etc/hostname", spec.parent / "data/synthetic/beta/x.jsonl"),
            "E503",
        ),
    ],
)
def test_a_failing_build_leaves_the_previous_outputs(built, tmp_path, capsys, change, code):
    spec, trees = built
    spec = copy_spec(spec, tmp_path / "spec")
    out = _outputs(tmp_path, trees)
    change(spec)
    argv = ["build", str(spec), "-o", str(out), "--no-cache", "--quiet", *NEW]
    status, _, err = run_cli(capsys, argv)
    assert status == 1 and f"error[{code}" in err
    assert tree(out) == trees["old"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_unwritable_output_folder_is_E500_and_keeps_the_outputs(built, tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    spec, trees = built
    out = _outputs(tmp_path, trees)
    tmp_path.chmod(0o555)
    try:
        code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--no-cache", *NEW])
    finally:
        tmp_path.chmod(0o755)
    assert code == 2 and "error[E500]" in err
    assert tree(out) == trees["old"]


def test_without_an_atomic_exchange_a_failed_swap_puts_the_old_outputs_back(
    built, tmp_path, monkeypatch
):
    from cmpc.build import outputs as build

    _, trees = built
    out = _outputs(tmp_path, trees)
    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    real = os.replace

    def replace(src, dst):
        if Path(dst) == out and ".old-" not in Path(src).name:  # the new folder cannot move
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(build.os, "replace", replace)
    problems = build.write_atomically(out, {"report.md": "new\n"})
    assert [d.code for d in problems] == ["E500"]
    assert tree(out) == trees["old"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_outputs_a_build_left_between_two_renames_are_restored(built, tmp_path, monkeypatch):
    from cmpc.build import outputs as build

    _, trees = built
    (_outputs(tmp_path, trees)).rename(tmp_path / ".out.old-12345")
    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    assert build.write_atomically(tmp_path / "out", {"report.md": "new\n"}) == []
    assert tree(tmp_path / "out") == {
        "report.md": b"new\n",
        ".cmpc-build": output_marker(__version__, ["report.md"]).encode(),
    }
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# -- cache --------------------------------------------------------------------------------------


def _cached_build(spec: Path, out: Path, cache: Path, monkeypatch) -> int:
    from cmpc.cli import main

    monkeypatch.setenv("CMPC_CACHE_DIR", str(cache))
    return main(["build", str(spec), "-o", str(out), "--quiet", *NEW])


DAMAGE = {
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "flipped": lambda data: data[:-5] + bytes([data[-5] ^ 1]) + data[-4:],
    "garbage header": lambda data: b"{not json\n" + data.partition(b"\n")[2],
    "no header": lambda data: data.partition(b"\n")[2],
    "binary": lambda data: os.urandom(64),
}


def test_damaged_cache_entries_are_rebuilt(built, tmp_path, monkeypatch):
    spec, trees = built
    cache = tmp_path / "cache"
    assert _cached_build(spec, tmp_path / "first", cache, monkeypatch) == 0
    entries = sorted((cache / "entries").rglob("*.json"))
    assert len(entries) >= len(DAMAGE)
    damages = sorted(DAMAGE)
    for i, entry in enumerate(entries):  # every kind of damage, each on some entry
        entry.write_bytes(DAMAGE[damages[i % len(damages)]](entry.read_bytes()))
    damaged = {e: e.read_bytes() for e in entries}
    assert _cached_build(spec, tmp_path / "out", cache, monkeypatch) == 0
    assert tree(tmp_path / "out") == trees["new"]
    assert all(e.read_bytes() != damaged[e] for e in entries)  # each rebuilt and rewritten


def test_planted_cache_entries_with_valid_hashes_cannot_crash_a_build(
    built, tmp_path, monkeypatch, capsys
):
    """A pull request may commit a `.cmpc-cache/` folder: entries whose checksum matches a body
    of the wrong shape or types must be ignored or reported, never crash the build."""
    import hashlib

    spec, _ = built
    cache = tmp_path / "cache"
    assert _cached_build(spec, tmp_path / "first", cache, monkeypatch) == 0
    bodies = [
        {"format": "cmpc", "runs": 1, "points": {"p90": [["x"] * 3]}},
        {"format": "cmpc", "runs": "many", "points": {}},
        {"format": None, "runs": 1, "points": []},
        {"points": {"p90": [[None] * 40]}},
        [],
        {"format": "cmpc", "runs": 1, "points": {s: [["x"] * 12] for s in STATS}},
        {"format": "cmpc", "runs": 1, "points": {s: [[None] * 12] for s in STATS}},
        {"format": "cmpc", "runs": 1, "points": {s: [[[], {}, -1e308, "nan", 1e308, True, None,
                                                    0, [], {}, "x", "y"]] for s in STATS}},
        {"format": "cmpc", "runs": 1, "points": {s: [["a", 0, 0.0, -1.0, -1e308, 1e308, 0, -1,
                                                    "x", {}, -5, 2.0]] for s in STATS}},
        {"format": "cmpc", "runs": 2, "points": {s: [["a", 0, NAN, NAN, NAN, NAN, NAN, NAN, "x",
                                                    {"conc": NAN}, NAN, NAN]] * 2 for s in STATS}},
        {"format": "cmpc", "runs": 0, "points": {}},
    ]  # fmt: skip
    entries = sorted((cache / "entries").rglob("*.json"))
    for shift in (0, len(bodies) // 2):  # every body on some entry, twice over
        for i, entry in enumerate(entries):
            header = json.loads(entry.read_bytes().partition(b"\n")[0])
            body = json.dumps(bodies[(i + shift) % len(bodies)]).encode()
            header["sha256"] = hashlib.sha256(body).hexdigest()
            entry.write_bytes(json.dumps(header).encode() + b"\n" + body)
        argv = ["build", str(spec), "-o", str(tmp_path / "out"), "--quiet", *NEW]
        code, _, err = run_cli(capsys, argv)
        assert code in (0, 1), err
