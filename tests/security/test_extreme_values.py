"""Extreme numbers in specs: every value `check` accepts builds, and absurd ones are E124."""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys

import pytest

from cmpc.language import ranges, units

from .helpers import REPO, SPECS, copy_spec, run_cli

EXTREMES = ("1e300", "3e-308", "1e309", "4.9e-324", "9" * 5000, "1" + "0" * 400)
NUMBER = re.compile(r"(?<![\w.\-])\d+(?:\.\d+)?(?:e[+-]?\d+)?")
DATE_KEYS = re.compile(r"\s*(snapshot|as_of|run_date)\b")
NON_FINITE = re.compile(r"[:\[,]\s*-?(?:Infinity|NaN)\b")


def _slots(text: str) -> list[tuple[int, int, int]]:
    """(line, start, end) of every number written outside strings, comments and dates."""
    found = []
    for i, line in enumerate(text.splitlines(keepends=True)):
        code = re.sub(r'"[^"]*"', lambda m: " " * len(m.group()), line.split("#")[0])
        if DATE_KEYS.match(code):
            continue
        found += [(i, m.start(), m.end()) for m in NUMBER.finditer(code) if code[m.end()] != "-"]
    return found


def _with(text: str, slot: tuple[int, int, int], number: str) -> str:
    lines = text.splitlines(keepends=True)
    i, start, end = slot
    lines[i] = lines[i][:start] + number + lines[i][end:]
    return "".join(lines)


def _build(capsys, spec, out) -> tuple[int, str]:
    code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--no-cache"])
    assert "Warning" not in err, err[-2000:]
    if code == 0:
        results = (out / "results.json").read_text(encoding="utf-8")
        assert not NON_FINITE.search(results), NON_FINITE.search(results)
    return code, err


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_extreme_numbers_in_every_slot_are_E124_or_build(spec, tmp_path, capsys):
    """Each numeric slot of each showcase spec gets one extreme (in turn, so every extreme
    meets every kind of slot across the specs): `check` names it, or the build succeeds."""
    text = spec.read_text(encoding="utf-8")
    copy = copy_spec(spec, tmp_path / "s")
    slots = _slots(text)
    assert slots
    for slot, number in zip(slots, itertools.cycle(EXTREMES), strict=False):
        copy.write_text(_with(text, slot, number), encoding="utf-8")
        code, _, err = run_cli(capsys, ["check", str(copy)])
        if code:
            assert "error[E1" in err and f"{copy.name}:{slot[0] + 1}:" in err, err[-2000:]
            continue
        assert _build(capsys, copy, tmp_path / "out")[0] == 0


