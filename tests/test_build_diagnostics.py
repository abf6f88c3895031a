"""Build-time diagnostics point at the spec text that caused them, in the spec's own words."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import render_github

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
VLLM = SHARED / "oracle" / "vllm"
SYNTHETIC = REPO / "specs" / "data" / "synthetic"

TWO_VLLM_RUNS = """comparison "Llama 70B: TP8 vs TP4 x PP2" {
  baseline tp8
  latency {
    metric tpot
    statistic p90
  }
  system tp8 {
    accelerator "A100" x 8
    parallel tp 8
    runs "data/*tp8*.json" format vllm
  }
  system tp4pp2 {
    accelerator "A100" x 8
    nodes 2
    parallel tp 4 pp 2
    runs "data/*tp4*.json" format vllm
  }
}
"""


def vllm_spec(tmp_path: Path, text: str = TWO_VLLM_RUNS) -> Path:
    (tmp_path / "data").mkdir()
    for f in VLLM.glob("*.json"):
        shutil.copy(f, tmp_path / "data" / f.name)
    spec = tmp_path / "spec.cmp"
    spec.write_text(text)
    return spec


def synthetic_spec(tmp_path: Path, text: str) -> Path:
    shutil.copytree(SYNTHETIC, tmp_path / "data")
    spec = tmp_path / "spec.cmp"
    spec.write_text(text)
    return spec


def diagnose(spec: Path, code: str):
    outcome = build_spec(str(spec), out_dir=str(spec.parent / "out"), render=False)
    found = [d for d in outcome.diagnostics if d.code == code]
    assert found, [d.code for d in outcome.diagnostics]
    return found, outcome


def line_of(spec: Path, outcome, d) -> str:
    assert d.span is not None, f"{d.code} has no span"
    line, _ = outcome.sources[d.span.file].line_col(d.span.start)
    return spec.read_text().splitlines()[line - 1].strip()


def test_e502_points_at_the_glob_and_github_annotates_its_line(tmp_path):
    spec = vllm_spec(tmp_path, TWO_VLLM_RUNS.replace("*tp4*", "*tp2*"))
    (d,), outcome = diagnose(spec, "E502")
    assert line_of(spec, outcome, d) == 'runs "data/*tp2*.json" format vllm'
    annotation = render_github([d], outcome.sources)
    assert annotation.startswith("::error file=") and ",line=16,col=5," in annotation


def test_e503_points_at_the_glob(tmp_path):
    spec = vllm_spec(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text("{}")
    os.symlink(outside, tmp_path / "data" / "x_tp4_link.json")
    found, outcome = diagnose(spec, "E503")
    assert line_of(spec, outcome, found[0]) == 'runs "data/*tp4*.json" format vllm'
    assert "data/x_tp4_link.json" in found[0].message


def test_e504_lists_the_fields_and_values_the_runs_state(tmp_path):
    spec = vllm_spec(
        tmp_path,
        TWO_VLLM_RUNS.replace(
            'tp8*.json" format vllm', 'tp8*.json" format vllm where request_rate 8'
        ),
    )
    (d,), outcome = diagnose(spec, "E504")
    assert line_of(spec, outcome, d).startswith('runs "data/*tp8*.json"')
    assert d.notes == ("`request_rate` in these runs: `4.0`",)


def test_e504_names_a_field_no_run_states(tmp_path):
    spec = vllm_spec(
        tmp_path,
        TWO_VLLM_RUNS.replace('tp8*.json" format vllm', 'tp8*.json" format vllm where qps 8'),
    )
    (d,), _ = diagnose(spec, "E504")
    assert d.notes[0].startswith("no run states `qps`; the runs state `backend`, `burstiness`")
    assert "`request_rate`" in d.notes[0]


def test_e304_points_at_the_runs_line_and_speaks_the_spec_language(tmp_path):
    spec = vllm_spec(
        tmp_path, TWO_VLLM_RUNS.replace('tp8*.json" format vllm', 'tp8*.json" format inferencex')
    )
    (d,), outcome = diagnose(spec, "E304")
    assert line_of(spec, outcome, d) == 'runs "data/*tp8*.json" format inferencex'
    assert d.help == "write `format vllm` in the `runs` line (it says `format inferencex`)"
    assert "--format" not in (d.help or "")
    assert d.message == (
        "`data/llmk8s__serving_meta-llama-Llama-3.3-70B-Instruct_tp8_pp1_sharegpt_qps_04.json` "
        "is not a `inferencex` file; it looks like `vllm`"
    )


def test_w515_points_at_a_runs_line(tmp_path):
    spec = vllm_spec(tmp_path)
    (d,), outcome = diagnose(spec, "W515")
    assert line_of(spec, outcome, d) == 'runs "data/*tp4*.json" format vllm'


SWEEPS = """comparison "synthetic" {
  baseline beta
  latency {
    metric tpot
    statistic p90
    target 30 tok/s/user
  }
  system alpha {
    accelerator "A" x 8
    parallel tp 8
    runs "data/alpha/*.jsonl" format cmpc
  }
  system beta {
    accelerator "B" x 8
    parallel tp 8
    runs "data/beta/conc-0[1-4].jsonl" format cmpc
  }
}
"""


def test_w515_sorts_concurrencies_as_numbers(tmp_path):
    spec = synthetic_spec(tmp_path, SWEEPS)
    (d,), _ = diagnose(spec, "W515")
    assert "alpha: conc 1, conc 2, conc 4, conc 8, conc 16, conc 32, conc 64;" in d.message


ROWS = SHARED / "reference-data" / "inferencex" / "tpu-manual-sweep.json"
TPU_ROWS = """comparison "TPU v7 rows" {
  baseline b
  latency {
    metric tpot
    statistic median
    target 50 tok/s/user
  }
  system a {
    accelerator "TPU v7" x 4
    parallel tp 4
    runs "data/*.json" format inferencex where tp 8
  }
  system b {
    accelerator "TPU v7" x 8
    parallel tp 8
    runs "data/*.json" format inferencex where tp 8
  }
}
"""


def test_w512_once_per_cause_on_the_gpu_count(tmp_path):
    (tmp_path / "data").mkdir()
    shutil.copy(ROWS, tmp_path / "data" / ROWS.name)
    spec = tmp_path / "spec.cmp"
    spec.write_text(TPU_ROWS)
    (d,), outcome = diagnose(spec, "W512")  # every tp 8 row states 8 GPUs: one warning
    assert line_of(spec, outcome, d) == 'accelerator "TPU v7" x 4'
    assert re.fullmatch(
        r"system `a` counts 4 GPUs, but \d+ runs in `data/tpu-manual-sweep.json` count 8",
        d.message,
    ), d.message


def test_w411_points_at_the_target(tmp_path):
    spec = synthetic_spec(tmp_path, SWEEPS.replace("target 30", "target 500"))
    found, outcome = diagnose(spec, "W411")
    assert {line_of(spec, outcome, d) for d in found} == {"target 500 tok/s/user"}
