"""`cmpc build`: check the spec, read its data, compute every figure, write outputs atomically."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from cmpc import __version__, lazy
from cmpc.analysis import types as T
from cmpc.analysis.results import analyze
from cmpc.analysis.stage import StageUnusable, recording
from cmpc.build.exports import export_files, unknown_exports
from cmpc.build.gates import check_policy, parse_all
from cmpc.build.jsontext import indented
from cmpc.build.model import Built, Options
from cmpc.build.outputs import check_target, write_atomically
from cmpc.build.staging import open_stage, stage_file
from cmpc.compile import compile_spec
from cmpc.diagnostics import Diagnostic, error, has_errors, located
from cmpc.digests import sha256
from cmpc.files import display_path, read_source
from cmpc.ingest.cache import CorruptEntry, cache_dir
from cmpc.ingest.cluster import connected, scheduler_address
from cmpc.ingest.load import Input, load_data
from cmpc.ingest.reduce import Progress
from cmpc.ingest.remote import is_url
from cmpc.ir import model as ir
from cmpc.jsontypes import JsonObject
from cmpc.outcome import Outcome
from cmpc.report import render_outputs
from cmpc.safe_text import terminal_text
from cmpc.source import SourceFile
from cmpc.syntax.overrides import Override

if TYPE_CHECKING:
    from concurrent.futures import Executor  # logging and more: 5 ms, for a type

    from cmpc.ingest import sketch
else:
    sketch = lazy.module("cmpc.ingest.sketch")  # numpy, for `--sketch` only

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
    options: Options | None = None,
) -> Outcome:
    """Run the whole pipeline; outputs appear only if everything succeeded.

    `use_cache` keeps reduced runs in `cache_dir` (default: see `cmpc.ingest.cache.cache_dir`; the
    CLI turns it on); `progress(done, total)` is called as run files are reduced. `require` are
    policies (docs/policies.md) checked on the results once the outputs are written: a valid
    build that fails one exits 3. `exports` name extra outputs (`cmpc.build.exports.EXPORTS`).
    `text` is the spec's text when it is not on disk (`cmpc compare`); `spec_path` still says
    where it would be, so its globs resolve in that folder and stay confined to it. `options`,
    when given, replaces the keyword arguments from `render` to `progress` (and `exports`).
    """
    policies, problems = parse_all(require, "--require")  # a typo fails before any work
    if problems:
        return Outcome(diagnostics=tuple(problems))
    if options is None:
        options = Options(render, html, template_dir, use_cache, cache_dir, progress)
    if exports:
        options = dataclasses.replace(options, exports=(*options.exports, *exports))
    if png:
        options = dataclasses.replace(options, png=True)
    target = Path(out_dir) if out_dir else Path("build") / Path(spec_path).stem
    keep = [Path(spec_path), *([Path(options.template_dir)] if options.template_dir else [])]
    built = compute_build(
        spec_path,
        sets,
        options,
        before_load=lambda: check_target(target, keep),
        text=text,
        unsets=unsets,
    )
    diagnostics = list(built.diagnostics)
    if built.results is None or has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=built.sources)
    spec_dir = Path(spec_path).resolve().parent
    keep += [spec_dir / i.path for i in built.inputs if not is_url(i.path)]
    diagnostics += write_atomically(target, dict(built.files), keep)
    if has_errors(diagnostics):  # "wrote" only once the outputs are in place
        return Outcome(diagnostics=tuple(diagnostics), sources=built.sources)
    summary = _summary(built.results, display_path(str(target)))
    for parsed in policies:
        diagnostics += check_policy(parsed, cast(JsonObject, built.results))
    return Outcome(stdout=summary, diagnostics=tuple(diagnostics), sources=built.sources)


def compute_build(
    spec_path: str,
    sets: Sequence[str] = (),
    options: Options | None = None,
    *,
    before_load: Callable[[], list[Diagnostic]] | None = None,
    text: str | None = None,
    unsets: Sequence[str] = (),
) -> Built:
    """Check the spec, read its runs and compute every output in memory; write nothing.

    `before_load` runs once the spec is valid and before any run file is read (the CLI checks
    its output folder there, so a refused folder fails fast); `text` is the spec's text when it
    is not on disk (see `build_spec`).
    """
    try:  # cached points are decoded when first read: a stage hit reads none
        return _compute_build(spec_path, sets, options, before_load, text, unsets, lazy=True)
    except (CorruptEntry, StageUnusable):  # every entry checked as it is read, no stage
        return _compute_build(spec_path, sets, options, before_load, text, unsets, lazy=False)


def _compute_build(
    spec_path: str,
    sets: Sequence[str],
    options: Options | None,
    before_load: Callable[[], list[Diagnostic]] | None,
    text: str | None,
    unsets: Sequence[str],
    *,
    lazy: bool,
) -> Built:
    options = options or Options()
    if text is None:
        source, diagnostics = read_source(spec_path)
    else:
        source, diagnostics = SourceFile(display_path(spec_path), text), []
    if source is None:
        return Built(None, {}, tuple(diagnostics), {})
    sources = {source.name: source}
    compiled = compile_spec(source, sets, unsets)
    comparison, diagnostics, overrides = (
        compiled.comparison,
        compiled.diagnostics,
        compiled.overrides,
    )
    sources |= compiled.sources

    def failed() -> Built:
        return Built(None, {}, tuple(diagnostics), sources)

    if comparison is None or has_errors(diagnostics):
        return failed()
    if before_load is not None:
        diagnostics += before_load()
    diagnostics += unknown_exports(options.exports)
    if has_errors(diagnostics):
        return failed()
    if options.sketch is not None and not sketch.available():
        diagnostics.append(
            error(
                "E509",
                "`--sketch` needs ddsketch, which is not installed",
                help="pip install 'cmpc[sketch]'",
            )
        )
        return failed()
    spec_dir = Path(spec_path).resolve().parent
    found = stage_file(comparison, _stage_root(options, spec_dir) if lazy else None, options.sketch)
    with _executor(options) as (executor, problems):
        diagnostics += problems
        if has_errors(diagnostics):
            return failed()
        data, inputs, problems = load_data(
            comparison,
            spec_dir,
            use_cache=options.use_cache,
            cache_dir=Path(options.cache_dir) if options.cache_dir else None,
            progress=options.progress,
            executor=executor,
            remote=options.remote,
            sketch=options.sketch,
            lazy=lazy and options.use_cache,
            stage=found,
        )
    diagnostics += located(problems, compiled.origins)
    if has_errors(diagnostics):
        return failed()
    stage = open_stage(found)
    with recording(stage.memo):
        analysis, warnings = analyze(comparison, data)
    diagnostics += located(warnings, compiled.origins)
    reported: list[T.WarningResult] = [
        {"code": d.code, "message": d.message}
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
        # cache and cluster trouble (W7xx) changes how, not what, a build computes
        if d.severity == "warning" and not d.code.startswith("W7")
    ]
    results = _envelope(analysis, comparison, source, inputs, overrides, reported)
    if options.sketch is not None:
        results["conditions"]["percentile_sketch"] = cast(
            T.PercentileSketch, sketch.sketch_condition(options.sketch)
        )
    files: dict[str, str | bytes] = {"results.json": indented(results) + "\n"}
    if options.render:
        # report/ reads the results as the JSON document they are (it does not take T.Results yet)
        document = cast(JsonObject, results)
        with recording(stage.memo):  # the frontier's curve is remembered with the analysis
            rendered, problems = render_outputs(
                document, html=options.html, template_dir=options.template_dir, png=options.png
            )
        diagnostics += problems
        if has_errors(diagnostics):
            return failed()
        files |= rendered
    stage.save()
    built = Built(results, files, tuple(diagnostics), sources, data, tuple(inputs), spec_dir)
    exported, problems = export_files(built, options.exports)
    diagnostics += problems
    if has_errors(diagnostics):
        return failed()
    return dataclasses.replace(built, files=files | exported, diagnostics=tuple(diagnostics))


def _stage_root(options: Options, spec_dir: Path) -> Path | None:
    """The cache folder the analysis stage lives in: the one the runs come from, if used (a
    cache refused with W701 is not used: `load_data` then settles no stage)."""
    if not options.use_cache:
        return None
    return Path(options.cache_dir) if options.cache_dir else cache_dir(spec_dir)


@contextlib.contextmanager
def _executor(options: Options) -> Iterator[tuple[Executor | None, list[Diagnostic]]]:
    """The executor given, else a Dask cluster's when a scheduler is named, else None (local)."""
    address = scheduler_address(options.scheduler)
    if options.executor is not None or address is None:
        yield options.executor, []
        return
    with connected(address) as found:
        yield found


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
            "sha256": sha256(source.text.encode("utf-8")).hexdigest(),
        },
        "overrides": [{"path": o.path, "value": o.value, "was": o.was} for o in overrides],
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


BOUND_WORDS = {
    "lower": "the throughput ratio is a lower bound",
    "upper": "the throughput ratio is an upper bound",
    "neither": "a ratio of two lower bounds: not itself a bound",
}


def _summary(results: T.Results, where: str) -> str:
    head = results["headline"]
    lines = [f"wrote {terminal_text(where)}/"]
    if head and head["throughput_ratio"]:
        pair = f"{terminal_text(head['system'])} vs {terminal_text(head['baseline'])}"
        line = f"{pair}: throughput x{head['throughput_ratio']:.4g}"
        if head["cost_ratio"]:
            line += f", cost per token x{head['cost_ratio']:.4g}"
        bound = head.get("bound")
        if bound:
            line += f" ({BOUND_WORDS[bound]})"
        lines.append(line)
    return "\n".join(lines) + "\n"
