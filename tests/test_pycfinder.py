"""`cmpc._pycfinder`: cmpc's modules load from their current .pyc, else the standard way."""

from __future__ import annotations

import importlib.util
import os
import py_compile
import shutil
import subprocess
import sys
from importlib.machinery import PathFinder
from pathlib import Path

import test_layers

import cmpc
from cmpc import _pycfinder

PACKAGE = Path(cmpc.__file__).parent


def _run(code: str, *options: str, cwd: Path | None = None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if cwd is not None:
        env["PYTHONPATH"] = str(cwd)
    run = subprocess.run(
        [sys.executable, *options, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_a_builds_modules_load_through_the_finder_with_the_standard_attributes():
    code = (
        "import sys, cmpc.cli, cmpc.build.pipeline, importlib.util as u\n"
        "from cmpc import _pycfinder as F, lazy\n"
        "mods = [m for n, m in list(sys.modules.items()) if n.startswith('cmpc.')"
        " and lazy.loaded(n) and n != 'cmpc._pycfinder'"
        " and getattr(m, '__file__', '').endswith('.py') and not hasattr(m, '__path__')]\n"
        "print(len(mods), sum(isinstance(m.__loader__, F.Loader) for m in mods),"
        " all(m.__cached__ == u.cache_from_source(m.__file__) for m in mods),"
        " all(m.__spec__.origin == m.__file__ == m.__loader__.path for m in mods))"
    )
    count, through, cached, origin = _run(code)
    assert int(count) > 40
    assert through == count
    assert cached == origin == "True"


def test_the_finder_finds_what_the_standard_finder_finds_for_every_module():
    packages = {name for name, path in test_layers.MODULES.items() if path.name == "__init__.py"}
    differ = []
    for name in test_layers.MODULES:
        parent = name.rpartition(".")[0]
        if not parent or name in packages:
            continue
        path = [str(test_layers.MODULES[parent].parent)]
        ours = _pycfinder.Finder.find_spec(name, path)
        theirs = PathFinder.find_spec(name, path)
        assert ours is not None, name  # every plain module of cmpc takes the short path
        if theirs is None or ours.origin != theirs.origin or ours.cached != theirs.cached:
            differ.append(name)
    for name in packages:  # and no package, which the standard finder loads
        parent = name.rpartition(".")[0]
        if parent:
            path = [str(test_layers.MODULES[parent].parent)]
            assert _pycfinder.Finder.find_spec(name, path) is None, name
    assert not differ


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "cmpc", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for source in (root / "cmpc").rglob("*.py"):
        py_compile.compile(str(source), doraise=True)
    return root


def test_a_stale_pyc_is_recompiled_and_rewritten_as_the_standard_loader_does(tmp_path):
    root = _copy(tmp_path)
    source = root / "cmpc" / "limits.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    old = cached.read_bytes()
    source.write_text(source.read_text() + "\nADDED_BY_THE_TEST = 17\n")
    code = "import cmpc.limits as m; print(m.ADDED_BY_THE_TEST, type(m.__loader__).__name__)"
    assert _run(code, cwd=root) == ["17", "Loader"]
    assert cached.read_bytes() != old  # the base loader's get_code wrote the new one
    assert _run(code, cwd=root) == ["17", "Loader"]  # and the short path now reads it


def test_a_missing_or_hash_based_pyc_falls_back_to_the_base_loader(tmp_path):
    root = _copy(tmp_path)
    source = root / "cmpc" / "limits.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink()
    source.write_text(source.read_text() + "\nADDED_BY_THE_TEST = 5\n")
    code = "import cmpc.limits as m; print(m.ADDED_BY_THE_TEST)"
    assert _run(code, "-B", cwd=root) == ["5"]  # compiled from source, nothing written
    assert not cached.exists()
    py_compile.compile(
        str(source), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
    )
    source.write_text(source.read_text().replace("= 5", "= 6"))
    assert _run(code, cwd=root) == ["6"]  # a hash-based pyc is the base loader's to check


def test_the_finder_stays_out_with_optimized_byte_code():
    code = "import sys, cmpc; from cmpc import _pycfinder as F; print(F.Finder in sys.meta_path)"
    assert _run(code) == ["True"]
    assert _run(code, "-O") == ["False"]


def test_a_start_with_fresh_pycs_takes_the_short_path_for_its_modules(tmp_path):
    root = _copy(tmp_path)  # every pyc current: compiled just now from the copied sources
    code = (
        "import sys, cmpc.cli, cmpc.build.pipeline\n"
        "from cmpc import _pycfinder as F\n"
        "plain = [m for n, m in list(sys.modules.items()) if n.startswith('cmpc.')"
        " and isinstance(getattr(m, '__loader__', None), F.Loader)]\n"
        "print(F.hits, len(plain))"
    )
    hits, plain = map(int, _run(code, cwd=root))
    assert plain > 40 and hits == plain  # each code object came from its pyc, none compiled


def test_a_pyc_holding_no_code_object_is_an_import_error(tmp_path):
    root = _copy(tmp_path)
    source = root / "cmpc" / "limits.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    header = cached.read_bytes()[:16]
    cached.write_bytes(header + __import__("marshal").dumps(("not", "code")))
    code = (
        "try:\n    import cmpc.limits\nexcept ImportError as e:\n    print('ImportError', e.name)"
    )
    assert _run(code, cwd=root) == ["ImportError", "cmpc.limits"]


def test_a_name_in_another_case_is_not_found_on_a_case_insensitive_file_system(monkeypatch):
    folder = str(PACKAGE)
    real_stat = os.stat

    def case_blind_stat(path, *args, **kwargs):  # what a case-insensitive file system answers
        head, _, tail = str(path).rpartition("/")
        return real_stat(f"{head}/{tail.lower()}", *args, **kwargs)

    monkeypatch.setattr(_pycfinder.os, "stat", case_blind_stat)
    _pycfinder.Finder.invalidate_caches()
    assert _pycfinder.Finder.find_spec("cmpc.Limits", [folder]) is None
    assert PathFinder.find_spec("cmpc.Limits", [folder]) is None  # as the standard finder says
    assert _pycfinder.Finder.find_spec("cmpc.limits", [folder]) is not None  # the control
