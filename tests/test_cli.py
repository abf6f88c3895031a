"""The `cmpc` command line: exit codes, diagnostic formats, fmt modes, explain, internal errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cmpc import __version__
from cmpc.cli import main

FIXTURES = Path(__file__).parent / "diagnostics"
VALID = FIXTURES / "valid.cmp"
THREE_ERRORS = """comparison "bad" {
  baseline b30
  source s { role third_party }
  latency { metric tpot; statistic p90; target 50 tok/s/user }
  system a {
    accelerator "X" x 8
    cache_hit_rate unknown
    price 0.10 USD/kWh basis owning
    reported { source s; statistic p90; ratio 1.1 to b300 }
  }
  system b300 {
    accelerator "Y" x 8
    cache_hit_rate unknown
    price 38 USD/gpu/h basis revenue
    reported { source s; statistic p90; ratio 1 }
  }
}
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"cmpc {__version__}"


def test_check_valid_is_zero_and_silent(capsys):
    assert run(capsys, "check", str(VALID)) == (0, "", "")


def test_three_problems_in_one_run(tmp_path, capsys):
    spec = tmp_path / "bad.cmp"
    spec.write_text(THREE_ERRORS)
    code, _out, err = run(capsys, "check", str(spec))
    assert code == 1
    assert [line.split("]")[0] for line in err.splitlines() if line.startswith("error[")] == [
        "error[E104",
        "error[E108",
        "error[E115",
    ]
    for line_no in (2, 8, 14):
        assert f"bad.cmp:{line_no}:" in err
    assert err.count("= help:") == 3 and err.count("^") >= 3
    assert "Traceback" not in err
    assert err.endswith("found 3 errors (1 spec checked)\n")


def test_json_envelope(tmp_path, capsys):
    spec = tmp_path / "bad.cmp"
    spec.write_text(THREE_ERRORS)
    code, out, err = run(capsys, "check", "--format", "json", str(spec))
    assert code == 1 and err == ""
    doc = json.loads(out)
    assert out == json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert doc["format_version"] == "1" and doc["valid"] is False
    assert (doc["error_count"], doc["warning_count"]) == (3, 0)
    first = doc["diagnostics"][0]
    assert first["code"] == "E104" and first["name"] == "unknown-system"
    assert first["span"]["start"] == {"line": 2, "column": 12, "offset": 30}
    assert first["help"] == "did you mean `b300`?"


def test_json_of_a_valid_spec_is_valid(capsys):
    code, out, _ = run(capsys, "check", "--format", "json", str(VALID))
    assert code == 0 and json.loads(out)["valid"] is True


def test_short_and_github_formats(tmp_path, capsys):
    spec = tmp_path / "bad.cmp"
    spec.write_text(THREE_ERRORS)
    _, _, short = run(capsys, "check", "--format", "short", str(spec))
    assert short.splitlines()[0].endswith(":2:12: error[E104] unknown system `b30`")
    _, _, gh = run(capsys, "check", "--format", "github", str(spec))
    first = gh.splitlines()[0]
    assert first.startswith("::error file=") and ",line=2,col=12," in first
    assert "title=E104 unknown-system::" in first and "%0Ahelp: did you mean" in first


def test_usage_and_io_errors_exit_two(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    capsys.readouterr()
    assert run(capsys, "check", str(tmp_path / "nope.cmp"))[0] == 2


def test_internal_error_is_one_line_and_exit_two(capsys, monkeypatch):
    import cmpc.verbs.check

    def boom(paths, **options):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(cmpc.verbs.check, "check_specs", boom)
    code, _out, err = run(capsys, "check", str(VALID))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("cmpc: internal error: ZeroDivisionError")
    assert "report" in err and "Traceback" not in err


def test_fmt_check_diff_and_rewrite(tmp_path, capsys):
    messy = tmp_path / "messy.cmp"
    messy.write_text(VALID.read_text().replace("  baseline b\n", "  baseline   b\n"))
    code, out, _ = run(capsys, "fmt", "--check", str(messy))
    assert code == 1 and out == f"would reformat {messy}\n"
    code, out, _ = run(capsys, "fmt", "--diff", str(messy))
    assert code == 1 and "-  baseline   b\n+  baseline b\n" in out
    assert run(capsys, "fmt", str(messy))[0] == 0
    assert messy.read_text() == VALID.read_text()
    assert run(capsys, "fmt", "--check", str(messy)) == (0, "", "")


def test_fmt_reads_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO('c "x" {a   b}'))
    assert run(capsys, "fmt", "-") == (0, 'c "x" {\n  a b\n}\n', "")


