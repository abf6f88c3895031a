"""Hostile-input tests: imports warmed once, so per-case deadlines time the case."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def warm_imports():
    """Import what a build imports once, so per-case deadlines measure the case, not start-up."""
    import cmpc.build
    import cmpc.report
    import cmpc.stats
    import cmpc.sweep  # noqa: F401
    from cmpc.report import figures  # noqa: F401
    from cmpc.schema import _validator

    _validator()
