"""Each system's run files, confined to the spec's folder, read (or from the cache) and reduced."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cmpc.diagnostics import Diagnostic, error, has_errors, warning
from cmpc.ingest import remote as _remote
from cmpc.ingest import runfiles
from cmpc.ingest.cache import DEFAULT_NAME, Cache, Summary, point_count, summary_of_reduced
from cmpc.ingest.cache import cache_dir as default_cache_dir
from cmpc.ingest.cachestage import Identity, StageFile, staged
from cmpc.ingest.points import RunPoint, SystemData
from cmpc.ingest.reduce import Done, Progress, Task, entry_key, reduce_all
from cmpc.ir import model as ir
from cmpc.limits import Limits
from cmpc.limits import current as current_limits

if TYPE_CHECKING:
    from concurrent.futures import Executor  # logging and more: 5 ms, for a type


@dataclass(frozen=True)
class Input:
    """One data file a build read: where, its content hash, and how it was read."""

    path: str
    sha256: str
    format: str
    system: str
    runs: int


def statistics_needed(comparison: ir.Comparison) -> list[str]:
    """Every statistic the comparison or its sensitivity may read."""
    stats = {comparison.latency.statistic, "median", "p90", "p99"}
    for axis in comparison.sensitivity:
        if axis.parameter == "statistic":
            stats |= {a.value for a in axis.alternatives}
    return sorted(stats)


def _unique(paths: Iterable[Path]) -> list[tuple[Path, str]]:
    """Each file once, however many links or spellings a glob matched it under (first kept),
    with its real path."""
    seen: set[str] = set()
    out: list[tuple[Path, str]] = []
    for path in paths:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            out.append((path, real))
    return out


def _confined(path: Path, root: Path, real: str | None = None) -> bool:
    """Whether `path` (whose real path is `real`, if known) resolves inside `root`."""
    try:
        Path(real or os.path.realpath(path)).relative_to(root)
    except ValueError:
        return False
    return True


def runs_origin(comparison: ir.Comparison, system: ir.System) -> str:
    """The IR pointer of a system's `runs` line (diagnostics about its files point at it)."""
    return f"/systems/{comparison.systems.index(system)}/runs"


def display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


# a reader's diagnostics that are about the `runs` line itself (the format it names)
_ABOUT_THE_SPEC = {"E302", "E303", "E304"}


def _in_spec(d: Diagnostic, runs: ir.Runs, origin: str, rel: str) -> Diagnostic:
    """A reader's diagnostic about the format, pointed at the `runs` line and in its words.

    The file is named as the spec's folder sees it (`data/x.json`), as the `runs` glob does.
    """
    if d.code not in _ABOUT_THE_SPEC:
        return d
    message = d.message.replace(f"`{d.file}`", f"`{rel}`") if d.file else d.message
    fix = (
        (d.help or "").replace("pass `--format ", "write `format ").replace("`--format", "`format")
    )
    if d.code == "E304" and fix.startswith("write `format"):
        fix += f" in the `runs` line (it says `format {runs.format}`)"
    return dataclasses.replace(d, message=message, help=fix or None, origin=origin)


def _nothing_matched(
    comparison: ir.Comparison, system: ir.System, runs: ir.Runs, stated: dict[str, set[str]]
) -> Diagnostic:
    """E504, listing the fields (and values) the runs do state, so a typo shows."""
    wanted = {k for k, _ in runs.where}
    notes = [
        f"`{key}` in these runs: " + ", ".join(f"`{v}`" for v in sorted(stated[key])[:8])
        for key in sorted(wanted & set(stated))
    ]
    missing = sorted(wanted - set(stated))
    if missing:
        notes.append(
            "no run states "
            + ", ".join(f"`{k}`" for k in missing)
            + "; the runs state "
            + (", ".join(f"`{k}`" for k in sorted(stated)) or "no fields")
        )
    return error(
        "E504",
        f"system `{system.name}`: no run matched `where` "
        + " ".join(f"{k} {v}" for k, v in runs.where),
        file=comparison.file,
        notes=tuple(notes),
        help="match a value the runs state (`where` compares as `cmpc sweep --where` does)",
        origin=runs_origin(comparison, system),
    )