def test_fmt_of_a_syntax_error_reports_it(tmp_path, capsys):
    bad = tmp_path / "bad.cmp"
    bad.write_text('c "x" {\n')
    code, _, err = run(capsys, "fmt", "--check", str(bad))
    assert code == 1 and "E002" in err
    assert bad.read_text() == 'c "x" {\n'


def test_explain(capsys):
    code, out, _ = run(capsys, "explain", "E115")
    assert code == 0 and out.startswith("E115 (revenue-as-cost)") and "Wrong" in out
    code, _, err = run(capsys, "explain", "E999")
    assert code == 2 and "unknown diagnostic code" in err


def test_explain_accepts_a_code_name(capsys):
    code, out, _ = run(capsys, "explain", "mixed-sweep")
    assert code == 0 and out.startswith("W413 (mixed-sweep)")


def test_explain_suggests_codes_within_two_edits_nearest_first(capsys):
    code, _, err = run(capsys, "explain", "W4133")
    assert code == 2 and "did you mean W413 (mixed-sweep) or " in err
    _, _, err = run(capsys, "explain", "revenue-as-cots")
    assert err.endswith("did you mean E115 (revenue-as-cost)?\n")
    _, _, err = run(capsys, "explain", "zzzzzz")
    assert "did you mean" not in err


def test_check_reads_a_spec_from_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(VALID.read_text()))
    assert run(capsys, "check", "-")[0] == 0
    monkeypatch.setattr(
        sys, "stdin", io.StringIO(VALID.read_text().replace("baseline b", "baseline zz"))
    )
    code, _, err = run(capsys, "check", "-")
    assert code == 1 and "E104" in err and "E001" not in err


def test_console_script_runs_from_any_directory(tmp_path):
    script = Path(sys.executable).parent / "cmpc"
    done = subprocess.run(
        [str(script), "check", str(VALID)], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_stats_goodput_under_slos(tmp_path, capsys):
    rows = [
        # start, first token, end, output tokens: ttft 0.1 s, tpot (end - first) / (out - 1)
        (0.0, 0.1, 0.1 + 9 * 0.02, 10),  # tpot 20 ms: good
        (0.0, 0.5, 0.5 + 9 * 0.02, 10),  # ttft 500 ms: fails ttft 300
        (0.2, 0.3, 0.3 + 9 * 0.08, 10),  # tpot 80 ms: fails tpot 50
        (0.4, 0.6, 0.6 + 4 * 0.01, 5),  # ttft 200 ms, tpot 10 ms: good
    ]
    lines = ['{"cmpc_trace": 1, "duration_s": 2.0}']
    for start, first, end, out in rows:
        times = [first + (end - first) * i / (out - 1) for i in range(out)]
        lines.append(
            json.dumps(
                {
                    "start": start,
                    "first_token": first,
                    "end": end,
                    "chunk_times": times,
                    "input_tokens": 100,
                    "output_tokens": out,
                }
            )
        )
    lines.append(json.dumps({"start": 0.1, "end": 0.2, "input_tokens": 100, "error": "503"}))
    trace = tmp_path / "run.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    code, out, _ = run(
        capsys, "stats", str(trace), "--json", "--slo", "ttft=300", "--slo", "tpot=50"
    )
    assert code == 0
    slo = json.loads(out)["slo"]
    assert slo["goodput_requests_per_s"] == pytest.approx(2 / 2.0)
    assert slo["attainment"] == pytest.approx(2 / 5)  # failed requests are never good
    with pytest.raises(SystemExit):
        main(["stats", str(trace), "--slo", "itl=5"])
