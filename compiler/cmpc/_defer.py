"""Third-party packages loaded at their first use, so a build that computes nothing skips them.

This defers a package for the whole process: every `import numpy as np` anywhere binds the
stand-in, with no change to the importing modules, and after the first read no attribute
costs more than a plain module's.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any


class _Deferred(types.ModuleType):
    """Stands in sys.modules for a package until an attribute of it is first read.

    `import numpy as np` binds this module; `np.mean` imports numpy, copies its namespace in
    (so later reads are plain lookups) and hands sys.modules the real module. Unlike the
    standard library's LazyLoader, reading `__spec__` (every `import` statement does, before
    Python 3.12) does not load it.
    """

    def __getattr__(self, attr: str) -> Any:
        return getattr(_load(self), attr)


def _load(stand_in: _Deferred) -> types.ModuleType:
    name = stand_in.__name__
    if sys.modules.get(name) is stand_in:
        del sys.modules[name]
    real = importlib.import_module(name)
    stand_in.__dict__.update(real.__dict__)
    return real


def defer(name: str) -> bool:
    """Put a stand-in for `name` in sys.modules; False (nothing changed) if the package is
    already imported or not installed."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec  # no __path__: importing a submodule loads the package first
    sys.modules[name] = stand_in
    return True


def load(name: str) -> None:
    """Import a deferred package now (a no-op if it is not deferred)."""
    module = sys.modules.get(name)
    if isinstance(module, _Deferred):
        _load(module)


def loaded(name: str) -> bool:
    """Whether `name` is imported for real (not only deferred)."""
    module = sys.modules.get(name)
    return module is not None and not isinstance(module, _Deferred)
