"""Hostile text: strings of a spec, file names and run-file fields cannot take over a terminal,
a CI log, a spreadsheet or a reader of the report."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from .helpers import REPO, copy_spec, run_cli

FIXTURE = REPO / "tests" / "diagnostics" / "valid.cmp"
REPORTED = REPO / "specs" / "mi355x-vs-b300.cmp"
RUNS = REPO / "specs" / "llama70b-a100-tp8-vs-tp4pp2.cmp"

INJECTION = "a\n::error file=x::owned"  # a new log line GitHub Actions would run as a command
HYPERLINK = "\x1b]8;;http://x\x07"  # OSC 8: a terminal hyperlink, or any escape sequence
NAMED = "\x1b]2;x\x07"  # the same in a file name (OSC 2 sets the window title)
FORMULA = "=cmd|' /C calc'!A0"  # a spreadsheet formula (DDE)
TROJAN = "\u202egnp.\u2066x\u200b\ufeff"  # right-to-left override, isolate, zero-width chars
# What may act instead of being read, in any output: every control but the line break, every
# bidirectional control or mark and every zero-width character.
ACTIVE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def _quoted(text: str) -> str:
    """`text` as a spec string (the language's escapes for backslash, quote and line break)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _hostile_spec(folder: Path, name: str = "hostile.cmp") -> Path:
    """The diagnostics fixture with every hostile string in a place that a diagnostic quotes."""
    text = FIXTURE.read_text(encoding="utf-8")
    text = text.replace("metric tpot", f"metric {_quoted(INJECTION + HYPERLINK + TROJAN)}")
    spec = folder / name
    spec.write_text(text, encoding="utf-8")
    return spec


def _assert_inert(text: str) -> None:
    assert not ACTIVE.search(text), repr(ACTIVE.findall(text))
    assert not any(line.startswith("::error file=x") for line in text.splitlines()), text


@pytest.mark.parametrize("style", ["human", "short"])
def test_diagnostics_as_text_escape_line_breaks_and_controls(tmp_path, capsys, style):
    spec = _hostile_spec(tmp_path)
    code, out, err = run_cli(capsys, ["check", "--format", style, str(spec)])
    assert code == 1
    _assert_inert(out + err)
    assert "a\\n::error file=x::owned\\u001B]8;;http://x\\u0007\\u202Egnp." in err


def test_a_hidden_character_in_the_source_line_keeps_the_carets_under_the_span(tmp_path, capsys):
    spec = _hostile_spec(tmp_path)
    _, _, err = run_cli(capsys, ["check", str(spec)])
    lines = err.splitlines()
    i = next(i for i, line in enumerate(lines) if "error[E107]" in line)
    shown, carets = lines[i + 3], lines[i + 4]
    start, end = carets.index("^"), carets.rindex("^") + 1
    assert shown[start] == '"' and shown[end - 1] == '"', (shown, carets)


def test_github_annotations_are_one_line_each_and_encode_properties(tmp_path, capsys):
    spec = _hostile_spec(tmp_path, "a,b:c%d.cmp")
    code, out, err = run_cli(capsys, ["check", "--format", "github", str(spec)])
    assert code == 1
    _assert_inert(out + err)
    lines = err.splitlines()
    assert lines and all(re.match(r"::(error|warning|notice) file=", line) for line in lines)
    encoded = "file=" + str(tmp_path).replace(":", "%3A") + "/a%2Cb%3Ac%25d.cmp,"
    assert all(encoded in line for line in lines)
    assert any("a\\n::error file=x::owned\\u001B]8;;" in line for line in lines)


def test_json_diagnostics_keep_the_text_and_hold_no_hidden_bytes(tmp_path, capsys):
    spec = _hostile_spec(tmp_path)
    code, out, err = run_cli(capsys, ["check", "--format", "json", str(spec)])
    assert code == 1
    _assert_inert(out + err)
    messages = [d["message"] for d in json.loads(out)["diagnostics"]]
    assert any(INJECTION + HYPERLINK + TROJAN in m for m in messages)  # decoded, unchanged


def test_check_warns_at_each_hidden_character_with_its_span(tmp_path, capsys):
    spec = _hostile_spec(tmp_path)
    _, out, _ = run_cli(capsys, ["check", "--format", "json", str(spec)])
    (hidden,) = [d for d in json.loads(out)["diagnostics"] if d["code"] == "W008"]
    text = spec.read_text(encoding="utf-8")
    start, end = hidden["span"]["start"]["offset"], hidden["span"]["end"]["offset"]
    assert text[start] == "\x1b" and text[end - 1] == "\ufeff"
    assert hidden["span"]["start"]["line"] == 8
    assert "U+202E right-to-left override" in hidden["message"]


def test_fmt_diff_shows_hidden_characters_written_out(tmp_path, capsys):
    spec = tmp_path / "s.cmp"
    spec.write_text(f'comparison  "x{HYPERLINK}{TROJAN}"  {{\n}}\n', encoding="utf-8")
    code, out, err = run_cli(capsys, ["fmt", "--diff", str(spec)])
    assert code == 1 and "\\u001B]8;;http://x\\u0007\\u202E" in out
    _assert_inert(out + err)


def test_build_and_stats_summaries_escape_file_names_and_fields(tmp_path, capsys, monkeypatch):
    spec = copy_spec(REPORTED, tmp_path)
    hostile = spec.with_name(f"r{NAMED}{TROJAN}.cmp")
    spec.rename(hostile)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, ["build", hostile.name, "--no-cache"])
    assert code == 0 and "wrote build/r\\u001B]2;x\\u0007\\u202E" in out
    _assert_inert(out + err)

    trace = next((REPO / "specs" / "data" / "llama70b").glob("*.json"))
    named = tmp_path / f"run{NAMED}{TROJAN}.json"
    shutil.copyfile(trace, named)
    for extra in ([], ["--json"]):
        code, out, err = run_cli(capsys, ["stats", named.name, *extra])
        assert code == 0 and "run\\u001B]2;x" in out.replace("\\u001b", "\\u001B")
        _assert_inert(out + err)


