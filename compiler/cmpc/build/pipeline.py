"""`cmpc build`: check the spec, read its data, compute every figure, write outputs atomically."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cmpc import __version__

from cmpc.ir import model as ir

from cmpc.ingest import runfiles
from cmpc.analysis.results import RunPoint, SystemData, analyze
from cmpc.diagnostics import Diagnostic, error, has_errors, warning
from cmpc.limits import Limits
from cmpc.limits import current as current_limits
from cmpc.outcome import Outcome
from cmpc.syntax.overrides import Override, apply_overrides, parse_override
from cmpc.source import SourceFile

RESULTS_VERSION = "1"


@dataclass(frozen=True)
class Input:
    """One data file a build read: where, its content hash, and how it was read."""

    path: str
    sha256: str
    format: str
    system: str
    runs: int


def build_spec(
    spec_path: str,
    *,
    out_dir: str | None = None,
    sets: list[str] = (),
    render: bool = True,
    html: bool = False,
    template_dir: str | None = None,
    use_cache: bool = False,
    cache_dir: str | None = None,
    progress=None,
) -> Outcome:
    """Run the whole pipeline; outputs appear only if everything succeeded.

    `use_cache` keeps reduced runs in `cache_dir` (default: see `cmpc.ingest.cache.cache_dir`; the
    CLI turns it on); `progress(done, total)` is called as run files are reduced.
    """
    from cmpc.verbs.spec import display_path, read_source

    source, diagnostics = read_source(spec_path)
    if source is None:
        return Outcome(diagnostics=tuple(diagnostics))
    sources = {source.name: source}
    comparison, diagnostics, more_sources, overrides = _compile(source, sets)
    sources |= more_sources
    if comparison is None or has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    spec_dir = Path(spec_path).resolve().parent
    data, inputs, problems = load_data(
        comparison,
        spec_dir,
        use_cache=use_cache,
        cache_dir=Path(cache_dir) if cache_dir else None,
        progress=progress,
    )
    diagnostics += problems
    if has_errors(diagnostics):
        return Outcome(diagnostics=tuple(diagnostics), sources=sources)
    results, warnings = analyze(comparison, data)
    diagnostics += warnings
    results = _envelope(results, comparison, source, inputs, overrides)
    results["warnings"] = [
        {"code": d.code, "message": d.message}
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
        # cache trouble (W7xx) changes how, not what, a build computes: results stay identical
        if d.severity == "warning" and not d.code.startswith("W7")
    ]
    target = Path(out_dir) if out_dir else Path("build") / Path(spec_path).stem
    files = {"results.json": json.dumps(results, sort_keys=True, indent=2) + "\n"}
    if render:
        from cmpc.report import render_outputs

        rendered, problems = render_outputs(results, html=html, template_dir=template_dir)
        diagnostics += problems
        if has_errors(diagnostics):
            return Outcome(diagnostics=tuple(diagnostics), sources=sources)
        files |= rendered
    diagnostics += write_atomically(target, files)
    summary = _summary(results, display_path(str(target)))
    return Outcome(stdout=summary, diagnostics=tuple(diagnostics), sources=sources)


def _compile(source: SourceFile, sets):
    """Parse, apply `--set` overrides to the syntax tree, check and validate."""
    from cmpc.check.checker import check_spec
    from cmpc.syntax.parser import parse_spec
    from cmpc.ir.schema import validate_ir

    spec, diagnostics = parse_spec(source)
    if spec is None:
        return None, diagnostics, {}, []
    overrides: list[Override] = []
    for text in sets:
        parsed = parse_override(text)
        if parsed is None:
            diagnostics.append(
                error(
                    "E501",
                    f"`--set {text}` is not PATH=VALUE",
                    file="--set",
                    help="e.g. `--set cost.utilization=40%`",
                )
            )
        else:
            overrides.append(parsed)
    spec, problems, sources = apply_overrides(spec, overrides)
    diagnostics += problems
    comparison, more, origins = check_spec(spec)
    diagnostics += more
    if comparison is not None and not has_errors(diagnostics):
        diagnostics += validate_ir(comparison, origins)
    return comparison, diagnostics, sources, overrides


# ---------------------------------------------------------------------------------------------
# Data


def statistics_needed(comparison: ir.Comparison) -> list[str]:
    """Every statistic the comparison or its sensitivity may read."""
    stats = {comparison.latency.statistic, "median", "p90", "p99"}
    for axis in comparison.sensitivity:
        if axis.parameter == "statistic":
            stats |= {a.value for a in axis.alternatives}
    return sorted(stats)


def _confined(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return True


def load_data(
    comparison: ir.Comparison,
    spec_dir: Path,
    *,
    use_cache: bool = False,
    cache_dir: Path | None = None,
    progress=None,
):
    """Read each system's run files (confined to the spec's folder) and reduce them to points.

    Reductions come from the content-hash cache when it holds them; the rest are read in
    parallel across cores. Either way the points are those a serial read gives.
    """
    from cmpc.ingest.cache import DEFAULT_NAME, Cache
    from cmpc.ingest.cache import cache_dir as default_cache_dir
    from cmpc.ingest.reduce import Task, reduce_all

    data: dict[str, SystemData] = {}
    inputs: list[Input] = []
    diagnostics: list[Diagnostic] = []
    stats = tuple(statistics_needed(comparison))
    metric = comparison.latency.metric
    plans: list[tuple[ir.System, list]] = []
    tasks: list[Task] = []
    for system in comparison.systems:
        runs = system.runs
        if runs is None:
            plans.append((system, []))
            continue
        matches = runfiles.expand(str(spec_dir), runs.glob)
        files = [Path(m) for m in matches if Path(m).is_file()]
        limit = current_limits().run_files
        if len(files) > limit:
            diagnostics.append(
                error(
                    "E505",
                    f"system `{system.name}`: run glob `{runs.glob}` matches {len(files)} files, "
                    f"more than the limit of {limit}",
                    file=comparison.file,
                    help=f"narrow the glob, or raise {Limits.variable('run_files')}",
                )
            )
            plans.append((system, []))
            continue
        steps: list = []
        for path in files:
            if not _confined(path, spec_dir):
                steps.append(
                    error(
                        "E503",
                        f"`{path.name}` resolves outside the spec's folder",
                        file=str(path),
                        help="a symbolic link points elsewhere; copy the file instead",
                    )
                )
                continue
            rel = path.relative_to(spec_dir).as_posix()
            task = Task(
                str(path),
                rel,
                runs.format,
                tuple(runs.where),
                metric,
                stats,
                slos=tuple(comparison.latency.slo),
            )
            tasks.append(task)
            steps.append(task)
        plans.append((system, steps if files else None))
    cache = None
    if use_cache and tasks:
        cache = Cache(cache_dir or default_cache_dir(spec_dir))
        inside = cache.root == spec_dir / DEFAULT_NAME  # the default: in the spec's own folder
        if inside and not all(_confined(p, spec_dir) for p in _cache_paths(cache.root)):
            reason = "it links outside the spec's folder"  # a pull request may commit one
        else:
            reason = cache.prepare()
        if reason is not None:
            diagnostics.append(
                warning(
                    "W701",
                    f"cannot write the cache folder ({reason.lower()}); building without it",
                    file=str(cache.root),
                    help="set CMPC_CACHE_DIR to a writable folder, or pass --no-cache",
                )
            )
            cache = None
    done = dict(zip(tasks, reduce_all(tasks, cache=cache, progress=progress), strict=True))
    for system, steps in plans:
        runs = system.runs
        if runs is None:
            data[system.name] = SystemData(system.name)
            continue
        if steps is None:
            diagnostics.append(
                error(
                    "E502",
                    f"system `{system.name}`: run glob `{runs.glob}` matches no file",
                    file=comparison.file,
                    help=f"the glob is relative to the spec's folder ({spec_dir.name}/)",
                )
            )
            continue
        by_stat: dict[str, list[RunPoint]] = {s: [] for s in stats}
        for step in steps:
            if isinstance(step, Diagnostic):
                diagnostics.append(step)
                continue
            result = done[step]
            diagnostics += result.diagnostics
            reduced = result.reduced
            if reduced.format != "?" and reduced.runs == 0:
                continue  # runs were read, but `where` kept none
            inputs.append(Input(step.rel, result.sha256, reduced.format, system.name, reduced.runs))
            for stat in stats:
                by_stat[stat] += reduced.points.get(stat, ())
        if not any(by_stat.values()) and not has_errors(diagnostics):
            diagnostics.append(
                error(
                    "E504",
                    f"system `{system.name}`: no run matched `where` "
                    + " ".join(f"{k} {v}" for k, v in runs.where),
                    file=comparison.file,
                )
            )
        data[system.name] = SystemData(system.name, {k: tuple(v) for k, v in by_stat.items()})
    return data, inputs, diagnostics


def _cache_paths(root: Path) -> list[Path]:
    """The cache folder and the folders it writes into, as they exist (links not followed)."""
    return [p for p in (root, root / "entries", root / "hashes", root / "CACHEDIR.TAG")
            if p.is_symlink() or p.exists()] + [
        p for p in (root / "entries").glob("*") if p.is_symlink()
    ]  # fmt: skip


def _matches(fields, where) -> bool:
    """A spec's `where` pairs, compared as `cmpc sweep --where` compares them."""
    from cmpc.verbs.sweep import Filter

    return all(Filter(key, value).matches(fields) for key, value in where)


