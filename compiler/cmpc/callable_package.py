"""Packages that are also API functions: `cmpc.build(spec)` while `cmpc.build` is a package."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    """A package module whose call is the `cmpc.api` function of the same name.

    Python sets `cmpc.build` to the package `cmpc.build` whenever one of its modules is
    imported, so an API function of that name would be replaced; the package answers the call.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = self.__name__.rpartition(".")[2]
        # by name: the API sits above every stage, so no stage may import it
        return getattr(importlib.import_module("cmpc.api"), name)(*args, **kwargs)


def make_callable(module_name: str) -> None:
    """Make the package `module_name` (cmpc.build, cmpc.check) callable as its API function."""
    sys.modules[module_name].__class__ = _CallablePackage
