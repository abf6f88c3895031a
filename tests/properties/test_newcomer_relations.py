"""Relations a newcomer's edits must keep, over every showcase spec and its real data.

An easy target is met, never "cannot reach"; runs that cannot be counted are "not computable",
never "cannot reach"; a run file copied under a second name changes no read; a `--set` value is
marked in the report with the spec's own value, and a spec built without one has no mark."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from cmpc.build.pipeline import build_spec

from .specs import SPECS, Builder, copy_specs

SHOWCASES = sorted(p.name for p in SPECS.glob("*.cmp"))
MEASURED = [s for s in SHOWCASES if re.search(r'^\s*runs "', (SPECS / s).read_text(), re.M)]


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    root = tmp_path_factory.mktemp("newcomer")
    return Builder(copy_specs(root), root / "cache")


def _codes(results: dict[str, Any]) -> list[str]:
    return [w["code"] for w in results.get("warnings") or []]


def _reads(results: dict[str, Any]) -> dict[str, Any]:
    return {
        name: (s["at_target"]["throughput_per_gpu"], s["at_target"]["reachable"])
        for name, s in results["systems"].items()
    }


@pytest.mark.parametrize("spec", [s for s in SHOWCASES if s != "deepinfer-claims.cmp"])
def test_a_target_every_run_beats_is_met(builder: Builder, spec: str) -> None:
    results = builder.results((SPECS / spec).read_text(), "latency.target=0.5 tok/s/user")
    assert "W411" not in _codes(results)
    for name, s in results["systems"].items():
        at = s["at_target"]
        assert at["reachable"] is not False, name
        if s["data"] == "runs" and at["throughput_per_gpu"] is not None:
            assert at["bound"] == "lower", name  # every run is faster: a lower bound


@pytest.mark.parametrize("spec", MEASURED)
def test_uncountable_runs_are_not_computable_never_unreachable(builder: Builder, spec: str) -> None:
    """A system whose runs give no point (here: no cache split for `reused excluded`) has no
    frontier to miss the target by."""
    results = builder.results((SPECS / spec).read_text(), "tokens.reused=excluded")
    pointless = [
        n for n, s in results["systems"].items() if s["data"] == "runs" and not s["points"]
    ]
    for name in pointless:
        assert results["systems"][name]["at_target"]["reachable"] is not False, name
        assert not any(
            w["code"] == "W411" and f"`{name}`" in w["message"] for w in results["warnings"]
        )
        assert any(w["code"] == "W416" and f"`{name}`" in w["message"] for w in results["warnings"])


@pytest.mark.parametrize("spec", MEASURED)
def test_a_run_file_copied_under_a_second_name_changes_no_read(builder: Builder, spec: str) -> None:
    text = (SPECS / spec).read_text()
    base = builder.results(text)
    copies: list[Path] = []
    for glob in re.findall(r'runs "([^"]+)"', text):
        first = sorted((builder.tree).glob(glob))[0]
        copy = first.with_name(f"{first.stem}-copy{first.suffix}")
        assert fnmatch.fnmatch(copy.name, Path(glob).name)
        shutil.copy(first, copy)
        copies.append(copy)
    try:
        doubled = builder.results(text + "\n# with copies\n")
    finally:
        for copy in copies:
            copy.unlink()
    assert _reads(doubled) == _reads(base)
    for key in ("throughput_ratio", "cost_ratio", "winner"):
        assert (doubled["headline"] or {}).get(key) == (base["headline"] or {}).get(key), key


UTILIZATION = re.compile(r"^\s*utilization (\S+)", re.M)


@pytest.mark.parametrize("spec", [s for s in SHOWCASES if s != "deepinfer-claims.cmp"])
def test_a_set_value_is_marked_with_the_spec_value(tmp_path: Path, spec: str) -> None:
    tree = copy_specs(tmp_path)
    text = (tree / spec).read_text()
    stated = UTILIZATION.search(text.split("cost {", 1)[1]) if "cost {" in text else None
    out = tmp_path / "out"
    outcome = build_spec(str(tree / spec), out_dir=str(out), sets=["cost.utilization=37%"])
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((out / "results.json").read_text())
    (override,) = results["overrides"]
    assert override["was"] == (stated[1] if stated else None)
    report = (out / "report.md").read_text()
    note = next(line for line in report.splitlines() if line.startswith("[^set]:"))
    was = f"(was `{stated[1]}` in the spec)" if stated else "(not in the spec)"
    assert f"`cost.utilization` = `37%` {was}" in note
    marked = [line for line in report.splitlines() if "37.0%[^set]" in line]
    assert marked, "the utilization is stated somewhere without its mark"
    # every table row stating it is marked (the cost arithmetic repeats the marked formula)
    rows = [line for line in report.splitlines() if "37.0%" in line and line.startswith("|")]
    assert all("[^set]" in line for line in rows if "\u00d7 10^6 =" not in line)
