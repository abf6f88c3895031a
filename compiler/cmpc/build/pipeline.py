"""`cmpc build`: check the spec, read its data, compute every figure, write outputs atomically."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from cmpc import __version__
from cmpc.analysis import types as T
from cmpc.analysis.results import analyze
from cmpc.build.exports import EXPORTS
from cmpc.build.gates import check_policy, parse_all
from cmpc.build.outputs import check_target, write_atomically
from cmpc.compile import compile_spec
from cmpc.diagnostics import Diagnostic, has_errors, located
from cmpc.files import display_path, read_source
from cmpc.ingest.load import Input, load_data
from cmpc.ingest.reduce import Progress
from cmpc.ir import model as ir
from cmpc.jsontypes import JsonObject
from cmpc.outcome import Outcome
from cmpc.report import render_outputs
from cmpc.safe_text import terminal_text
from cmpc.source import SourceFile
from cmpc.syntax.overrides import Override

RESULTS_VERSION = "1"


def build_spec(
    spec_path: str,
    *,
    out_dir: str | None = None,
    sets: Sequence[str] = (),
    unsets: Sequence[str] = (),
    render: bool = True,
    html: bool = False,
    png: bool = False,
    template_dir: str | None = None,
    use_cache: bool = False,
    cache_dir: str | None = None,
    progress: Progress | None = None,
    require: Sequence[str] = (),
    exports: Sequence[str] = (),
    text: str | None = None,
) -> Outcome:
    """Run the whole pipeline; outputs appear only if everything succeeded.

    `use_cache` keeps reduced runs in `cache_dir` (default: see `cmpc.ingest.cache.cache_dir`; the
    CLI turns it on); `progress(done, total)` is called as run files are reduced. `require` are
    policies (docs/policies.md) checked on the results once the outputs are written: a valid
    build that fails one exits 3. `exports` name extra outputs (`cmpc.build.exports.EXPORTS`).
    `text` is the spec's text when it is not on disk (`cmpc compare`); `spec_path` still says
    where it would be, so its globs resolve in that folder and stay confined to it.
    """
    policies, problems = parse_all(require, "--require")  # a typo fails before any work
    if problems:
        return Outcome(diagnostics=tuple(problems))
    if text is None:
        source, diagnostics = read_source(spec_path)
    else:
        source, diagnostics = SourceFile(display_path(spec_path), text), []
    if source is None:
        return Outcome(diagnostics=tuple(diagnostics))
    sources = {source.name: source}
    compiled = compile_spec(source, sets, unsets)
    comparison, diagnostics, overrides = (
        compiled.comparison,
        compiled.diagnostics,
        compiled.overrides,
    )
    sources |= compiled.sources
    if comparison is None or has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    target = Path(out_dir) if out_dir else Path("build") / Path(spec_path).stem
    keep = [Path(spec_path), *([Path(template_dir)] if template_dir else [])]
    diagnostics += check_target(target, keep)  # before any work: a refused folder fails fast
    if has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    spec_dir = Path(spec_path).resolve().parent
    data, inputs, problems = load_data(
        comparison,
        spec_dir,
        use_cache=use_cache,
        cache_dir=Path(cache_dir) if cache_dir else None,
        progress=progress,
    )
    diagnostics += located(problems, compiled.origins)
    if has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    analysis, warnings = analyze(comparison, data)
    diagnostics += located(warnings, compiled.origins)
    reported: list[T.WarningResult] = [
        {"code": d.code, "message": d.message}
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
        # cache trouble (W7xx) changes how, not what, a build computes: results stay identical
        if d.severity == "warning" and not d.code.startswith("W7")
    ]
    results = _envelope(analysis, comparison, source, inputs, overrides, reported)
    files: dict[str, str | bytes] = {
        "results.json": json.dumps(results, sort_keys=True, indent=2) + "\n"
    }
    if render:
        # report/ reads the results as the JSON document they are (it does not take T.Results yet)
        document = cast(JsonObject, results)
        rendered, problems = render_outputs(document, html=html, template_dir=template_dir, png=png)
        diagnostics += problems
        if has_errors(diagnostics):
            return Outcome(diagnostics=tuple(diagnostics), sources=sources)
        files |= rendered
    for name in exports:
        files |= EXPORTS[name](cast(JsonObject, results))
    keep += [spec_dir / i.path for i in inputs]
    diagnostics += write_atomically(target, files, keep)
    if has_errors(diagnostics):  # "wrote" only once the outputs are in place
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    summary = _summary(results, display_path(str(target)))
    for parsed in policies:
        diagnostics += check_policy(parsed, cast(JsonObject, results))
    return Outcome(stdout=summary, diagnostics=tuple(diagnostics), sources=sources)


# ---------------------------------------------------------------------------------------------
# Outputs


def _envelope(
    analysis: T.Analysis,
    comparison: ir.Comparison,
    source: SourceFile,
    inputs: Sequence[Input],
    overrides: Sequence[Override],
    warnings: list[T.WarningResult],
) -> T.Results:
    sources: list[T.SourceResult] = [
        {
            "name": s.name,
            "title": s.title,
            "role": s.role,
            "snapshot": s.snapshot,
            "run_date": s.run_date,
            "retrieved": s.retrieved,
            "url": s.url,
            "status": s.status,
            "publisher": s.publisher,
            "notes": s.notes,
        }
        for s in comparison.sources
    ]
    return {
        "results_version": RESULTS_VERSION,
        "cmpc_version": __version__,
        "spec": {
            "file": source.name,
            "sha256": hashlib.sha256(source.text.encode("utf-8")).hexdigest(),
        },
        "overrides": [{"path": o.path, "value": o.value} for o in overrides],
        "sources": sources,
        "inputs": [
            {
                "path": i.path,
                "sha256": i.sha256,
                "format": i.format,
                "system": i.system,
                "runs": i.runs,
                "reader": f"cmpc.traces.{i.format} {__version__}",
            }
            for i in inputs
        ],
        "ir": comparison.to_json(),
        **analysis,
        "warnings": warnings,
    }


def _summary(results: T.Results, where: str) -> str:
    head = results["headline"]
    lines = [f"wrote {terminal_text(where)}/"]
    if head and head["throughput_ratio"]:
        pair = f"{terminal_text(head['system'])} vs {terminal_text(head['baseline'])}"
        line = f"{pair}: throughput x{head['throughput_ratio']:.4g}"
        if head["cost_ratio"]:
            line += f", cost per token x{head['cost_ratio']:.4g}"
        lines.append(line)
    return "\n".join(lines) + "\n"
