"""Resource bounds: every CMPC_MAX_* limit turns oversized input into a clear diagnostic, fast."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cmpc.limits import Limits

from .helpers import REPO, copy_spec, run_cli

SPEC = """comparison "limits" {{
  baseline a
  latency {{
    metric tpot
    statistic p90
    target 30 tok/s/user
  }}
  tokens {{ count input + output }}
{systems}}}
"""
SYSTEM = """  system {name} {{
    accelerator "X" x 8
    parallel tp 8
    throughput 1000 tok/s at 30 tok/s/user
    source lab
  }}
"""


def test_every_limit_is_documented_with_its_variable():
    doc = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    for name, value in vars(Limits()).items():
        assert f"`{Limits.variable(name)}`" in doc, name
        assert f"{value:,}" in doc or str(value) in doc, (name, value)


def test_every_test_docs_security_md_names_exists():
    import re

    doc = (REPO / "docs" / "security.md").read_text(encoding="utf-8")
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("test_*.py"))
    named = set(re.findall(r"`(?:[\w/]+\.py::)?(test_\w+)`", doc))
    assert len(named) > 30
    assert sorted(n for n in named if f"def {n}(" not in tests) == []


def test_limits_come_from_the_environment_and_ignore_junk():
    env = {"CMPC_MAX_DEPTH": "3", "CMPC_MAX_SYSTEMS": "0", "CMPC_MAX_CLAIMS": "-1", "X": "1"}
    env |= {"CMPC_MAX_RUN_FILES": "ten", "CMPC_MAX_RECORD_BYTES": " 12 "}
    limits = Limits.from_env(env)
    assert limits.depth == 3 and limits.record_bytes == 12
    assert limits.systems == Limits().systems and limits.claims == Limits().claims
    assert limits.run_files == Limits().run_files


def test_spec_size_is_refused_unread(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "big.cmp"
    spec.write_text('comparison "x" {\n' + "  # padding\n" * 2000 + "}\n", encoding="utf-8")
    monkeypatch.setenv("CMPC_MAX_SPEC_BYTES", "4096")
    started = time.perf_counter()
    for verb in (["check"], ["build"], ["fmt", "--check"]):
        code, _, err = run_cli(capsys, [*verb, str(spec)])
        assert code == 2 and "error[E091]" in err and "CMPC_MAX_SPEC_BYTES" in err, verb
    assert time.perf_counter() - started < 5
    monkeypatch.setenv("CMPC_MAX_SPEC_BYTES", str(1 << 20))
    code, _, err = run_cli(capsys, ["check", str(spec)])
    assert "E091" not in err


def test_nesting_depth_is_bounded(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "deep.cmp"
    spec.write_text('comparison "x" {' + " a {" * 5000 + " }" * 5001 + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, ["check", str(spec)], seconds=10)
    assert code == 1 and "error[E007]" in err
    monkeypatch.setenv("CMPC_MAX_DEPTH", "2")
    spec.write_text('comparison "x" { a { b { c 1 } } }\n', encoding="utf-8")
    code, _, err = run_cli(capsys, ["check", str(spec)])
    assert code == 1 and "error[E007]" in err and "CMPC_MAX_DEPTH" in err


def test_deep_nesting_in_fmt_stdin_is_bounded(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("c {" + " a {" * 20_000 + "\n"))
    code, _, err = run_cli(capsys, ["fmt", "-"], seconds=10)
    assert code == 1 and "E007" in err
    # and past the size limit, standard input is refused like a file
    monkeypatch.setattr("sys.stdin", io.StringIO("c {" + " a {" * 100_000 + "\n"))
    code, _, err = run_cli(capsys, ["fmt", "-"], seconds=10)
    assert code == 2 and "E091" in err


def test_number_of_systems_and_claims_is_bounded(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "many.cmp"
    systems = "".join(SYSTEM.format(name=f"s{i}") for i in range(5))
    spec.write_text(
        SPEC.format(systems='  source lab { role own }\n  system a { accelerator "A" x 8 }\n'
                    + systems),
        encoding="utf-8",
    )  # fmt: skip
    monkeypatch.setenv("CMPC_MAX_SYSTEMS", "3")
    code, _, err = run_cli(capsys, ["check", str(spec)])
    assert code == 1 and "error[E123]" in err and "CMPC_MAX_SYSTEMS" in err
    monkeypatch.delenv("CMPC_MAX_SYSTEMS")
    code, _, err = run_cli(capsys, ["check", str(spec)])
    assert "E123" not in err
    claims = (
        'comparison "c" {\n'
        + "".join(f'  claim c{i} {{ text "x{i}" }}\n' for i in range(4))
        + "}\n"
    )
    spec.write_text(claims, encoding="utf-8")
    monkeypatch.setenv("CMPC_MAX_CLAIMS", "2")
    code, _, err = run_cli(capsys, ["check", str(spec)])
    assert code == 1 and "error[E123]" in err and "CMPC_MAX_CLAIMS" in err


def test_run_files_per_glob_are_bounded(tmp_path, capsys, monkeypatch):
    spec = copy_spec(REPO / "specs" / "synthetic-sweep.cmp", tmp_path / "s")
    monkeypatch.setenv("CMPC_MAX_RUN_FILES", "3")
    code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(tmp_path / "out"), "--no-cache"])
    assert code == 1 and "error[E505]" in err and "CMPC_MAX_RUN_FILES" in err
    assert not (tmp_path / "out").exists()


# -- trace records ------------------------------------------------------------------------------


def _jsonl(path: Path, pad: int) -> Path:
    header = {"cmpc_trace": 1, "fields": {"conc": 1}}
    row = {"start": 0, "first_token": 0.1, "end": 0.5, "input_tokens": 10, "output_tokens": 5,
           "chunk_times": [0.1, 0.2, 0.3, 0.4, 0.5], "note": "x" * pad}  # fmt: skip
    path.write_text(json.dumps(header) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    return path


def test_a_jsonl_line_over_the_record_limit_is_E315(tmp_path, capsys, monkeypatch):
    trace = _jsonl(tmp_path / "run.jsonl", pad=5000)
    assert run_cli(capsys, ["stats", str(trace)])[0] == 0
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", "1000")
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E315]" in err and "line 2" in err
    assert "CMPC_MAX_RECORD_BYTES" in err


def test_a_line_exactly_at_the_limit_is_read(tmp_path, capsys, monkeypatch):
    trace = _jsonl(tmp_path / "run.jsonl", pad=10)
    longest = max(len(line) for line in trace.read_bytes().splitlines())
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(longest))
    assert run_cli(capsys, ["stats", str(trace)])[0] == 0
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(longest - 1))
    assert "E315" in run_cli(capsys, ["stats", str(trace)])[2]


def test_a_line_without_end_is_cut_at_the_limit_not_read_whole(tmp_path, monkeypatch):
    from cmpc.traces import jsonscan

    trace = tmp_path / "endless.jsonl"
    trace.write_bytes(b'{"cmpc_trace": 1}\n' + b"[" * 3_000_000)
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", "1000")
    reads = []
    with trace.open("rb") as handle:
        real = handle.readline

        def readline(size=-1):
            reads.append(size)
            return real(size)

        handle.readline = readline
        with pytest.raises(jsonscan.TraceError) as caught:
            list(jsonscan.lines(handle))
    assert caught.value.code == "E315" and caught.value.record == "line 2"
    assert all(0 < size <= 1001 for size in reads)


@pytest.mark.parametrize(
    "name",
    [
        "genai-perf/adaptive__simple_medium_response_c10.json",
        "aiperf/aiperf-examples-run1__profile_export.jsonl",
        "vllm/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json",
        "guidellm/graz-vllm-benchmark__benchmarks.json",
    ],
)
def test_documents_over_the_record_limit_are_E315(name, capsys, monkeypatch):
    path = REPO.parent / "shared" / "oracle" / name
    assert path.exists(), f"{path} is missing: the repo needs ../shared beside it"
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", "2000")
    for verb in ("stats", "sweep"):
        code, _, err = run_cli(capsys, [verb, str(path)])
        assert code == 1 and "error[E315]" in err, (verb, err)


def test_the_record_limit_applies_in_builds(tmp_path, capsys, monkeypatch):
    spec = copy_spec(REPO / "specs" / "synthetic-sweep.cmp", tmp_path / "s")
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", "100")
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, ["build", str(spec), "-o", str(out), "--no-cache"])
    assert code == 1 and "error[E315]" in err and not out.exists()


def test_a_vllm_document_is_limited_without_its_streamed_arrays(tmp_path, capsys, monkeypatch):
    """`itls` is streamed into numpy and does not count; the rest of the document does, and a
    document that must be parsed whole (no `itls` where expected) counts whole."""
    source = REPO / "specs" / "data" / "llama70b" / "tp8_pp1_sharegpt_qps_04.json"
    doc = json.loads(source.read_text(encoding="utf-8"))
    rest = len(json.dumps({k: v for k, v in doc.items() if k != "itls"}))
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps(doc), encoding="utf-8")
    assert trace.stat().st_size > 2 * rest
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(rest + 1000))
    assert run_cli(capsys, ["stats", str(trace)])[0] == 0
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(rest - 1000))
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E315]" in err
    doc["itls"] = "not where expected"
    trace.write_text(json.dumps(doc), encoding="utf-8")
    monkeypatch.setenv("CMPC_MAX_RECORD_BYTES", str(trace.stat().st_size - 1))
    code, _, err = run_cli(capsys, ["stats", str(trace)])
    assert code == 1 and "error[E315]" in err
