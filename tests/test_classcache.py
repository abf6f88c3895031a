"""Dataclass methods compiled once and kept: a second start compiles none, classes unchanged."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cmpc import _classcache

# the caches are written as pycs are: not under PYTHONDONTWRITEBYTECODE (which this shell may set)
WRITING = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

PROBE = """
import cmpc.cli, cmpc.compile, cmpc.verbs.check, cmpc._classcache as cache
print(cache.misses)
"""


def misses() -> int:
    run = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=WRITING
    )
    return int(run.stdout)


def test_a_second_start_compiles_no_dataclass_method():
    misses()  # the first start after an install (or a change) writes what it compiled
    assert misses() == 0


def test_a_start_whose_classes_all_replay_reads_no_codes():
    probe = (
        "import cmpc.cli, cmpc.verbs.check, cmpc._classcache as c; print(c._codes_read, c.replayed)"
    )
    misses()  # what the check path defines is recorded
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=WRITING
    )
    read, replayed = run.stdout.split()
    assert read == "False" and int(replayed) >= 60


def test_the_api_leaves_the_standard_library_alone():
    probe = "import dataclasses, cmpc, cmpc.api; print(hasattr(dataclasses, 'exec'))"
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=WRITING
    )
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
    subprocess.run([sys.executable, "-c", other], capture_output=True, check=True, env=WRITING)
    probe = (
        "import cmpc.cli, cmpc.verbs.check, cmpc._classcache as cache; cache._load();"
        "print(sum(isinstance(c, bytes) for t, c in cache._codes.items() if 's5check_unused' in t))"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=WRITING
    )
    assert int(run.stdout) >= 1  # its methods were kept, and left undecoded


# Every cmpc record class described as the interpreter holds it: its namespace in order, each
# function's code, defaults, annotations, closure and names, each field's options.
DESCRIBE = r"""
import dataclasses, importlib, json, pkgutil, re, sys, types
import cmpc._classcache as cache
cache._REPLAYS = sys.argv[1] == "replay"
cache.install()
import cmpc
for info in pkgutil.walk_packages(cmpc.__path__, "cmpc."):
    if info.name not in ("cmpc.__main__",):
        importlib.import_module(info.name)

def value(v, depth=0):
    if isinstance(v, types.FunctionType):
        c = v.__code__
        return {"fn": (v.__module__, v.__qualname__, v.__name__, v.__doc__, c.co_code.hex(),
                       repr(c.co_consts), c.co_names, c.co_varnames, c.co_freevars, c.co_filename,
                       repr(v.__defaults__), repr(v.__kwdefaults__), repr(v.__annotations__),
                       v.__globals__ is sys.modules[v.__module__].__dict__,
                       [value(cell.cell_contents, depth + 1) if depth < 2
                        else repr(cell.cell_contents) for cell in (v.__closure__ or ())],
                       value(getattr(v, "__wrapped__", None), depth + 1) if depth < 2 else "",
                       sorted(vars(v)))}
    if isinstance(v, type):
        return f"class {v.__module__}.{v.__qualname__}"
    if isinstance(v, dataclasses.Field):
        return {"field": [repr(v), v._field_type.name, repr(v.metadata)]}
    if isinstance(v, dict):
        return {"dict": [(k, value(x, depth + 1)) for k, x in v.items()]}
    if isinstance(v, set):
        return {"set": sorted(map(repr, v))}
    return repr(v)

seen = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith("cmpc") or not isinstance(module, types.ModuleType):
        continue
    for obj in list(vars(module).values()):
        if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == name:
            namespace = [(k, value(v)) for k, v in vars(obj).items()
                         if k not in ("__dict__", "__weakref__")]
            mro = [b.__qualname__ for b in obj.__mro__]
            seen[f"{name}.{obj.__qualname__}"] = [type(obj).__name__, mro, namespace]
