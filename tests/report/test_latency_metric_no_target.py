"""A ttft or e2el spec with no target reads each system at its peak: the report, figures.csv and
the SVG say where that peak lies as a latency (ms), never as 1 / latency in "tok/s/user".

Over real tool outputs (../shared/oracle): vLLM 0.8.3's two llmk8s runs, whose own summaries
publish p99_ttft_ms 67.56 (TP8) and 1,213.8 (TP4 x PP2), and AIPerf's example run, whose
request_latency p90 is 9,277.6 ms.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import has_errors

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO.parent / "shared" / "oracle"
RUN = "llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_{}_sharegpt_qps_{}.json"
VLLM = {
    "tp8": ORACLE / "vllm" / RUN.format("tp8_pp1", "04"),
    "tp4pp2": ORACLE / "vllm" / RUN.format("tp4_pp2", "inf"),
}
AIPERF = ORACLE / "aiperf" / "aiperf-examples-run1__profile_export.jsonl"
AIPERF_SUMMARY = ORACLE / "aiperf" / "aiperf-examples-run1__profile_export_aiperf.json"

SYSTEM = """
  system {name} {{
    accelerator "NVIDIA A100 SXM4 40GB" x 8
    engine {engine}
    model "meta-llama/Llama-3.3-70B-Instruct"
    runs "data/{file}" format {format}
  }}
"""


def spec(metric: str, statistic: str, systems: list[tuple[str, str, str, str]]) -> str:
    """A comparison constrained on `statistic metric` with no target."""
    body = "".join(SYSTEM.format(name=n, engine=e, file=f, format=fmt) for n, e, f, fmt in systems)
    return f"""comparison "latency metric, no target" {{
  question "Which serves more tokens per GPU?"
  baseline {systems[0][0]}
  latency {{
    metric {metric}
    statistic {statistic}
  }}
  tokens {{
    count input + output
    reused included
  }}
  normalize per gpu
  uncertainty off
{body}}}
"""


def build(tmp: Path, text: str, files: list[Path]) -> dict[str, Any]:
    """Build `text` over copies of `files`: results, figures.csv rows by id, report, SVG."""
    (tmp / "data").mkdir()
    for f in files:
        shutil.copy(f, tmp / "data" / f.name)
    (tmp / "s.cmp").write_text(text)
    outcome = build_spec(str(tmp / "s.cmp"), out_dir=str(tmp / "out"))
    assert not has_errors(outcome.diagnostics), outcome.diagnostics
    out = tmp / "out"
    rows = csv.DictReader(io.StringIO((out / "figures.csv").read_text()))
    return {
        "results": json.loads((out / "results.json").read_text()),
        "csv": {r["id"]: r for r in rows},
        "report": (out / "report.md").read_text(),
        "svg": (out / "figures" / "runs.svg").read_text(),
    }


@pytest.fixture(scope="module")
def ttft(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    systems = [(n, 'vllm version "0.8.3"', f.name, "vllm") for n, f in VLLM.items()]
    return build(tmp_path_factory.mktemp("ttft"), spec("ttft", "p99", systems), list(VLLM.values()))


def test_ttft_peak_is_vllms_own_p99_ttft_in_ms(ttft: dict[str, Any]) -> None:
    for name, path in VLLM.items():
        published = json.loads(path.read_text())["p99_ttft_ms"]
        for row_id in (f"{name}.point0.latency", f"{name}.peak_latency"):
            row = ttft["csv"][row_id]
            assert row["unit"] == "ms", row_id
            assert float(row["value"]) == pytest.approx(published, rel=1e-9)
        assert f"{name}.point0.interactivity" not in ttft["csv"]
        assert f"{name}.peak_interactivity" not in ttft["csv"]


def test_ttft_report_and_svg_say_the_latency_not_tok_s_user(ttft: dict[str, Any]) -> None:
    report, svg = ttft["report"], ttft["svg"]
    assert "tok/s/user" not in report and "tok/s per user" not in report
    assert "tok/s/user" not in svg and "interactivity" not in svg
    assert "a P99 TTFT of 1,213.8 vs 67.56 ms, so not at equal latency" in report
    assert "(the one run as measured, at a P99 TTFT of 67.56 ms)" in report
    assert "| P99 TTFT (ms) | Throughput (tok/s/gpu) |" in report
    assert "with its load and P99 TTFT under the bar" in report
    assert "P99 TTFT: 67.56 ms" in svg
    assert "No target: each system is read at its peak throughput, placed by its P99 TTFT" in report


def test_results_json_states_the_axis(ttft: dict[str, Any]) -> None:
    assert ttft["results"]["conditions"]["latency"]["axis"] == "latency"


def test_e2el_peak_is_aiperfs_own_p90_request_latency(tmp_path: Path) -> None:
    systems = [
        ("aiperf", "vllm", AIPERF.name, "aiperf"),
        ("tp8", 'vllm version "0.8.3"', VLLM["tp8"].name, "vllm"),
    ]
    built = build(tmp_path, spec("e2el", "p90", systems), [AIPERF, VLLM["tp8"]])
    published = json.loads(AIPERF_SUMMARY.read_text())["records"]["request_latency"]["p90"]
    row = built["csv"]["aiperf.point0.latency"]
    assert (row["unit"], float(row["value"])) == ("ms", pytest.approx(published, rel=1e-9))
    assert "(the one run as measured, at a P90 end-to-end latency of 9,277.6 ms)" in built["report"]
    assert "tok/s/user" not in built["report"] and "tok/s/user" not in built["svg"]


def test_a_tpot_spec_with_no_target_keeps_interactivity(tmp_path: Path) -> None:
    systems = [(n, 'vllm version "0.8.3"', f.name, "vllm") for n, f in VLLM.items()]
    built = build(tmp_path, spec("tpot", "p99", systems), list(VLLM.values()))
    assert built["results"]["conditions"]["latency"]["axis"] == "interactivity"
    assert "tp8.point0.interactivity" in built["csv"] and "tp8.point0.latency" not in built["csv"]
    assert "tok/s per user, so not at equal interactivity" in built["report"]