def _run_point(metrics, metric: str, statistic: str, rel: str) -> RunPoint:
    per_gpu = metrics.per_gpu or {}
    gpus = metrics.num_gpus
    inp, out = metrics.throughput("input"), metrics.throughput("output")
    cached = metrics.throughput("cached_input")
    if inp is None and out is None and gpus and per_gpu.get("output") is not None:
        inp = (per_gpu.get("input") or 0.0) * gpus
        out = per_gpu["output"] * gpus
    fields = dict(metrics.fields)
    conc = fields.get("conc") or fields.get("max_concurrency") or fields.get("concurrency")
    try:
        conc = float(conc) if conc is not None else None
    except (TypeError, ValueError):
        conc = None
    label = rel if metrics.index == 0 and not metrics.record else f"{rel} {metrics.record}".strip()
    return RunPoint(
        path=rel,
        index=metrics.index,
        latency_s=metrics.latency_statistic(metric, statistic),
        input_tok_s=inp,
        output_tok_s=out,
        cached_tok_s=cached,
        gpus=gpus,
        concurrency=conc,
        label=label,
        fields=fields,
        goodput_req_s=metrics.goodput,
        slo_attainment=metrics.slo_attainment,
    )


# ---------------------------------------------------------------------------------------------
# Outputs


def _envelope(results: dict, comparison: ir.Comparison, source: SourceFile, inputs, overrides):
    sources = [
        {
            k: getattr(s, k)
            for k in (
                "name",
                "title",
                "role",
                "snapshot",
                "run_date",
                "retrieved",
                "url",
                "status",
                "publisher",
                "notes",
            )
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
        **results,
    }


def write_atomically(target: Path, files: dict[str, str | bytes]) -> list[Diagnostic]:
    """Write into a fresh folder beside the target, then swap it in; failures leave it as was."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _restore(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as exc:
        return [error("E500", f"cannot create output folder: {exc.strerror}", file=str(target))]
    try:
        for name, content in sorted(files.items()):
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        if not target.exists():
            os.replace(staging, target)
        elif _exchange(staging, target):
            shutil.rmtree(staging, ignore_errors=True)  # it now holds the previous outputs
        else:  # no atomic exchange here: two renames, the old folder put back on failure
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            os.replace(target, old)
            try:
                os.replace(staging, target)
            except OSError:
                os.replace(old, target)
                raise
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        return [error("E500", f"cannot write outputs: {exc.strerror}", file=str(target))]
    return []


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported.

    With it a build killed at any moment leaves the old outputs or the new ones, never neither.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _restore(target: Path) -> None:
    """Put back outputs that a build killed between its two renames left at `.NAME.old-PID`."""
    if target.exists():
        return
    prefix = f".{target.name}.old-"
    for old in sorted(p for p in target.parent.iterdir() if p.name.startswith(prefix)):
        os.replace(old, target)
        return


def _summary(results: dict, where: str) -> str:
    head = results.get("headline")
    lines = [f"wrote {where}/"]
    if head and head.get("throughput_ratio"):
        line = f"{head['system']} vs {head['baseline']}: throughput x{head['throughput_ratio']:.4g}"
        if head.get("cost_ratio"):
            line += f", cost per token x{head['cost_ratio']:.4g}"
        lines.append(line)
    return "\n".join(lines) + "\n"
