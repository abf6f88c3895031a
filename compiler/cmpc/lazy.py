"""Modules imported at their first use: how cmpc keeps an import off a path that may not need it.

    from cmpc import lazy

    if TYPE_CHECKING:
        from cmpc.check import capacity
    else:
        capacity = lazy.module("cmpc.check.capacity")

`lazy.module(name)` returns the module if it is imported already; otherwise it puts a stand-in
for it in sys.modules and returns that. The first attribute read imports the module, copies its
namespace into the stand-in (later reads are plain lookups) and hands sys.modules the real
module. Because the stand-in sits in sys.modules, every `import name` meanwhile, anywhere, binds
it too with no change to the importing module: that is how `cmpc build` defers numpy (imported
by twenty modules) and how `cmpc check` keeps `inspect` (dataclasses imports it for one
rarely-taken branch) off its start-up.

It is the one sanctioned way to defer an import outside cli.py: tests/test_layers.py reads every
`name = lazy.module("cmpc....")` as an import of that module, so layers and cycles are checked as
for `import` statements, and mypy sees the real module through the `TYPE_CHECKING` branch.
`lazy.loaded(name)` tells a real import from a stand-in (`name in sys.modules` does not).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class _Deferred(types.ModuleType):
    """Stands in sys.modules for a module until an attribute of it is first read.

    Unlike the standard library's LazyLoader, reading `__spec__` (every `import` statement does,
    before Python 3.12) does not load it; reading anything else does.
    """

    def __getattr__(self, attribute: str) -> Any:
        return getattr(_load(self), attribute)

    def __setattr__(self, attribute: str, value: Any) -> None:
        # the import system sets a submodule on the parent it found in sys.modules, which may be
        # this stand-in after the parent was loaded through it: the real module gets it too
        super().__setattr__(attribute, value)
        real = sys.modules.get(self.__name__)
        if real is not None and real is not self:
            setattr(real, attribute, value)

    def __repr__(self) -> str:
        real = sys.modules.get(self.__name__)
        if real is not None and real is not self:
            return repr(real)
        return f"<lazy module {self.__name__!r}, not imported yet>"


def _load(stand_in: _Deferred) -> types.ModuleType:
    name = stand_in.__name__
    if sys.modules.get(name) is stand_in:
        del sys.modules[name]
    real = importlib.import_module(name)
    stand_in.__dict__.update(real.__dict__)
    return real


def module(name: str) -> Any:
    """The module `name`, imported when one of its attributes is first read."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    stand_in = _Deferred(name)
    spec = _find_spec(name)
    if spec is None:  # not installed: the first attribute read raises ImportError, as import does
        return stand_in
    stand_in.__spec__ = spec  # no __path__: importing a submodule loads the package first
    sys.modules[name] = stand_in
    parent, _, child = name.rpartition(".")
    holder = sys.modules.get(parent) if parent else None
    if holder is not None and child not in vars(holder):  # `import a.b` then `a.b.x` finds it
        setattr(holder, child, stand_in)
    return stand_in


def _find_spec(name: str) -> Any:
    """importlib.util.find_spec for a module not imported yet, without importing importlib.util.

    Nor its package: a package not imported yet (or deferred) is looked up by its own spec, so
    a submodule can be deferred without importing the package's __init__ (which imports it first
    when the submodule is loaded, as `import a.b` does).
    """
    parent = name.rpartition(".")[0]
    path = None
    if parent:
        found = sys.modules.get(parent)
        if found is not None and not isinstance(found, _Deferred):
            path = found.__path__
        else:
            spec = found.__spec__ if found is not None else _find_spec(parent)
            path = spec.submodule_search_locations if spec is not None else None
            if path is None:  # no such package, or not a package: import_module will say
                return None
    for finder in sys.meta_path:
        spec = finder.find_spec(name, path) if hasattr(finder, "find_spec") else None
        if spec is not None:
            return spec
    return None


def load(name: str) -> None:
    """Import a deferred module now (a no-op if it is not deferred)."""
    found = sys.modules.get(name)
    if isinstance(found, _Deferred):
        _load(found)


def loaded(name: str) -> bool:
    """Whether `name` is imported for real (not only deferred)."""
    found = sys.modules.get(name)
    return found is not None and not isinstance(found, _Deferred)
