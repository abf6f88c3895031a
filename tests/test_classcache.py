"""Dataclass methods compiled once and kept: a second start compiles none, classes unchanged."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from cmpc import _classcache

PROBE = """
import cmpc.cli, cmpc.compile, cmpc.verbs.check, cmpc._classcache as cache
print(cache.misses)
"""


def misses() -> int:
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    return int(run.stdout)


def test_a_second_start_compiles_no_dataclass_method():
    misses()  # the first start after an install (or a change) writes what it compiled
    assert misses() == 0


def test_the_api_leaves_the_standard_library_alone():
    probe = "import dataclasses, cmpc, cmpc.api; print(hasattr(dataclasses, 'exec'))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"  # only the command line installs the caching exec


def test_classes_made_with_the_kept_code_behave_as_dataclasses():
    _classcache.install()

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: tuple[int, ...] = ()

    again = dataclasses.make_dataclass("Point", [("x", int), ("y", tuple, ())], frozen=True)
    assert dataclasses.exec is _classcache._exec  # type: ignore[attr-defined]
    p = Point(1, (2,))
    assert p == Point(1, (2,)) and hash(p) == hash(Point(1, (2,))) and p != Point(2)
    assert repr(p).endswith("Point(x=1, y=(2,))") and repr(again(3)) == "Point(x=3, y=())"
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 5  # type: ignore[misc]


def test_a_damaged_or_foreign_file_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setattr(_classcache, "_codes", {})
    for content in (b"", b"\x00garbage", __import__("marshal").dumps(("python 2.7", {"a": 1}))):
        path = tmp_path / "codes.marshal"
        path.write_bytes(content)
        monkeypatch.setattr(_classcache, "_FILE", str(path))
        _classcache._load()
        assert _classcache._codes == {}


def test_a_start_builds_the_code_of_its_own_classes_only():
    """Codes stay marshalled until a class needs them: another program's class costs nothing."""
    other = (
        "import dataclasses, cmpc.cli;"
        "dataclasses.make_dataclass('OnlyInAnotherProgram', [('s5check_unused', int)], frozen=True)"
    )
    subprocess.run([sys.executable, "-c", other], capture_output=True, check=True)
    probe = (
        "import cmpc.cli, cmpc.verbs.check, cmpc._classcache as cache;"
        "print(sum(isinstance(c, bytes) for t, c in cache._codes.items() if 's5check_unused' in t))"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert int(run.stdout) >= 1  # its methods were kept, and left undecoded