def load_data(
    comparison: ir.Comparison,
    spec_dir: Path,
    *,
    use_cache: bool = False,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    executor: Executor | None = None,
    remote: bool = False,
    sketch: float | None = None,
    lazy: bool = False,
    stage: StageFile | None = None,
) -> tuple[dict[str, SystemData], list[Input], list[Diagnostic]]:
    """Read each system's run files (confined to the spec's folder) and reduce them to points.

    Reductions come from the content-hash cache when it holds them; the rest are read in
    parallel across cores, or on `executor` (a cluster). Either way the points are those a
    serial read gives. Run globs that are URLs are read only with `remote`; `sketch` (a
    relative accuracy) takes percentiles from a DDSketch instead of exactly. `lazy`: cached
    points are decoded at their first read (`cmpc.ingest.cache.LazyPoints`; a build whose
    analysis stage hits reads none), which may then raise `CorruptEntry`. `stage`: the
    analysis stage in the cache, looked up by the files' entries; when it states every entry,
    no entry is opened (`cmpc.ingest.cachestage.EntryPoints`), and it is settled on the
    entries read otherwise.
    """
    data: dict[str, SystemData] = {}
    inputs: list[Input] = []
    diagnostics: list[Diagnostic] = []
    stats = tuple(statistics_needed(comparison))
    metric = comparison.latency.metric
    boot = comparison.uncertainty
    slos = tuple(comparison.latency.slo)
    # each system's steps: a task per confined file, a diagnostic per refused one; None: no file
    plans: list[tuple[ir.System, list[Task | Diagnostic] | None]] = []
    tasks: list[Task] = []
    for system in comparison.systems:
        runs = system.runs
        if runs is None:
            plans.append((system, []))
            continue
        at = runs_origin(comparison, system)
        walk_limit = current_limits().walk_entries
        if _remote.is_url(runs.glob):
            found, problems = _remote_files(system, runs.glob, spec_dir, remote, comparison.file)
            diagnostics += problems
            steps: list[Task | Diagnostic] = [
                Task(
                    url,
                    url,
                    runs.format,
                    tuple(runs.where),
                    metric,
                    stats,
                    slos,
                    sketch,
                    limits=tuple((stat, m) for stat, m, _ in comparison.latency.percentile_slo),
                    resamples=boot.resamples if boot.enabled else 0,
                    seed=boot.seed if boot.enabled else 0,
                    interval_method=boot.method if boot.enabled else "",
                )
                for url in found
            ]
            tasks += [t for t in steps if isinstance(t, Task)]
            plans.append((system, steps if found or problems else None))
            continue
        try:
            matches = runfiles.expand(str(spec_dir), runs.glob, limit=walk_limit)
        except runfiles.WalkTooLarge:
            diagnostics.append(
                error(
                    "E507",
                    f"system `{system.name}`: run glob `{runs.glob}` lists more than "
                    f"{walk_limit} files and folders",
                    file=comparison.file,
                    help="start the glob with the folder that holds the runs (`data/NAME/*.json`), "
                    f"or raise {Limits.variable('walk_entries')}",
                    origin=at,
                )
            )
            plans.append((system, []))
            continue
        files = _unique(Path(m) for m in matches if os.path.isfile(m))
        limit = current_limits().run_files
        if len(files) > limit:
            diagnostics.append(
                error(
                    "E505",
                    f"system `{system.name}`: run glob `{runs.glob}` matches {len(files)} files, "
                    f"more than the limit of {limit}",
                    file=comparison.file,
                    help=f"narrow the glob, or raise {Limits.variable('run_files')}",
                    origin=at,
                )
            )
            plans.append((system, []))
            continue
        steps = []
        for path, real in files:
            if not _confined(path, spec_dir, real):
                steps.append(
                    error(
                        "E503",
                        f"system `{system.name}`: `{display(path, spec_dir)}`, matched by "
                        f"`{runs.glob}`, resolves outside the spec's folder",
                        file=str(path),
                        help="a symbolic link points elsewhere; copy the file instead",
                        origin=at,
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
                slos=slos,
                sketch=sketch,
                limits=tuple((stat, m) for stat, m, _ in comparison.latency.percentile_slo),
                resamples=boot.resamples if boot.enabled else 0,
                seed=boot.seed if boot.enabled else 0,
                interval_method=boot.method if boot.enabled else "",
                root=str(spec_dir),
            )
            tasks.append(task)
            steps.append(task)
        plans.append((system, steps if files else None))
    cache = None
    if use_cache and tasks:
        cache = Cache(cache_dir or default_cache_dir(spec_dir), lazy=lazy)
        inside = cache.root == spec_dir / DEFAULT_NAME  # the default: in the spec's own folder
        reason = cache.prepare(confine_to=spec_dir if inside else None)
        if reason is not None:
            diagnostics.append(
                warning(
                    "W701",
                    f"cannot write the cache folder ({reason.lower()}); building without it",
                    file=str(cache.root),
                    help="set CMPC_CACHE_DIR to a writable folder of cmpc's, or pass --no-cache",
                )
            )
            cache = None
    owned = [(s.name, t) for s, steps in plans for t in steps or () if isinstance(t, Task)]
    done = _from_stage(owned, cache, stage) if cache is not None and stage is not None else None
    settled = done is not None
    if done is not None:
        if progress:
            progress(len(done), len(done))
    else:
        outcomes = reduce_all(tasks, cache=cache, progress=progress, executor=executor)
        done = dict(zip(tasks, outcomes, strict=True))
    for system, planned in plans:
        runs = system.runs
        if runs is None:
            data[system.name] = SystemData(system.name)
            continue
        if planned is None:
            diagnostics.append(
                error(
                    "E502",
                    f"system `{system.name}`: run glob `{runs.glob}` matches no file",
                    file=comparison.file,
                    help=f"the glob is relative to the spec's folder ({spec_dir.name}/)",
                    origin=runs_origin(comparison, system),
                )
            )
            continue
        parts: list[Mapping[str, tuple[RunPoint, ...]]] = []
        stated: dict[str, set[str]] = {}
        for step in planned:
            if isinstance(step, Diagnostic):
                diagnostics.append(step)
                continue
            result = done[step]
            diagnostics += [
                _in_spec(d, runs, runs_origin(comparison, system), step.rel)
                for d in result.diagnostics
            ]
            reduced = result.reduced
            for key, values in reduced.fields:
                stated.setdefault(key, set()).update(values)
            if reduced.format != "?" and reduced.runs == 0:
                continue  # runs were read, but `where` kept none
            inputs.append(Input(step.rel, result.sha256, reduced.format, system.name, reduced.runs))
            parts.append(reduced.points)
        counted = any(point_count(p, stat) for p in parts for stat in stats)
        if not counted and not has_errors(diagnostics):
            diagnostics.append(_nothing_matched(comparison, system, runs, stated))
        data[system.name] = SystemData(system.name, _Joined(stats, tuple(parts)))
    if cache and stage and owned and not settled and not has_errors(diagnostics):
        _settle(stage, owned, done)
    return data, inputs, diagnostics


def _from_stage(
    owned: list[tuple[str, Task]], cache: Cache, stage: StageFile
) -> dict[Task, Done] | None:
    """Every file's reduction as the stage summarizes it, no entry opened; None unless the
    stage states each one (every file local, its SHA-256 remembered by the stat memo)."""
    shas: dict[Task, str] = {}
    for _, task in owned:
        if task in shas:
            continue
        sha = None if _remote.is_url(task.path) else cache.known_sha256(Path(task.path))
        if sha is None:
            return None
        shas[task] = sha
    keys = {task: entry_key(task, sha) for task, sha in shas.items()}
    digests = {task: key.digest() for task, key in keys.items()}
    entries = [(name, task.rel, digests[task]) for name, task in owned]
    found = stage.find(entries)
    if not found:
        return None
    stage.settle(entries, found)
    return {
        task: Done(sha, staged(cache, keys[task], found[digests[task]]), cached=True)
        for task, sha in shas.items()
    }


def _settle(stage: StageFile, owned: list[tuple[str, Task]], done: Mapping[Task, Done]) -> None:
    """The stage of the entries read, if each file has one: reduced without a diagnostic (a
    file whose reading warns is read at every build, and its warnings with it)."""
    if any(done[task].diagnostics or not done[task].sha256 for _, task in owned):
        return
    digests = {task: entry_key(task, done[task].sha256).digest() for _, task in owned}
    entries: list[Identity] = [(name, task.rel, digests[task]) for name, task in owned]
    summaries: dict[str, Summary] = {
        digests[task]: summary_of_reduced(done[task].reduced) for _, task in owned
    }
    stage.settle(entries, summaries)


def _remote_files(
    system: ir.System, url_glob: str, spec_dir: Path, allowed: bool, spec_file: str
) -> tuple[list[str], list[Diagnostic]]:
    """The URLs a remote run glob matches, or why none is read (refused unless `allowed`)."""
    name = system.name
    if not allowed:
        return [], [
            error(
                "E508",
                f"system `{name}`: run glob `{url_glob}` is a URL; remote inputs are off",
                file=spec_file,
                help="a spec reaches the network only when its builder allows it: pass "
                "`--allow-remote` (or `allow_remote=True`) if you trust this spec",
            )
        ]
    reason = _remote.refusal(url_glob)
    if reason is not None:
        return [], [
            error("E508", f"system `{name}`: run glob `{url_glob}`: {reason}", file=spec_file)
        ]
    limit = current_limits().run_files
    try:
        urls = _remote.expand(url_glob, limit=limit)
    except _remote.RemoteUnavailable:
        return [], [
            error(
                "E509",
                "remote run globs need fsspec, which is not installed",
                file=spec_file,
                help="pip install 'cmpc[remote]'",
            )
        ]
    except Exception as exc:  # each fsspec backend raises its own types
        return [], [
            error(
                "E300",
                f"system `{name}`: cannot list `{url_glob}`: {type(exc).__name__}: {exc}",
                file=spec_file,
            )
        ]
    if len(urls) > limit:
        return [], [
            error(
                "E505",
                f"system `{name}`: run glob `{url_glob}` matches more than {limit} files",
                file=spec_file,
                help=f"narrow the glob, or raise {Limits.variable('run_files')}",
            )
        ]
    problems: list[Diagnostic] = []
    kept: list[str] = []
    for url in urls:
        local = _remote.local_path(url)
        if local is not None and not _confined(local, spec_dir):
            problems.append(
                error(
                    "E503",
                    f"`{url}` is outside the spec's folder",
                    file=url,
                    help="a `file://` URL is held to the spec's folder, as a path is",
                )
            )
            continue
        kept.append(url)
    return kept, problems


class _Joined(Mapping[str, tuple[RunPoint, ...]]):
    """Each statistic's points, every file's in turn, joined at the first read."""

    def __init__(
        self, stats: tuple[str, ...], parts: tuple[Mapping[str, tuple[RunPoint, ...]], ...]
    ) -> None:
        self._stats, self._parts = stats, parts
        self._joined: dict[str, tuple[RunPoint, ...]] | None = None

    def _all(self) -> dict[str, tuple[RunPoint, ...]]:
        if self._joined is None:
            self._joined = {
                stat: tuple(p for part in self._parts for p in part.get(stat, ()))
                for stat in self._stats
            }
            self._parts = ()
        return self._joined

    def __getitem__(self, stat: str) -> tuple[RunPoint, ...]:
        return self._all()[stat]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())
