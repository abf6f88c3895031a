"""Golden reports: every spec in specs/ has its expected report.md; builds are byte-identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden"
SPECS = sorted((REPO / "specs").glob("*.cmp"))


def _build(spec: Path, out: Path, **options) -> dict[str, bytes]:
    outcome = build_spec(f"specs/{spec.name}", out_dir=str(out), **options)
    assert not has_errors(outcome.diagnostics), outcome.diagnostics
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def test_the_spec_glob_matches():
    assert len(SPECS) >= 1, "specs/*.cmp matched nothing"


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_report_matches_golden(spec: Path, in_repo, tmp_path, golden):
    files = _build(spec, tmp_path / spec.stem)
    golden(GOLDEN / spec.stem / "report.md", files["report.md"].decode("utf-8"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_figures_match_golden(spec: Path, in_repo, tmp_path, golden, request):
    """The SVGs too, byte for byte: cmpc draws them itself, the same in every environment."""
    folder = GOLDEN / spec.stem
    drawn = {
        n: d for n, d in _build(spec, tmp_path / spec.stem).items() if n.startswith("figures/")
    }
    kept = {p.relative_to(folder).as_posix() for p in folder.glob("figures/*.svg")}
    if request.config.getoption("--update-goldens"):
        for stale in kept - set(drawn):
            (folder / stale).unlink()
    else:
        assert sorted(drawn) == sorted(kept), "the build draws other figures than the goldens"
    for name, data in drawn.items():
        golden(folder / name, data.decode("utf-8"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_two_builds_are_byte_identical(spec: Path, in_repo, tmp_path):
    first = _build(spec, tmp_path / "first", html=True)
    second = _build(spec, tmp_path / "second", html=True)
    assert {"report.md", "report.html", "results.json", "figures.csv"} <= set(first)
    assert sorted(first) == sorted(second)
    for name in first:
        assert first[name] == second[name], f"{name} differs between two builds"


def test_every_report_golden_belongs_to_a_spec():
    stems = {p.stem for p in SPECS}
    orphans = [p.parent.name for p in GOLDEN.glob("*/report.md") if p.parent.name not in stems]
    assert orphans == [], f"goldens without a spec: {orphans}; delete them"
