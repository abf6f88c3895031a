"""Reduce run files to the points a comparison reads: cached by content, misses across cores."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.diagnostics import Diagnostic, error, warning
from cmpc.ingest import remote
from cmpc.ingest.cache import Cache, Key, Reduced, sha256_of
from cmpc.ingest.points import RunPoint, cdf_quantiles, matches, run_point

if TYPE_CHECKING:
    import multiprocessing
    from concurrent import futures
    from concurrent.futures import Executor, Future

    from cmpc import metrics as run_metrics
    from cmpc import traces
    from cmpc.ingest import cachewrite, pooling, readahead, resample, sketch, split
    from cmpc.traces import Run, readpass
else:  # only a pool or a cluster needs them: 5-10 ms of imports (logging, sockets, pickle)
    multiprocessing = lazy.module("multiprocessing")
    futures = lazy.module("concurrent.futures")
    # only a miss reads and reduces a file: a build whose every file is cached imports none
    # of the readers, metrics, pooling or resampling (nor numpy); loaded before workers fork
    traces = lazy.module("cmpc.traces")
    readpass = lazy.module("cmpc.traces.readpass")
    run_metrics = lazy.module("cmpc.metrics")
    pooling = lazy.module("cmpc.ingest.pooling")
    resample = lazy.module("cmpc.ingest.resample")
    sketch = lazy.module("cmpc.ingest.sketch")
    cachewrite = lazy.module("cmpc.ingest.cachewrite")  # queue: only a miss writes
    readahead = lazy.module("cmpc.ingest.readahead")  # a thread: only a cold reduction reads
    split = lazy.module("cmpc.ingest.split")  # a fork: only a cold reduction of several files

READERS = ("cmpc.traces", "cmpc.metrics", "cmpc.ingest.pooling", "cmpc.ingest.resample")

Progress = Callable[[int, int], None]
WORKER_BYTES = 64 << 20  # a forked worker's own memory once refcounts copy its pages (measured)
# Below this many bytes of run files one process reduces them sooner than a pool starts:
# forking the workers and sending their results back costs 0.05-0.2 s (benchmarks/README.md)
POOL_MIN_BYTES = 32 << 20
# Below those, one forked child reduces about half the files (ingest/split.py), from this many
# files holding this many bytes: below them its fork and results cost more than it saves
SPLIT_MIN_FILES = 4
SPLIT_MIN_BYTES = 1 << 20


@dataclass(frozen=True)
class Task:
    """One run file to reduce, with everything its reduction depends on."""

    path: str
    rel: str
    format: str | None
    where: tuple[tuple[str, str], ...]
    metric: str
    statistics: tuple[str, ...]
    slos: tuple[tuple[str, float], ...] = ()
    sketch: float | None = None  # DDSketch relative accuracy for percentiles; None: exact
    limits: tuple[tuple[str, str], ...] = ()  # (statistic, metric) the percentile SLOs limit
    resamples: int = 0  # bootstrap replicates per run (0: none)
    seed: int = 0
    interval_method: str = ""
    root: str | None = None  # the spec's folder: files read beside `path` stay inside it

    @property
    def reads_gaps(self) -> bool:
        """Whether the reduction needs chunk gaps: no SLO or other point figure does."""
        return self.metric == "chunk_gap"

    @property
    def method(self) -> str:
        """How percentiles are computed, as the cache key records it."""
        return "linear" if self.sketch is None else sketch.method_name(self.sketch)


@dataclass(frozen=True)
class Done:
    """A reduced file: its content hash, the reduction and the reader's diagnostics."""

    sha256: str
    reduced: Reduced
    diagnostics: tuple[Diagnostic, ...] = ()
    cached: bool = False


def entry_key(task: Task, sha256: str) -> Key:
    """The cache key of a task's file whose content has this SHA-256."""
    return _key(task, sha256)


def _key(task: Task, sha256: str) -> Key:
    return Key(
        sha256,
        task.rel,
        task.format,
        task.where,
        task.metric,
        task.statistics,
        method=task.method,
        slos=task.slos,
        limits=task.limits,
        bootstrap=(task.interval_method, task.resamples, task.seed),
    )


