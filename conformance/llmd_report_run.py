"""Keep the llm-d Benchmark Report (BR v0.2.1) that inference-perf writes as llmd-report fixtures.

inference-perf 0.7.0 writes `inference-perf.partial.stage_N.yaml` beside its own reports on
every run (its `reportgen/br/v0_2` writer): the `results` and `run` sections of a BR v0.2.1
document; llm-d-benchmark then layers the deployment (`scenario.stack`) on top. This script
takes the partial of each inference-perf case that `python conformance/run.py inference-perf`
ran (its work folder), keeps it as written, and composes the full report the way
llm-d-benchmark's composer does: the partial plus a `scenario.stack` inference-engine
component. The stack describes the mock server as a deployment of 2 replicas × TP 4
(8 accelerators): a **synthetic** deployment description (no accelerator ran), so that the
per-GPU figures have a stated count; the results section is the tool's own. Each composed
report is validated with inference-perf's vendored BR v0.2.1 schema (pydantic) and written
as YAML and JSON. Output: fixtures/llmd-report/<inference-perf version>/<case>/.

    python conformance/llmd_report_run.py [--from conformance/.work/runs/inference-perf]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venvs" / "inference-perf"
CASES = ("completions-stream-c4", "chat-stream-c4")
PARTIAL = "inference-perf.partial.stage_0.yaml"
STACK = [
    {
        "metadata": {
            "label": "cmpc-mock-engine",
            "cfg_id": "cmpc-mock-2x-tp4",
            "schema_version": "0.0.1",
            "description": "synthetic: the conformance mock server described as 2 x TP4",
        },
        "standardized": {
            "kind": "inference_engine",
            "tool": "cmpc-mock-server",
            "tool_version": "conformance/mock_server.py",
            "role": "replica",
            "replicas": 2,
            "model": {"name": "cmpc-mock"},
            "accelerator": {
                "model": "synthetic (no accelerator ran)",
                "count": 4,
                "parallelism": {"tp": 4, "dp": 1, "dp_local": 1, "workers": 1, "ep": 1, "pp": 1},
            },
        },
        "native": {"args": {"--tensor-parallel-size": 4}},
    }
]
# run inside the inference-perf venv: compose, validate with the tool's schema, write
COMPOSE = r"""
import json, sys, yaml
from inference_perf.reportgen.br.v0_2.schema_v0_2_1 import BenchmarkReportV021
partial, stack, out_yaml, out_json = sys.argv[1:5]
doc = yaml.safe_load(open(partial))
doc["scenario"] = {"stack": json.loads(stack)}
BenchmarkReportV021.model_validate(doc)
BenchmarkReportV021.model_validate(yaml.safe_load(open(partial)))
with open(out_yaml, "w") as f:
    yaml.safe_dump(doc, f, sort_keys=False)
with open(out_json, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
"""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from", dest="source", default=str(HERE / ".work/runs/inference-perf"))
    parser.add_argument("--venv", default=str(VENV))
    args = parser.parse_args()
    python = Path(args.venv) / "bin" / "python"
    version = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m;print(m.version('inference-perf'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for case in CASES:
        partial = Path(args.source) / case / "out" / PARTIAL
        if not partial.is_file():
            print(f"no {partial}: run `python conformance/run.py inference-perf` first")
            return 1
        dest = HERE / "fixtures" / "llmd-report" / version / case
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        shutil.copy2(partial, dest / PARTIAL)
        full_yaml, full_json = dest / "benchmark_report.yaml", dest / "benchmark_report.json"
        argv = [str(python), "-c", COMPOSE, str(partial), json.dumps(STACK)]
        subprocess.run([*argv, str(full_yaml), str(full_json)], check=True)
        files = (PARTIAL, full_yaml.name, full_json.name)
        sidecar = {
            "tool": "llmd-report",
            "writer": "inference-perf",
            "version": version,
            "case": case,
            "source": f"the inference-perf {version} run of fixtures/inference-perf/{version}/"
            f"{case} (its {PARTIAL}, which run.py does not keep there)",
            "command": ["python", "conformance/llmd_report_run.py"],
            "composed": {
                "files": [full_yaml.name, full_json.name],
                "how": "the partial as written + scenario.stack (below), validated with "
                "inference_perf.reportgen.br.v0_2.schema_v0_2_1.BenchmarkReportV021",
                "stack": STACK,
                "synthetic": "scenario.stack only: a stated deployment for per-GPU figures",
            },
            "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
            "files": {n: hashlib.sha256((dest / n).read_bytes()).hexdigest() for n in files},
        }
        (dest / "sidecar.json").write_text(json.dumps(sidecar, indent=1) + "\n")
        print(f"llmd-report {version} {case}: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