@pytest.mark.parametrize(
    "old,new",
    [
        ("memory 192 GB usable 180 GB", "memory 1e300 GB usable 180 GB"),
        ("memory 192 GB usable 180 GB", "memory 3e-308 GB usable 180 GB"),
        ("params 1.04e12", "params 1e309"),
        ("context 131072 tokens", "context 1e308 tokens"),
        ("context 131072 tokens", "context 1e309 tokens"),
        ("throughput 31 tok/s/gpu", "throughput 4.9e-324 tok/s/gpu"),
        ('accelerator "NVIDIA B200 SXM" x 16', 'accelerator "NVIDIA B200 SXM" x 1' + "6" * 5000),
    ],
)
def test_the_reported_crashes_are_E124_in_check(old, new, tmp_path, capsys):
    spec = REPO / "specs" / "mi355x-vs-b300-per-dollar.cmp"
    text = spec.read_text(encoding="utf-8")
    assert old in text
    copy = copy_spec(spec, tmp_path / "s")
    copy.write_text(text.replace(old, new), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    for verb in (["check"], ["build", "-o", str(tmp_path / "out"), "--no-cache"]):
        code, _, err = run_cli(capsys, [verb[0], str(copy), *verb[1:]])
        assert code == 1 and "error[E124]" in err and f"{copy.name}:{line}:" in err, err
        assert "outside the range cmpc accepts" in err
    assert not (tmp_path / "out").exists()


def test_an_override_cannot_bring_in_an_extreme_value(tmp_path, capsys):
    spec = copy_spec(REPO / "specs" / "synthetic-sweep.cmp", tmp_path / "s")
    for setting in ("cost.utilization=1e-300%", "latency.target=1e309 tok/s/user"):
        argv = ["build", str(spec), "-o", str(tmp_path / "out"), "--no-cache", "--set", setting]
        code, _, err = run_cli(capsys, argv)
        assert code == 1 and "error[E124]" in err, (setting, err)


def test_a_reserve_of_all_memory_is_E111(tmp_path, capsys):
    spec = REPO / "specs" / "mi355x-vs-b300-per-dollar.cmp"
    copy = copy_spec(spec, tmp_path / "s")
    copy.write_text(spec.read_text(encoding="utf-8").replace("reserve 10%", "reserve 100%"))
    code, _, err = run_cli(capsys, ["check", str(copy)])
    assert code == 1 and "error[E111]" in err and "`reserve` is 100%" in err


# Every slot of the per-dollar spec (the one with capacity, TCO and reported figures) at the
# largest and at the smallest value its range allows: the products stay finite.
BOUNDS = {
    "params 1.04e12": ("params 1e16", "params 1"),
    "layers 61": ("layers 1000000000", "layers 1"),
    "latent_dim 512": ("latent_dim 1000000000", "latent_dim 1"),
    "rope_dim 64": ("rope_dim 1000000000", "rope_dim 1"),
    "context 131072 tokens": ("context 1e21 tokens", "context 1 tokens"),
    "concurrency 16": ("concurrency 1000000000", "concurrency 1"),
    "memory 288 GB": ("memory 1e18 B", "memory 1 B"),
    "memory 192 GB": ("memory 1e18 B", "memory 1 B"),
    "capex 25000 USD/gpu": ("capex 1e12 USD/gpu", "capex 1e-9 USD/gpu"),
    "years 5": ("years 1000", "years 0.001"),
    "pue 1.3": ("pue 100", "pue 1"),
    "electricity 0.08 USD/kWh": ("electricity 1e6 USD/kWh", "electricity 1e-9 USD/kWh"),
    "hosting 0.20 USD/gpu/h": ("hosting 1e9 USD/gpu/h", "hosting 1e-9 USD/gpu/h"),
    "throughput 119 tok/s/gpu": ("throughput 1e12 tok/s/gpu", "throughput 1e-9 tok/s/gpu"),
    "price 2.50 USD/gpu/h": ("price 1e9 USD/gpu/h", "price 1e-9 USD/gpu/h"),
    "power 2.09 kW basis": ("power 1e12 W basis", "power 0.001 W basis"),
    "utilization 100%": ("utilization 100%", "utilization 1e-7%"),
}


@pytest.mark.parametrize("side", [0, 1], ids=["largest", "smallest"])
def test_every_slot_at_the_edge_of_its_range_builds(side, tmp_path, capsys):
    spec = REPO / "specs" / "mi355x-vs-b300-per-dollar.cmp"
    text = spec.read_text(encoding="utf-8")
    for old, new in BOUNDS.items():
        assert old in text, old
        text = text.replace(old, new[side])
    copy = copy_spec(spec, tmp_path / "s")
    copy.write_text(text, encoding="utf-8")
    code, err = _build(capsys, copy, tmp_path / "out")
    assert code == 0, err
    json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))


def test_every_kind_of_number_has_a_finite_documented_range():
    doc = (REPO / "docs" / "language.md").read_text(encoding="utf-8")
    table = doc[doc.index("### Ranges") :]
    table = table[: table.index("\n## ")]
    every = [*ranges.BY_DIMENSION.values(), *ranges.PLAIN]
    dimensions = [v for v in vars(units).values() if isinstance(v, units.Dimension)]
    assert {d.name for d in dimensions} == set(ranges.BY_DIMENSION)
    for kind in every:
        assert 0 < kind.low <= kind.high and math.isfinite(kind.high), kind
        assert re.search(rf"^\| {kind.kind}\b", table, re.M), kind.kind
        row = next(line for line in table.splitlines() if line.startswith(f"| {kind.kind} "))
        low, high = kind.bounds().split(" and ")
        assert low.split()[0] in row and high.split()[0] in row, (row, kind.bounds())


def test_numpy_warnings_never_reach_stderr_and_no_rate_is_infinite(tmp_path):
    """Values a trace may hold that overflow a per-token division, a sum or a rate: no
    RuntimeWarning is printed, and a rate over a denormal duration is n/a, never `inf`."""
    source = REPO / "specs" / "data" / "llama70b" / "tp8_pp1_sharegpt_qps_04.json"
    for change in ({"output_lens": 1e-320}, {"input_lens": 1.7e308}, {"duration": 1e-320}):
        doc = json.loads(source.read_text(encoding="utf-8"))
        for key, value in change.items():
            doc[key] = [value] * len(doc[key]) if isinstance(doc[key], list) else value
        trace = tmp_path / "run.json"
        trace.write_text(json.dumps(doc), encoding="utf-8")
        for extra in ([], ["--json"]):
            # a child process: pytest would catch the warnings an in-process run raises
            argv = [sys.executable, "-m", "cmpc.cli", "stats", *extra, str(trace)]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
            assert done.returncode == 0 and "Warning" not in done.stderr, (change, done.stderr)
            assert not NON_FINITE.search(done.stdout), (change, done.stdout)
            assert not re.search(r"\binf\b", done.stdout), (change, done.stdout)