def reduce_file(task: Task, cache: Cache | None = None, held: readpass.Held | None = None) -> Done:
    """Look up, else read and reduce one file (and store the result).

    A file whose hash is not remembered is hashed by the pass that reads it (each byte read
    once); the cache is then looked up with that hash, so an entry made elsewhere still wins.
    `held`: the file's bytes and hash, read ahead (ingest/readahead.py), which that pass then
    reads instead of the file. A URL (remote inputs, opt-in) is fetched once to a temporary
    file: the hash, the cache key and the reduction all come from the bytes that one read
    returned.
    """
    if remote.is_url(task.path):
        return _reduce_url(task, cache)
    path = Path(task.path)
    try:  # a systems JSON beside the file changes the reading: its hash joins the key
        beside: str | None = "".join(
            "+" + (cache.file_sha256(Path(b)) if cache else sha256_of(Path(b)))
            for b in traces.companions(task.path, task.root)
        )
    except OSError:
        beside = None  # load_runs below names the file and the reason
    known = cache.known_sha256(path) if cache and beside is not None else None
    if cache and known:
        hit = cache.get(_key(task, known + (beside or "")))
        if hit is not None:
            return Done(known + (beside or ""), hit, cached=True)
    if not known and cache and beside is not None and _may_hit(cache):
        try:  # an entry may be there (e.g. made by a cluster's workers): hash, then look
            known = cache.file_sha256(path)
        except OSError:
            known = None
        hit = cache.get(_key(task, known + beside)) if known else None
        if known and hit is not None:
            return Done(known + beside, hit, cached=True)
    if known:
        sha = known + (beside or "")
        reduced, problems = _reduce(task, lambda: sha)
    else:
        try:  # the stat before the read: the read ahead took its own, before its read
            before: os.stat_result | None = held.stat if held else path.stat()
        except OSError:
            before = None
        with readpass.hashing(task.path, held) as current:
            # the replicates' seed is the file's hash, known once the reader has closed it
            reduced, problems = _reduce(
                task, lambda: (current.digest or _sha256_or_empty(path)) + (beside or "")
            )
        digest = current.digest or _sha256_or_empty(path)
        if cache and current.digest and before is not None:
            read_at = held.read_at if held and current.held else None
            cache.remember_sha256(path, before, digest, read_at)
        sha = digest + beside if digest and beside is not None else ""
    if cache and sha:
        # a cache empty when reduce_all began holds no entry but those made since, whose
        # reduction under the same key is this one: not looked for
        late = not known and cache.root not in _EMPTY_CACHES
        hit = cache.get(_key(task, sha)) if late else None
        if hit is not None:
            return Done(sha, hit, cached=True)
        if not problems:
            cache.put(_key(task, sha), reduced)
    return Done(sha, reduced, tuple(problems))


_EMPTY_CACHES: set[Path] = set()  # caches that held no entry when reduce_all began here


def _may_hit(cache: Cache) -> bool:
    """Whether a file unknown to the cache may still have an entry there: not when the cache
    held none as this reduction began, so a cold build reads each file once."""
    return cache.root not in _EMPTY_CACHES and cache.holds_entries()


def _sha256_or_empty(path: Path) -> str:
    """SHA-256 of a file no reader opened (an unreadable or undetected file), else ""."""
    try:
        return sha256_of(path)
    except OSError:
        return ""


def _reduce_url(task: Task, cache: Cache | None) -> Done:
    try:
        with remote.fetched(task.path) as (local, sha):
            hit = cache.get(_key(task, sha)) if cache else None
            if hit is not None:
                return Done(sha, hit, cached=True)
            reduced, problems = _reduce(dataclasses.replace(task, path=local), lambda: sha)
    except Exception as exc:  # fsspec's backends raise their own types for a failed read
        reason = getattr(exc, "strerror", None) or f"{type(exc).__name__}: {exc}"
        problem = error("E300", f"cannot read `{task.path}`: {reason}", file=task.path)
        return Done("", Reduced("?", 0, {}), (problem,))
    named = tuple(_renamed(d, local, task.path) for d in problems)
    if cache and not named:
        cache.put(_key(task, sha), reduced)
    return Done(sha, reduced, named)


def _renamed(diagnostic: Diagnostic, local: str, url: str) -> Diagnostic:
    """A reader's diagnostic about the temporary copy, told of the URL instead."""
    return dataclasses.replace(
        diagnostic,
        message=diagnostic.message.replace(local, url),
        file=url if diagnostic.file == local else diagnostic.file,
    )