described = json.dumps({"replayed": cache.replayed, "classes": seen})
print(re.sub(" at 0x[0-9a-f]+", " at 0x", described))  # addresses differ between processes
"""


def _described(how: str) -> dict:
    run = [sys.executable, "-c", DESCRIBE, how]
    done = subprocess.run(run, capture_output=True, text=True, check=True, env=WRITING)
    return __import__("json").loads(done.stdout)


def test_every_cmpc_record_replayed_is_the_class_dataclasses_makes():
    _described("replay")  # the first start records the shapes it has not seen
    replayed, made = _described("replay"), _described("dataclasses")
    assert made["replayed"] == 0 and replayed["replayed"] >= 100
    assert replayed["classes"].keys() == made["classes"].keys()
    for name, described in made["classes"].items():
        assert replayed["classes"][name] == described, name


CASES = {
    "plain": "@dataclass(frozen=True)\nclass C:\n    '''d'''\n    x: int\n    y: str = 'a'\n",
    "factory": "@dataclass(frozen=True, slots=True, kw_only=True)\nclass C:\n    '''d'''\n"
    "    x: tuple = field(default_factory=tuple)\n    y: int = field(default=3, repr=False)\n",
    "mutable default": "@dataclass(frozen=True)\nclass C:\n    '''d'''\n    x: list = []\n",
    "order of defaults": "@dataclass\nclass C:\n    '''d'''\n    x: int = 1\n    y: int\n",
    "own repr": "@dataclass(frozen=True)\nclass C:\n    '''d'''\n    x: int\n"
    "    def __repr__(self):\n        return 'mine'\n",
    "classvar": "@dataclass(frozen=True)\nclass C:\n    '''d'''\n    k: ClassVar[int] = 3\n"
    "    x: int\n",
    "base": "@dataclass(frozen=True)\nclass B:\n    '''d'''\n    x: int\n"
    "@dataclass(frozen=True)\nclass C(B):\n    '''d'''\n    y: int = 0\n",
    "no docstring": "@dataclass(eq=False)\nclass C:\n    x: int\n",
}


def _define(source: str) -> object:
    """The class C the source defines, or the error it raises, as comparable text."""
    module = type(sys)("cmpc_replay_probe")
    sys.modules[module.__name__] = module
    header = "from __future__ import annotations\nfrom dataclasses import dataclass, field\n"
    header += "from typing import ClassVar\n"
    try:
        exec(header + source, vars(module))
    except (TypeError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    finally:
        del sys.modules[module.__name__]
    made = vars(module)["C"]
    fields = [(f.name, f.type, f.kw_only, f.repr) for f in dataclasses.fields(made)]
    return sorted(vars(made)), fields, made.__doc__, made.__match_args__


@pytest.mark.parametrize("case", CASES)
def test_a_class_replayed_or_left_to_dataclasses_is_made_as_dataclasses_makes_it(case, monkeypatch):
    _classcache.install()
    before = _classcache.replayed
    replayed = [_define(CASES[case]) for _ in range(2)]  # the second may replay the first's record
    monkeypatch.setattr(dataclasses, "_process_class", _classcache._original)
    assert replayed == [_define(CASES[case])] * 2
    assert (_classcache.replayed > before) == (case in ("plain", "factory", "base"))  # base: B


@pytest.mark.parametrize("bad", [5, (5,), (("not code", "__init__", ()),), ((None, 1, 2, 3),)])
def test_a_shape_record_of_another_layout_is_processed_afresh(tmp_path, bad):
    """A damaged or foreign record of a class's shape never stops a start: the class is made
    by dataclasses as if no record existed."""
    misses()  # the real file holds this install's shapes
    shapes = tmp_path / "shapes.marshal"
    stamp, kept = marshal.loads(Path(_classcache._SHAPES_FILE).read_bytes())
    shapes.write_bytes(marshal.dumps((stamp, {k: marshal.dumps(bad) for k in kept})))
    probe = (
        "import cmpc._classcache as c, os; c._SHAPES_FILE = os.environ['SHAPES'];"
        "import cmpc.cli, cmpc.verbs.check"
    )
    env = dict(WRITING, SHAPES=str(shapes))
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env)
    assert run.returncode == 0 and not run.stderr, run.stderr


@pytest.mark.parametrize("how", ["-B", "PYTHONDONTWRITEBYTECODE", "writing"])
def test_nothing_is_written_under_dont_write_bytecode(tmp_path, how):
    probe = (
        "import os, cmpc._classcache as c, dataclasses\n"
        "c._FOLDER = os.environ['FOLDER']\n"
        "c._FILE = os.path.join(c._FOLDER, 'codes.marshal')\n"
        "c._SHAPES_FILE = os.path.join(c._FOLDER, 'shapes.marshal')\n"
        "c.install()\n"
        "P = dataclasses.make_dataclass('P', [('x', int), ('y', str)], frozen=True)\n"
        "print(c.misses + c.learned)"
    )
    env = dict(WRITING, FOLDER=str(tmp_path))
    if how == "PYTHONDONTWRITEBYTECODE":
        env[how] = "1"
    flags = ["-B"] if how == "-B" else []
    run = subprocess.run(
        [sys.executable, *flags, "-c", probe], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0 and int(run.stdout) > 0, run.stderr  # something to write
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == (["codes.marshal"] if how == "writing" else [])
