"""`cmpc build --require` (exit 3 with the outputs written) and `--export github-benchmark`."""

from __future__ import annotations

import json
from pathlib import Path

from cmpc.build.exports import EXPORTS
from cmpc.cli import main

from .conftest import SPEC


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_require_passes_fails_with_3_and_still_writes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("s.cmp").write_text(SPEC, encoding="utf-8")
    ok = run(capsys, "build", "s.cmp", "-o", "a", "--require", "headline.throughput_ratio >= 1.2")
    assert ok[0] == 0, ok[2]
    code, out, err = run(
        capsys, "build", "s.cmp", "-o", "b", "--require", "headline.cost_ratio <= 0.5"
    )
    assert code == 3, err
    assert "error[E810]" in err and "headline.cost_ratio = 0.555556" in err
    assert "wrote b/" in out and Path("b/results.json").is_file()  # valid evidence is written


def test_require_typos_fail_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("s.cmp").write_text(SPEC, encoding="utf-8")
    code, _, err = run(capsys, "build", "s.cmp", "-o", "c", "--require", "headline.ratio >")
    assert code == 2 and "E800" in err and not Path("c").exists()
    code, _, err = run(capsys, "build", "s.cmp", "-o", "c", "--require", "headline.ratio > 1")
    assert code == 2 and "E801" in err and "has no key `ratio`" in err


def test_github_benchmark_export(tmp_path, capsys, monkeypatch):
    """Both files follow github-action-benchmark's custom tools: a list of {name, unit, value};
    bigger-is-better holds the throughputs, smaller-is-better the costs, from results.json."""
    monkeypatch.chdir(tmp_path)
    Path("s.cmp").write_text(SPEC, encoding="utf-8")
    code, _, err = run(capsys, "build", "s.cmp", "-o", "e", "--export", "github-benchmark")
    assert code == 0, err
    bigger = json.loads(Path("e/github-benchmark-bigger.json").read_text())
    smaller = json.loads(Path("e/github-benchmark-smaller.json").read_text())
    assert {"name": "throughput ratio, x vs y", "unit": "x", "value": 1.2} in bigger
    assert {"name": "x: throughput per GPU", "unit": "tok/s/gpu", "value": 120.0} in bigger
    ratio = next(r for r in smaller if r["name"] == "cost-per-token ratio, x vs y")
    assert abs(ratio["value"] - (2.0 / 120) / (3.0 / 100)) < 1e-12
    y_cost = next(r for r in smaller if r["name"] == "y: cost per million tokens")
    assert abs(y_cost["value"] - 3.0 / (100 * 3600) * 1e6) < 1e-9  # $8.33 per million tokens
    for row in bigger + smaller:
        assert set(row) <= {"name", "unit", "value", "range", "extra"}
        assert isinstance(row["value"], int | float)


def test_unknown_exports_are_usage_errors(capsys):
    try:
        main(["build", "s.cmp", "--export", "nope"])
    except SystemExit as exit:
        assert exit.code == 2
    assert "unknown export `nope`" in capsys.readouterr().err
    assert "github-benchmark" in EXPORTS


def test_export_ranges_come_from_intervals():
    from cmpc.build.export_benchmark import files

    results = {
        "headline": {
            "system": "a",
            "baseline": "b",
            "throughput_ratio": 1.3,
            "throughput_ratio_ci": [1.1, 1.5],
            "cost_ratio": None,
        },
        "systems": {},
    }
    bigger = json.loads(files(results)["github-benchmark-bigger.json"])
    assert bigger == [
        {
            "name": "throughput ratio, a vs b",
            "unit": "x",
            "value": 1.3,
            "range": "1.1 to 1.5",
            "extra": "interval from the build's repetitions (headline.*_ci)",
        }
    ]
    assert json.loads(files(results)["github-benchmark-smaller.json"]) == []  # n/a is left out
