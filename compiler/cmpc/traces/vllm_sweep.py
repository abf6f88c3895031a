"""`vllm bench sweep serve` folders: `SERVE-…-BENCH-…/run=N.json` and their `summary.json`."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping

from cmpc.traces import jsonscan, vllm
from cmpc.traces.common import mapping
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.proved import Layout, Reading
from cmpc.traces.table import FieldValue, Run

NAME = "vllm-sweep"
# each run is a `vllm bench serve` result plus `run_number` and the combination's parameters
RUN = Layout("vLLM", "bench sweep serve run", "0.33.0", "0.33.0")
# the folder name: "SERVE-" + name, "BENCH-" + name, joined by "-"; a name is `k=v` pairs
# joined by "-" (or the combination's `_benchmark_name`, which the run then holds)
_PART = re.compile(r"^(?:SERVE-(?P<serve>.*?))?-?(?:BENCH-(?P<bench>.*))?$")
_KEY = re.compile(r"(?:^|-)([A-Za-z_][A-Za-z0-9_.]*)=")


def read(path: str, fmt: str = NAME) -> list[Run]:
    doc = jsonscan.read_document(path)
    items = doc if isinstance(doc, list) else [doc]  # summary.json: every run of the folder
    if not items:
        raise TraceError("the sweep summary lists no run", "the document", "E309")
    keys = parameter_keys(os.path.basename(os.path.dirname(os.path.abspath(path))))
    runs = []
    for i, item in enumerate(items):
        where = f"[{i}]" if isinstance(doc, list) else ""
        item = mapping(item, f"`{where or 'the document'}`")
        if "run_number" not in item:
            raise TraceError(
                f"run {where or '0'} has no `run_number`, which every sweep run carries",
                where or "the document",
                "E321",
            )
        run = vllm.run_from_doc(path, item, {}, fmt, i, where)
        fields: dict[str, FieldValue] = dict(run.fields)
        fields.update(_scalar(item, "run_number"))
        for key in keys:
            fields.update(_scalar(item, key))
        if "_benchmark_name" in item:
            fields.update(_scalar(item, "_benchmark_name", "benchmark_name"))
        runs.append(dataclasses.replace(run, fields=fields, reading=Reading("vLLM", RUN)))
    return runs


def parameter_keys(folder: str) -> list[str]:
    """The SERVE and BENCH parameter names a combination folder's name states."""
    match = _PART.match(folder)
    if match is None or not (match.group("serve") or match.group("bench")):
        return []
    out: list[str] = []
    for part in (match.group("serve"), match.group("bench")):
        for key in _KEY.findall(part or ""):
            if key not in out:
                out.append(key)
    return out


def _scalar(item: Mapping, key: str, name: str | None = None) -> dict[str, FieldValue]:
    value = item.get(key)
    if isinstance(value, bool):
        value = str(value).lower()
    if value is None or isinstance(value, str | int | float):
        return {name or key: value} if key in item else {}
    return {}