def _reduce(task: Task, sha256: Callable[[], str] = lambda: "") -> tuple[Reduced, list[Diagnostic]]:
    """Format `?` when nothing could be read; `runs` counts the runs `where` kept.

    `sha256` gives the file's hash (the resampling seed), asked for after the read and only
    when the task resamples.
    """
    loaded, problems = traces.load_runs(
        task.path, format=task.format, gaps=task.reads_gaps, root=task.root
    )
    kept = [r for r in loaded if matches(r.fields, task.where)]
    fmt = loaded[0].format if loaded else "?"
    stated = _stated_fields(r.fields for r in loaded)
    seed = sha256() if task.resamples and kept else ""
    return Reduced(fmt, len(kept), reduce_runs(kept, task, seed), stated), problems


def reduce_runs(
    kept: Sequence[Run], task: Task, sha256: str = ""
) -> dict[str, tuple[RunPoint, ...]]:
    """Each run's point per statistic, with its bootstrap replicates when the task asks."""
    settings = resample.Settings(task.resamples, task.seed)
    percentiles = tuple(s[1:] for s in task.statistics if s.startswith("p"))
    points: dict[str, list[RunPoint]] = {s: [] for s in task.statistics}
    for run in kept:
        sketched, pool = _sketched(run, task) if task.sketch is not None else ({}, None)
        metrics = run_metrics.summarize(
            run,
            percentiles=percentiles,
            slos=dict(task.slos) or None,
            overwrite_input=True,  # the run is dropped after: no copy of its largest column
            described={task.metric, *(m for _, m in task.limits)},  # what the points read
        )
        found = None
        if task.resamples:
            queries = [(task.metric, s) for s in task.statistics]
            queries += [(m, s) for s, m in task.limits]
            found = resample.replicates(run, queries, settings, sha256)
        limits = {f"{s} {m}": metrics.latency_statistic(m, s) for s, m in task.limits}
        if task.sketch is None:
            pool = pooling.exact_part(metrics.samples.get(task.metric), task.metric)
        rates = resample.rows_for(found, list(resample.RATE_ROWS))
        extra = resample.rows_for(found, [f"{m} {s}" for s, m in task.limits])
        quantiles = cdf_quantiles(metrics)  # the same for each statistic's point
        for stat in task.statistics:
            point = run_point(metrics, task.metric, stat, task.rel, quantiles)
            # the pool is the same for every statistic: kept once, on the first one's point
            first = stat == task.statistics[0]
            changes: dict[str, object] = {"limits": limits, "pool": pool if first else None}
            if stat in sketched:
                changes["latency_s"] = sketched[stat]
            if found is not None:
                rows = [found.get(f"{task.metric} {stat}"), *rates, *extra]
                changes["resampled"] = resample.pack(rows, task.resamples)
                changes["resamples"] = task.resamples
            points[stat].append(dataclasses.replace(point, **changes))  # type: ignore[arg-type]
    return {k: tuple(v) for k, v in points.items()}