@pytest.fixture(scope="module")
def reported_build(tmp_path_factory) -> dict[str, str]:
    """The reported-values showcase with hostile labels, title and a formula as source title."""
    folder = tmp_path_factory.mktemp("reported")
    spec = copy_spec(REPORTED, folder)
    text = spec.read_text(encoding="utf-8")
    text = text.replace('label "8x MI355X"', f"label {_quoted('8x MI355X' + HYPERLINK + TROJAN)}")
    text = text.replace(
        'title "SemiAnalysis Market July 2026 Pricing Surveys & AI Cloud TCO Model"',
        f"title {_quoted(FORMULA)}",
    )
    text = text.replace('comparison "', f'comparison "{TROJAN}', 1)
    spec.write_text(text, encoding="utf-8")
    from cmpc.build.pipeline import build_spec

    out = folder / "out"
    outcome = build_spec(str(spec), out_dir=str(out), html=True, use_cache=False)
    assert outcome.code == 0, outcome.diagnostics
    return {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
        for p in out.rglob("*")
        if p.is_file()
    }


@pytest.mark.parametrize("name", ["report.md", "report.html", "figures/summary.svg"])
def test_reports_and_figures_show_hidden_characters_written_out(reported_build, name):
    text = reported_build[name]
    _assert_inert(text)
    assert "8x MI355X" in text and "u202E" in text


def test_figures_csv_cells_are_never_formulas_and_numbers_stay_numbers(reported_build):
    rows = list(csv.reader(io.StringIO(reported_build["figures.csv"])))
    cells = [c for row in rows for c in row]
    formula = [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    numeric = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?")
    assert formula and all(numeric.fullmatch(c) for c in formula), formula
    assert any(c.startswith("'" + FORMULA) for c in cells)
    assert any(re.fullmatch(r"-0\.\d+", c) for c in cells)  # a negative number, as written


def test_provenance_shows_a_run_file_name_as_it_is(tmp_path, capsys):
    spec = copy_spec(RUNS, tmp_path)
    data = tmp_path / "data" / "llama70b"
    piped = "tp8_a|..|..|etc|passwd.json"
    (data / "tp8_pp1_sharegpt_qps_04.json").rename(data / piped)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--format", "html"])
    assert code == 0, err
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "`data/llama70b/tp8_a\\|..\\|..\\|etc\\|passwd.json`" in report
    assert "etc/passwd" not in report
    html = (out / "report.html").read_text(encoding="utf-8")
    row = next(r for r in html.split("<tr>") if "passwd.json</code>" in r)
    assert "<td><code>data/llama70b/tp8_a|..|..|etc|passwd.json</code></td>" in row
    assert row.count("<td>") == 6  # the name did not split the row into more cells
