"""Build helpers for the report tests: specs from the repository or from tests/report/specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

HERE = Path(__file__).parent
SPECS = HERE / "specs"


@pytest.fixture
def build(in_repo, tmp_path):
    """`build(spec, **options)` -> (output folder, outcome); spec paths relative to the repo."""
    counter = iter(range(1000))

    def run(spec: str, *, expect_errors: bool = False, out: Path | None = None, **options):
        target = out or tmp_path / f"out{next(counter)}"
        outcome = build_spec(spec, out_dir=str(target), **options)
        assert has_errors(outcome.diagnostics) == expect_errors, outcome.diagnostics
        return target, outcome

    return run


def read_tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