def _stated_fields(
    runs_fields: Iterable[Mapping[str, object]], most: int = 8
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each field the runs state, with up to `most` of its distinct values (sorted)."""
    values: dict[str, set[str]] = {}
    for fields in runs_fields:
        for key, value in fields.items():
            if value not in (None, "") and not isinstance(value, (dict, list)):
                values.setdefault(str(key), set()).add(str(value))
    return tuple((k, tuple(sorted(v)[:most])) for k, v in sorted(values.items()))


def _sketched(run: Run, task: Task) -> tuple[dict[str, float], str | None]:
    """The task's percentile statistics of its metric from one DDSketch (mean stays exact),
    and that sketch packed for pooling."""
    assert task.sketch is not None
    names = [s for s in task.statistics if s == "median" or s.startswith("p")]
    qs = {s: (50.0 if s == "median" else float(s[1:])) / 100.0 for s in names}
    values = run_metrics.per_request(run).get(task.metric)
    if values is None or not values.size:
        return {}, None
    bins = sketch.sketch_of(values, task.sketch)
    found = {name: sketch.quantile_of(bins, q) for name, q in qs.items()}
    stats = {name: v for name, v in found.items() if v is not None}
    return stats, pooling.sketch_part(bins)


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _local_workers(todo: Sequence[Task]) -> int:
    """The cores, or 1 when the files to reduce are too small for a pool to pay its start."""
    if sum(_size(t.path) for t in todo) < POOL_MIN_BYTES:
        return 1
    return _workers()


def reduce_all(
    tasks: Sequence[Task],
    *,
    cache: Cache | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    executor: Executor | None = None,
) -> list[Done]:
    """One Done per task, in task order; identical tasks are reduced once.

    Misses go to `executor` when given (any `concurrent.futures.Executor`, e.g. a Dask
    client's `get_executor()`), else to a local process pool of `workers` (default: cores,
    or none when the misses' files hold less than POOL_MIN_BYTES: then, by default, one
    forked child reduces about half of them, when a core is free for it; ingest/split.py).
    """
    if cache:  # looked at once, before workers fork: their own entries do not count
        _EMPTY_CACHES.discard(cache.root)
        if not cache.holds_entries():
            _EMPTY_CACHES.add(cache.root)
    unique = list(dict.fromkeys(tasks))
    done: dict[Task, Done] = {}
    todo: list[Task] = []
    for task in unique:
        # an empty cache cannot hit: its files are not looked up (nor their paths resolved) twice
        if cache and cache.root not in _EMPTY_CACHES and not remote.is_url(task.path):
            probe = _probe(task, cache)
            if probe is not None:
                done[task] = probe
                continue
        todo.append(task)
    total = len(unique)
    if progress:
        progress(len(done), total)
    asked = workers
    workers = min(workers or _local_workers(todo), len(todo))
    lost: dict[Task, str] = {}
    if executor is not None and todo:
        _collect(executor, todo, cache, done, progress, total, lost=lost)
    elif workers > 1:
        methods = multiprocessing.get_all_start_methods()
        # fork shares the already imported readers; elsewhere the platform's default
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        for name in ("numpy", *READERS):  # before the fork: not once in every worker
            lazy.load(name)
        traces.load_readers(t.format for t in todo)
        pool = futures.ProcessPoolExecutor(max_workers=workers, mp_context=context)
        try:
            _collect(pool, todo, cache, done, progress, total, slots=workers)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    left = [task for task in todo if task not in done]
    # a default reduction too small for a pool (not one a failed pool left): about half of it
    # in a forked child, when one can be had
    theirs = _child_share(left) if asked is None and executor is None and workers <= 1 else []
    child = None
    if theirs:
        for name in ("numpy", *READERS, "cmpc.ingest.cachewrite", "cmpc.ingest.readahead"):
            lazy.load(name)  # before the fork: not once in each process
        traces.load_readers(t.format for t in left)
        child = split.start(partial(_reduce_here, theirs, cache))
    if child is not None:
        given = set(theirs)
        left = [task for task in left if task not in given]
    try:
        done.update(_reduce_here(left, cache, lost, _counted(progress, len(done), total)))
        if child is not None:
            found = child.result()
            if found is None:  # the child failed or died (e.g. out of memory): reduced here
                found = _reduce_here(theirs, cache, None, _counted(progress, len(done), total))
            done.update(found)
    finally:
        if child is not None:
            child.stop()  # when this process was interrupted or failed; else already reaped
    if progress and child is not None:
        progress(len(done), total)
    return [done[t] for t in tasks]


def _counted(progress: Progress | None, before: int, total: int) -> Callable[[int], None] | None:
    """`progress` told of each file reduced after the `before` already done."""
    if progress is None:
        return None
    return lambda n: progress(before + n, total)


def _reduce_here(
    left: Sequence[Task],
    cache: Cache | None,
    lost: Mapping[Task, str] | None = None,
    progress: Callable[[int], object] | None = None,
) -> dict[Task, Done]:
    """Reduce `left` in this process, in order, the files after the first read ahead."""
    done: dict[Task, Done] = {}
    ahead = _read_ahead(left, cache)
    try:
        with cachewrite.behind(cache) if cache and left else contextlib.nullcontext(cache) as local:
            for n, task in enumerate(left):
                held = ahead.take(n - 1) if ahead is not None and n else None
                done[task] = reduce_file(task, local, held)
                if lost and task in lost:
                    done[task] = _retried(done[task], task, lost[task])
                if progress:
                    progress(n + 1)
    finally:
        if ahead is not None:
            ahead.close()
    return done


def _child_share(left: Sequence[Task]) -> list[Task]:
    """The files a forked child reduces beside this process: about half the bytes, if any."""
    if len(left) < SPLIT_MIN_FILES or any(remote.is_url(t.path) for t in left):
        return []
    sizes = {t: _size(t.path) for t in left}
    if sum(sizes.values()) < SPLIT_MIN_BYTES or not split.possible():
        return []
    mine = held = 0
    theirs = []
    # largest first, each to the lighter share: the two finish within one file of each other
    for task in sorted(left, key=lambda t: -sizes[t]):
        if mine <= held:
            mine += sizes[task]
        else:
            held += sizes[task]
            theirs.append(task)
    return theirs


def _read_ahead(left: Sequence[Task], cache: Cache | None) -> readahead.ReadAhead | None:
    """A thread reading and hashing the files after the first while they are reduced, when
    each is read and hashed anyway: a cold reduction (no cache, or one that held no entry) of
    two or more local files. The first file is the caller's own: the thread starts beside it."""
    cold = cache is None or cache.root in _EMPTY_CACHES
    if not cold or len(left) < 2 or any(remote.is_url(t.path) for t in left):
        return None
    return readahead.ReadAhead([t.path for t in left[1:]])


def _retried(result: Done, task: Task, reason: str) -> Done:
    """A task the executor lost, reduced here: the same result, and a warning that says so."""
    said = warning(
        "W702",
        f"the cluster lost the reduction of `{task.rel}` ({reason}); reduced it here instead",
        file=task.rel,
        help="the results are unchanged; check the workers' memory limit and logs",
    )
    return dataclasses.replace(result, diagnostics=(said, *result.diagnostics))


def _probe(task: Task, cache: Cache) -> Done | None:
    """A cache hit without reading the file (its hash remembered by stat), else None.

    Unknown files are left to the workers, which hash them in parallel.
    """
    sha = cache.known_sha256(Path(task.path))
    if sha is None:
        return None
    hit = cache.get(_key(task, sha))
    return None if hit is None else Done(sha, hit, cached=True)


def _collect(
    executor: Executor,
    todo: Sequence[Task],
    cache: Cache | None,
    done: dict[Task, Done],
    progress: Progress | None,
    total: int,
    slots: int | None = None,
    lost: dict[Task, str] | None = None,
) -> None:
    """Largest files first, so one big file does not finish alone at the end.

    With `slots` local workers, files run side by side only while their sizes plus each extra
    worker's own footprint stay within the largest file (or `slots` median files): peak memory
    stays that of a serial read instead of growing with the core count, since in a sweep the
    last, highest-concurrency runs often hold most of the tokens.

    With `lost`, a future that fails (a cluster worker killed past the scheduler's retries)
    is recorded there with the reason, and left for the caller to reduce in-process.
    """
    waiting = sorted(todo, key=lambda t: -_size(t.path))
    sizes = {t: _held(t) for t in todo}
    budget = float("inf")
    if slots is not None:
        median = sorted(sizes.values())[len(sizes) // 2]
        budget = max(max(sizes.values()), slots * (median + WORKER_BYTES))
    slots = slots or len(todo)
    running: dict[Future[Done], Task] = {}
    used = 0
    try:
        while waiting or running:
            for task in list(waiting):
                if len(running) >= slots:
                    break
                if not running or used + sizes[task] + len(running) * WORKER_BYTES <= budget:
                    running[executor.submit(reduce_file, task, cache)] = task
                    used += sizes[task]
                    waiting.remove(task)
            finished, _ = futures.wait(running, return_when=futures.FIRST_COMPLETED)
            for future in finished:
                task = running.pop(future)
                used -= sizes[task]
                if lost is not None and (failure := _failure(future)) is not None:
                    lost[task] = failure
                    continue
                done[task] = future.result()
                if progress:
                    progress(len(done), total)
    except futures.BrokenExecutor:
        pass  # a worker died (e.g. out of memory): the caller reduces the rest in-process


def _failure(future: Future[Done]) -> str | None:
    """Why a finished future has no result (its exception, named), or None."""
    try:
        exc = future.exception()
    except futures.CancelledError:
        return "cancelled"
    return None if exc is None else f"{type(exc).__name__}: {exc}".rstrip(": ")


def _held(task: Task) -> int:
    """Bytes a worker holds for the task: about the file's size, or nothing much when the
    reader leaves the chunk gaps (the bulk of a trace) unread."""
    if not task.reads_gaps and task.format is not None and traces.skips_gaps(task.format):
        return 0
    return _size(task.path)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
