"""Modules imported on first use: how a module keeps an import off `cmpc check`'s start-up.

    from cmpc import lazy

    if TYPE_CHECKING:
        from cmpc.check import capacity
    else:
        capacity = lazy.module("cmpc.check.capacity")

`capacity.read_capacity(...)` imports the module the first time an attribute is read. It is
the one sanctioned way to defer an import outside cli.py: tests/test_layers.py reads every
`lazy.module("cmpc....")` as an import of that module, so layers and cycles are checked as
for `import` statements, and mypy sees the real module.
"""

from __future__ import annotations

import importlib
from typing import Any


class _Module:
    """Stands for a module until an attribute is read, then imports it and answers from it."""

    __slots__ = ("_loaded", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._loaded: Any = None

    def __getattr__(self, attribute: str) -> Any:
        loaded = self._loaded
        if loaded is None:
            loaded = self._loaded = importlib.import_module(self._name)
        return getattr(loaded, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._loaded is not None else "not imported yet"
        return f"<lazy module {self._name!r}, {state}>"


def module(name: str) -> Any:
    """The module `name`, imported when one of its attributes is first read."""
    return _Module(name)
