"""cmpc: compile LLM-inference comparison specs into footnoted reports.

The Python API (docs/api.md) is loaded on first use, so `import cmpc` stays cheap:
`cmpc.load_runs`, `cmpc.check`, `cmpc.build` and the types they return.
"""

from __future__ import annotations

import importlib
from typing import Any

from cmpc import _pycfinder

_pycfinder.install()  # cmpc's own modules load through a short path (cmpc/_pycfinder.py)

__version__ = "0.1.0"

_API = ("Checked", "CmpcError", "PolicyFailed", "Results", "Runs", "build", "check", "load_runs")
# `cmpc.build` and `cmpc.check` are packages too: they answer the call (callable_package)
_PACKAGES = ("build", "check")


def __getattr__(name: str) -> Any:
    if name in _PACKAGES:
        return importlib.import_module(f"cmpc.{name}")
    if name in _API:
        return getattr(importlib.import_module("cmpc.api"), name)
    raise AttributeError(f"module 'cmpc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})


__all__ = ["__version__", *_API]
