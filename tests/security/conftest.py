"""Hostile-input tests: imports warmed once, so per-case deadlines time the case."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def warm_imports():
    """Import what a build imports once, so per-case deadlines measure the case, not start-up."""
    import cmpc.build.pipeline
    import cmpc.report
    import cmpc.verbs.stats
    import cmpc.verbs.sweep  # noqa: F401
    from cmpc.ir.schema import _validator
    from cmpc.report import figures  # noqa: F401

    _validator()
