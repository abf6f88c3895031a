"""One fixture per diagnostic code: the annotated lines and the exact human rendering."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cmpc.compile import compile_source
from cmpc.diagnostics import codes, render_human
from cmpc.source import SourceFile

FIXTURES = Path(__file__).parent / "diagnostics"
ANNOTATION = re.compile(r"#\s*~\s*([EW]\d{3})")
CASES = sorted(FIXTURES.glob("[EW][0-9][0-9][0-9]-*.cmp"))
# Codes a spec cannot trigger; each has its own test named here.
NOT_FROM_SPECS = {
    "E090": "test_unreadable_spec_is_an_io_error",
    "E091": "test_limits_are_diagnostics_and_overridable",
    "E092": "test_a_spec_linked_outside_its_folder_is_refused_unread",
    "E123": "test_limits_are_diagnostics_and_overridable",
    "E200": "test_schema_violation_points_at_the_spec",
}


def _diagnose(path: Path):
    name = path.relative_to(FIXTURES.parents[1]).as_posix()
    source = SourceFile(name, path.read_text(encoding="utf-8"))
    _, diagnostics = compile_source(source)
    return source, diagnostics


def test_fixtures_exist():
    assert len(CASES) >= 25, "the fixture glob matched too few files"


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_fixture_annotations_and_rendering(path: Path, golden):
    source, diagnostics = _diagnose(path)
    expected = sorted(
        (line_no, code)
        for line_no, line in enumerate(source.text.splitlines(), 1)
        for code in ANNOTATION.findall(line)
    )
    found = sorted((source.line_col(d.span.start)[0], d.code) for d in diagnostics)
    assert found == expected
    assert path.stem.split("-")[0] in {code for _, code in found}
    rendered = render_human(diagnostics, {source.name: source})
    golden(path.with_suffix(".stderr"), rendered)


def test_valid_fixture_base_is_clean():
    _, diagnostics = _diagnose(FIXTURES / "valid.cmp")
    assert diagnostics == []


def test_every_spec_code_has_a_fixture_and_every_fixture_a_code():
    spec_codes = {c for c in codes() if c[1] in "012" or c.startswith("W13")}
    fixture_codes = {p.stem.split("-")[0] for p in CASES}
    assert fixture_codes <= set(codes()), "a fixture names an unregistered code"
    assert spec_codes - fixture_codes == set(NOT_FROM_SPECS)
    for path in CASES:
        code, slug = path.stem.split("-", 1)
        assert codes()[code].name == slug, f"{path.name}: slug should be {codes()[code].name}"


def test_every_registered_code_is_exercised_by_some_test():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in Path(__file__).parent.rglob("*.py"))
    fixture_codes = {p.stem.split("-")[0] for p in CASES}
    untested = [c for c in codes() if c not in fixture_codes and f'"{c}"' not in tests]
    assert untested == []


def test_every_code_explains_with_wrong_and_fixed_examples():
    for info in codes().values():
        assert info.summary and info.name
        assert "Wrong" in info.explanation and "Fixed" in info.explanation, info.code


def test_unreadable_spec_is_an_io_error(tmp_path, capsys):
    from cmpc.cli import main

    bad = tmp_path / "latin1.cmp"
    bad.write_bytes(b'comparison "caf\xe9" {}\n')
    assert main(["check", str(bad)]) == 2
    assert "E090" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.cmp")]) == 2
    assert "cannot read spec" in capsys.readouterr().err


def test_schema_violation_points_at_the_spec():
    import dataclasses

    from cmpc.check.checker import check_spec
    from cmpc.ir.schema import validate_ir
    from cmpc.syntax.parser import parse_spec

    source = SourceFile("valid.cmp", (FIXTURES / "valid.cmp").read_text(encoding="utf-8"))
    spec, _ = parse_spec(source)
    comparison, _, origins = check_spec(spec)
    broken = dataclasses.replace(
        comparison, cost=dataclasses.replace(comparison.cost, utilization=1.4)
    )
    (problem,) = validate_ir(broken, origins)
    assert problem.code == "E200"
    assert "/cost/utilization" in problem.message
    assert problem.span == origins[""]  # no cost block: the nearest origin is the comparison


def test_limits_are_diagnostics_and_overridable(tmp_path, monkeypatch, capsys):
    from cmpc.cli import main

    text = (FIXTURES / "valid.cmp").read_text(encoding="utf-8")
    spec = tmp_path / "s.cmp"
    spec.write_text(text)
    monkeypatch.setenv("CMPC_MAX_SPEC_BYTES", "100")
    assert main(["check", str(spec)]) == 2
    assert "E091" in capsys.readouterr().err
    monkeypatch.delenv("CMPC_MAX_SPEC_BYTES")
    monkeypatch.setenv("CMPC_MAX_SYSTEMS", "1")
    assert main(["check", str(spec)]) == 1
    assert "error[E123]: the spec declares 2 systems" in capsys.readouterr().err
    monkeypatch.setenv("CMPC_MAX_SYSTEMS", "2")
    monkeypatch.setenv("CMPC_MAX_DEPTH", "1")
    assert main(["check", str(spec)]) == 1
    assert "E007" in capsys.readouterr().err
    monkeypatch.setenv("CMPC_MAX_DEPTH", "3")
    assert main(["check", str(spec)]) == 0


def test_language_reference_lists_every_code():
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "codes_table.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_validity_memo_is_ignored_unless_private(tmp_path, monkeypatch):
    import dataclasses
    import os

    import cmpc.ir.schema as schema
    from cmpc.check.checker import check_spec
    from cmpc.syntax.parser import parse_spec

    source = SourceFile("valid.cmp", (FIXTURES / "valid.cmp").read_text(encoding="utf-8"))
    comparison, _, origins = check_spec(parse_spec(source)[0])
    broken = dataclasses.replace(
        comparison, cost=dataclasses.replace(comparison.cost, utilization=1.4)
    )
    monkeypatch.setattr(schema, "_temporary_root", lambda: tmp_path)
    planted = Path(schema._memo_path(broken.to_json()))
    planted.parent.mkdir()
    planted.touch()  # someone marked the invalid IR valid
    os.chmod(planted.parent, 0o777)
    assert [d.code for d in schema.validate_ir(broken, origins)] == ["E200"]
    os.chmod(planted.parent, 0o700)
    assert schema.validate_ir(broken, origins) == []  # our own private memo is trusted


def test_fmt_stdin_is_held_to_the_spec_size_limit(monkeypatch, capsys):
    import io

    from cmpc.cli import main

    monkeypatch.setenv("CMPC_MAX_SPEC_BYTES", "50")
    monkeypatch.setattr("sys.stdin", io.StringIO('c "x" {\n' + "  a b\n" * 40 + "}\n"))
    assert main(["fmt", "-"]) == 2
    assert "E091" in capsys.readouterr().err


def test_secondary_labels_in_every_format():
    import json

    from cmpc.diagnostics import render_github, render_json, render_short

    source, diagnostics = _diagnose(FIXTURES / "E102-duplicate-name.cmp")
    sources = {source.name: source}
    (item,) = json.loads(render_json(diagnostics, sources))["diagnostics"]
    (label,) = item["secondary"]
    assert label["message"] == "first declared here"
    assert label["span"]["start"]["line"] == 12
    assert "(first declared here at tests/diagnostics/E102-duplicate-name.cmp:12:10)" in (
        render_short(diagnostics, sources)
    )
    assert "%0Anote: first declared here at" in render_github(diagnostics, sources)
    human = render_human(diagnostics, sources)
    assert human.index("- first declared here") < human.index("^ declared again here")


def test_validity_memo_is_named_by_the_sha256_of_schema_and_ir(tmp_path, monkeypatch):
    # the memo hashes with the interpreter's built-in SHA-256: names from hashlib's still hit
    import hashlib
    import json

    import cmpc.ir.schema as schema

    monkeypatch.setattr(schema, "_temporary_root", lambda: tmp_path)
    document = {"comparison": {"title": "x", "systems": [1, 2.5, None]}}
    digest = hashlib.sha256(schema._schema_bytes())
    digest.update(json.dumps(document, sort_keys=True).encode())
    assert Path(schema._memo_path(document)).name == digest.hexdigest()
