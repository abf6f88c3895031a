"""Build helpers and a generator of valid specs over the showcase data, for relation tests."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cmpc.build.pipeline import build_spec

SPECS = Path(__file__).resolve().parents[2] / "specs"

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|.', re.S)


def rename_identifiers(text: str, mapping: dict[str, str]) -> str:
    """Rename names outside strings and comments (globs and labels stay as written)."""
    return "".join(mapping.get(t, t) for t in _TOKENS.findall(text))


def copy_specs(root: Path) -> Path:
    """A private copy of specs/ (spec files and data) that tests may add files to."""
    target = root / "specs"
    shutil.copytree(SPECS, target)
    return target


class Builder:
    """Builds spec texts inside a copied specs/ tree, one output folder per build."""

    def __init__(self, tree: Path, cache: Path) -> None:
        self.tree, self.cache, self.count = tree, cache, 0
        self._memo: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}

    def results(self, text: str, *sets: str) -> dict[str, Any]:
        key = (text, sets)
        if key not in self._memo:
            self.count += 1
            spec = self.tree / f"case-{self.count}.cmp"
            spec.write_text(text)
            out = self.tree.parent / "out" / str(self.count)
            outcome = build_spec(
                str(spec),
                out_dir=str(out),
                sets=list(sets),
                render=False,
                use_cache=True,
                cache_dir=str(self.cache),
            )
            assert outcome.code == 0, (text, sets, [str(d) for d in outcome.diagnostics])
            self._memo[key] = json.loads((out / "results.json").read_text())
        return self._memo[key]


@dataclass(frozen=True)
class Side:
    """One generated system: its data, size and price."""

    name: str
    glob: str
    format: str
    source: str
    gpus: int
    nodes: int
    price: str


@dataclass(frozen=True)
class GeneratedSpec:
    """The choices a generated spec is made of; `text` renders them."""

    sides: tuple[Side, Side]
    baseline: int
    statistic: str
    target: str | None
    count: str
    normalize: str
    utilization: int
    per_million: str

    def text(self) -> str:
        """The spec, in the language's canonical layout."""
        target = f"\n    target {self.target}" if self.target else ""
        systems = "\n".join(_system(s, self.normalize) for s in self.sides)
        return f"""comparison "generated" {{
  baseline {self.sides[self.baseline].name}

  source sample {{
    title "Synthetic sample traces from scripts/make_sample_traces.py"
    role synthetic
    status self_reported
  }}
  source llmk8s {{
    title "surajssd/llm-k8s benchmark results"
    role third_party
    run_date 2025-04-14
    status unverified
  }}

  latency {{
    metric tpot
    statistic {self.statistic}{target}
  }}

  tokens {{
    count {self.count}
    reused included
  }}

  normalize per {self.normalize}

{systems}

  cost {{
    utilization {self.utilization}%
    per_million {self.per_million}
  }}
}}
"""

    def with_sides(self, *sides: Side) -> GeneratedSpec:
        """The same spec over other sides."""
        return replace(self, sides=(sides[0], sides[1]))


def _system(side: Side, normalize: str) -> str:
    per_node = side.gpus // side.nodes
    layout = f"\n    nodes {side.nodes}\n    gpus_per_node {per_node}" if side.nodes > 1 else ""
    if normalize == "node" and side.nodes == 1:
        layout = f"\n    gpus_per_node {per_node}"
    return f"""  system {side.name} {{
    accelerator "Accelerator {side.name}" x {side.gpus}{layout}
    parallel tp {side.gpus}
    price {side.price} USD/gpu/h basis assumed source "generated price, not a quote"
    cache_hit_rate unknown
    runs "{side.glob}" format {side.format} source {side.source}
  }}"""
