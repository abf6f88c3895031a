"""Shared fixtures: paths to the repository and shared references, and golden-file comparison."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite expected files (goldens) instead of comparing against them",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest):
    """`golden(path, text)`: compare text with the file exactly, or rewrite it when updating."""
    update = request.config.getoption("--update-goldens")

    def check(path: Path, text: str) -> None:
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        assert path.exists(), f"missing golden {path}; run pytest --update-goldens"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{path} differs; run pytest --update-goldens if intended"

    return check


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run with the repository root as working directory, as the README's commands do."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture
def sweep_copy(tmp_path: Path) -> Path:
    """The synthetic sweep's spec and runs, copied so a test may change them."""
    shutil.copytree(REPO / "specs" / "data" / "synthetic", tmp_path / "data" / "synthetic")
    spec = tmp_path / "sweep.cmp"
    shutil.copy(REPO / "specs" / "synthetic-sweep.cmp", spec)
    return spec
