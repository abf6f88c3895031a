"""The `sweep` verb: runs -> points -> frontier table and reads at targets on its latency axis."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from cmpc.analysis.load_labels import load_label
from cmpc.compute.cost import gpus_from_parallelism
from cmpc.compute.frontier import (
    Method,
    Point,
    Read,
    pareto_frontier,
    read_latency,
    read_target,
)
from cmpc.diagnostics import Diagnostic, error, has_errors, warning
from cmpc.jsontypes import JsonObject
from cmpc.language import units
from cmpc.language import vocabulary as V
from cmpc.metrics import RunMetrics, summarize
from cmpc.outcome import Outcome
from cmpc.safe_text import json_text, terminal_text
from cmpc.traces import load_runs
from cmpc.traces.where import Filter

STATISTIC = re.compile(r"^(mean|median|p\d+(\.\d+)?)$")
# `--at` values: a decimal number and a unit, with or without a space (`500ms`, `1 s`, `20`)
AT_VALUE = re.compile(r"^([+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(\S*)$")
RECIPE_FIELDS = ("tp", "pp", "pcp", "ep", "dcp")
# Fields that name one system and workload; recipes (parallelism, concurrency) may differ.
IDENTITY_FIELDS = (
    "system",  # cmpc's own traces (scripts/make_sample_traces.py) name it so
    "hw",
    "hardware",
    "model",
    "precision",
    "framework",
    "isl",
    "osl",
    "spec_decoding",
    "spec_method",
)


@dataclass(frozen=True, slots=True)
class SweepRun:
    """One run or aggregate row as the sweep sees it: where it came from and its point."""

    file: str
    record: str
    fields: Mapping[str, object]
    interactivity: float | None
    throughput_per_gpu: float | None
    stated_gpus: float | None = None

    @property
    def concurrency(self) -> float | None:
        value = self.fields.get("conc", self.fields.get("max_concurrency"))
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def recipe(self) -> str:
        parts = []
        for key in RECIPE_FIELDS:
            # InferenceX names some sizes `dcp_size`, and API rows name the decode pool's only.
            names = (key, f"{key}_size", f"decode_{key}", *SIZE_NAMES.get(key, ()))
            value = next(
                (self.fields[name] for name in names if self.fields.get(name) is not None), None
            )
            value = _count(value)
            if value is None:
                continue
            if key == "tp" or value > 1:
                parts.append(f"{key}{value:g}")
        dp_attention = self.fields.get("dp_attention", self.fields.get("decode_dp_attention"))
        if str(dp_attention).casefold() == "true":
            parts.append("dpa")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Target:
    """One `--at` value as given, and where it is read: an interactivity (tok/s/user, along
    interactivity) or a latency (ms, along the latency, lower is better)."""

    text: str
    interactivity: float | None = None
    latency_ms: float | None = None


@dataclass(frozen=True, slots=True)
class SweepResult:
    """Points, their frontier and the reads at each target."""

    points: tuple[Point, ...]
    frontier: tuple[Point, ...]
    reads: tuple[Read, ...]
    targets: tuple[Target, ...] = ()
    metric: str = "tpot"


def parse_targets(
    values: Iterable[float | str], metric: str = "tpot"
) -> tuple[list[Target], list[Diagnostic]]:
    """`--at` values on `metric`'s axis: `50` or `20tok/s/user` (a per-token metric only),
    durations `500ms`, `1 s` (every metric); a value may list several, `500ms,1s`."""
    targets, problems = [], []
    per_token = metric in V.PER_TOKEN_METRICS
    for value in values:
        parts = [value] if isinstance(value, int | float) else str(value).split(",")
        for part in parts:
            target, problem = _target(part, metric, per_token)
            if problem is not None:
                problems.append(problem)
            elif target is not None:
                targets.append(target)
    return targets, problems


def _target(
    value: float | str, metric: str, per_token: bool
) -> tuple[Target | None, Diagnostic | None]:
    example = "`--at 50` or `--at 20tok/s/user`" if per_token else "`--at 500ms` or `--at 1s`"
    if isinstance(value, int | float):  # the Python API's numbers: tok/s/user, as before
        literal, unit, text = repr(float(value)), "tok/s/user", f"{value:g}"
        if not math.isfinite(value):
            return None, _bad_at(text, "is not a positive target", example)
    else:
        text = value.strip()
        m = AT_VALUE.match(text)
        if m is None:
            return None, _bad_at(text, "is not a number with a unit", example)
        literal, unit = m.group(1), m.group(2) or ("tok/s/user" if per_token else "")
        if not unit:
            return None, _bad_at(
                text, f"has no unit: a {metric} axis takes a duration (ms, s)", example
            )
    number = units.convert(literal)
    if not (math.isfinite(number) and number > 0):
        return None, _bad_at(text, "is not a positive target", example)
    found = units.lookup(unit)
    if found is None:
        return None, _bad_at(text, f"has an unknown unit `{unit}`", example)
    dimension, factor = found
    if dimension == units.INTERACTIVITY:
        if not per_token:
            return None, _bad_at(
                text,
                f"is an interactivity, and a {metric} axis is not per token "
                "(tok/s/user is 1 / a per-token latency)",
                example,
            )
        return Target(text, interactivity=number), None
    if dimension == units.TIME:  # one rounding, as the spec's `target 1.001 s` is 1001 ms
        return Target(text, latency_ms=units.convert(literal, factor * 1000)), None
    return None, _bad_at(text, f"is {dimension.words}: not a latency or an interactivity", example)


def _bad_at(text: str, why: str, example: str) -> Diagnostic:
    return error("E411", f"`--at {text}` {why}", help=f"give a target on the axis, e.g. {example}")


def parse_filters(where: Iterable[str]) -> tuple[list[Filter], list[Diagnostic]]:
    """`KEY=VALUE` strings as filters, or E411 for each that is malformed."""
    filters, problems = [], []
    for text in where:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            problems.append(
                error(
                    "E411",
                    f"`--where {text}` is not of the form KEY=VALUE",
                    help="write e.g. `--where tp=8`",
                )
            )
            continue
        filters.append(Filter(key.strip(), value.strip()))
    return filters, problems


def sweep(
    points: Iterable[Point],
    targets: Sequence[float | Target],
    method: Method | str,
    metric: str = "tpot",
) -> SweepResult:
    """Frontier of the pooled points, read at each target with the method: along
    interactivity for a tok/s/user target, along the latency for a duration."""
    points = tuple(sorted(points, key=lambda p: (p.interactivity, -p.throughput)))
    frontier = pareto_frontier(points)
    given = tuple(
        t if isinstance(t, Target) else Target(f"{t:g}", interactivity=t) for t in targets
    )
    reads = tuple(
        read_latency(frontier, t.latency_ms, method)
        if t.latency_ms is not None
        else read_target(frontier, t.interactivity or 0.0, method)
        for t in given
    )
    return SweepResult(points, frontier, reads, given, metric)


# ---------------------------------------------------------------------------------------------
# Reading runs


# A run's parallel sizes under the names files give them: cmpc's and InferenceX's, `*_size`, and
# vLLM's `--metadata` names (`tensor_parallel_size=8`, written as a string).
SIZE_NAMES = {
    "tp": ("tp", "tp_size", "tensor_parallel_size"),
    "pp": ("pp", "pp_size", "pipeline_parallel_size"),
    "pcp": ("pcp", "pcp_size"),
}


def _count(value: object) -> int | float | None:
    """A positive GPU count or size: a number, or a string of digits (vLLM's metadata)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) and value > 0 else None


def _stated_gpus(metrics: RunMetrics) -> float | None:
    """GPUs behind a run as its file states them: a count, else tp·pp·pcp from its fields."""
    if metrics.num_gpus:
        return metrics.num_gpus
    if (count := _count(metrics.fields.get("num_gpus"))) is not None:
        return count
    sizes = {}
    for key, names in SIZE_NAMES.items():
        given = [metrics.fields[name] for name in names if metrics.fields.get(name) is not None]
        size = _count(given[0]) if given else 1
        if size is None or (key == "tp" and not given):
            return None  # no tp, or a size that is not a count: the file does not say
        sizes[key] = int(size)
    return gpus_from_parallelism(sizes["tp"], sizes["pp"], sizes["pcp"])


def _throughput_per_gpu(metrics: RunMetrics, gpus: float | None) -> float | None:
    if metrics.tput_per_gpu is not None:
        return metrics.tput_per_gpu
    total = metrics.throughput("total")
    return None if total is None or not gpus else total / gpus


def _sweep_run(
    metrics: RunMetrics, statistic: str, gpus: int | None, metric: str = "tpot"
) -> SweepRun:
    stated = _stated_gpus(metrics)
    latency = metrics.latency_statistic(metric, statistic)
    return SweepRun(
        file=metrics.path,
        record=metrics.record,
        fields=metrics.fields,
        interactivity=1.0 / latency if latency else None,  # 1 / the latency in s
        throughput_per_gpu=_throughput_per_gpu(metrics, stated or gpus),
        stated_gpus=stated if metrics.tput_per_gpu is None else None,
    )


def load_sweep_runs(
    files: Sequence[str],
    trace_format: str | None,
    statistic: str,
    gpus: int | None = None,
    metric: str = "tpot",
) -> tuple[list[SweepRun], list[Diagnostic]]:
    """Every run or aggregate row of the files, with its point at the statistic of `metric`.

    A run's GPU count is the one its file states; `gpus` (`--gpus N`) counts those whose file
    does not. Runs that publish their own per-GPU throughput keep it.
    """
    percentiles = (statistic[1:],) if statistic.startswith("p") else ()
    runs: list[SweepRun] = []
    problems: list[Diagnostic] = []
    for path in files:
        found, diagnostics = load_runs(path, format=trace_format, gaps=metric == "chunk_gap")
        problems.extend(diagnostics)
        runs.extend(
            _sweep_run(summarize(run, percentiles=percentiles), statistic, gpus, metric)
            for run in found
        )
    return runs, problems


# ---------------------------------------------------------------------------------------------
# Rendering


def _point_json(point: Point, per_token: bool = True, *, full: bool = True) -> JsonObject:
    doc: JsonObject = {
        # 1 / the statistic of a per-token latency; a TTFT or e2el axis has none
        "interactivity_tok_s_user": point.interactivity if per_token else None,
        "latency_ms": 1000.0 / point.interactivity,
        "throughput_per_gpu": point.throughput,
        "concurrency": point.concurrency,
        "load": point.load or None,
    }
    if full:
        doc["recipe"] = point.label
    return doc


def _read_json(read: Read, target: Target, per_token: bool) -> JsonObject:
    return {
        "target": target.text,
        "target_tok_s_user": read.target if per_token else None,
        "target_latency_ms": target.latency_ms,
        "throughput_per_gpu": read.value,
        "reachable": read.reachable,
        "bound": read.bound,
        "method": str(read.method),
        "knots": [_point_json(k, per_token, full=False) for k in read.knots],
    }


def render_json(result: SweepResult) -> str:
    """The fixed-key JSON document: points, frontier, reads."""
    per_token = result.metric in V.PER_TOKEN_METRICS
    doc = {
        "points": [_point_json(p, per_token) for p in result.points],
        "frontier": [_point_json(p, per_token) for p in result.frontier],
        "reads": [
            _read_json(r, t, per_token) for r, t in zip(result.reads, result.targets, strict=True)
        ],
    }
    return json_text(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)) + "\n"


def _load(point: Point) -> str:
    """The point's load as a build labels it (`c64`, `4 req/s`, `all at once`); `-` if unstated."""
    return terminal_text(point.load) if point.load else "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for row in [header, *rows]:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _at(point: Point, along_latency: bool) -> str:
    """A point's place on a read's axis: `36.19` (tok/s/user) or `850.2 ms`."""
    if along_latency:
        return f"{1000.0 / point.interactivity:.1f} ms"
    return f"{point.interactivity:.2f}"


def render_table(result: SweepResult, statistic: str, method: Method) -> str:
    """A readable table: every point (frontier marked), then each read with its knots."""
    on_frontier = set(result.frontier)
    metric = result.metric
    per_token = metric in V.PER_TOKEN_METRICS
    name = metric.upper() if metric in ("ttft", "tpot", "e2el") else metric
    axis = (
        f"interactivity = 1 / {statistic} {name} (tok/s/user)"
        if per_token
        else f"latency = {statistic} {name} (ms)"
    )
    tokens = "throughput = total (input + output) tok/s per GPU"
    lines = [f"points: {len(result.points)} runs; {axis}; {tokens}"]
    rows = [
        [
            _load(p),
            terminal_text(p.label or "-"),
            f"{p.interactivity:.2f}" if per_token else f"{1000.0 / p.interactivity:.1f}",
            f"{p.throughput:.1f}",
            "*" if p in on_frontier else "",
        ]
        for p in result.points
    ]
    column = "tok/s/user" if per_token else f"{name} ms"
    lines += _table(["load", "recipe", column, "tok/s/GPU", "frontier"], rows, {2, 3})
    if not result.reads:
        return "\n".join(lines) + "\n"
    lines += ["", f"reads ({method}):"]
    rows = []
    for read, target in zip(result.reads, result.targets, strict=True):
        along = target.latency_ms is not None
        if not read.reachable:
            lo, hi = result.frontier[0], result.frontier[-1]
            if along:
                span = f"frontier spans {_at(hi, True)}-{_at(lo, True)}"
            else:
                span = f"frontier spans {_at(lo, False)}-{_at(hi, False)} tok/s/user"
            rows.append([terminal_text(target.text), "unreachable", span, ""])
            continue
        if read.bound == "lower":
            (at,) = read.knots
            where = f"{_at(at, along)} ({at.throughput:.1f}) at {_load(at)}"
            rows.append([terminal_text(target.text), f">= {read.value:.1f}", where, "lower bound"])
            continue
        lo, hi = read.knots
        rows.append(
            [
                terminal_text(target.text),
                f"{read.value:.1f}",
                f"{_at(lo, along)} ({lo.throughput:.1f}) at {_load(lo)}",
                f"{_at(hi, along)} ({hi.throughput:.1f}) at {_load(hi)}",
            ]
        )
    first = "tok/s/user" if all(t.latency_ms is None for t in result.targets) else "target"
    lines += _table([first, "tok/s/GPU", "lower knot", "upper knot"], rows, {0, 1})
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The verb


def _finite(value: float | None) -> TypeGuard[float]:
    return value is not None and math.isfinite(value)


def _unusable(run: SweepRun, statistic: str) -> Diagnostic:
    if not _finite(run.interactivity):
        return warning(
            "W412",
            f"run gives no sweep point: no interactivity at statistic `{statistic}`",
            file=run.file,
            record=run.record or None,
            help="choose a statistic the file publishes, or use per-request traces",
        )
    return warning(
        "W412",
        "run gives no sweep point: no throughput per GPU",
        file=run.file,
        record=run.record or None,
        notes=(
            "the run does not say how many GPUs served it (no `num_gpus`, `tp` or "
            "`tensor_parallel_size`)",
        ),
        help="give the count with `--gpus N`, or record it in the file "
        "(`vllm bench serve --metadata tensor_parallel_size=8`)",
    )


def _gpus_differ(run: SweepRun, gpus: int) -> Diagnostic:
    return warning(
        "W414",
        f"the file counts {run.stated_gpus:g} GPUs for this run, `--gpus` {gpus}; "
        "the file's count is used",
        file=run.file,
        record=run.record or None,
        help="correct the one that is wrong: `--gpus` only counts runs whose file is silent",
    )


def _mixed(runs: Sequence[SweepRun], where: str) -> Diagnostic | None:
    differing = []
    for key in IDENTITY_FIELDS:
        values = sorted({str(run.fields[key]) for run in runs if key in run.fields})
        if len(values) > 1:
            differing.append(f"`{key}`: {', '.join(values)}")
    if not differing:
        return None
    return warning(
        "W413",
        "the sweep pools runs of different systems or workloads into one frontier",
        file=where,
        notes=tuple(differing),
        help="keep one system and workload, e.g. `--where hw=b200 --where isl=8192`",
    )


def _no_points(runs: Sequence[SweepRun], filters: Sequence[Filter], where: str) -> Diagnostic:
    notes = []
    known = sorted({k for run in runs for k in run.fields})
    for f in filters:
        if runs and f.key not in known:
            notes.append(f"no run has a field `{f.key}`")
    if filters and runs:
        notes.append(f"{len(runs)} runs read before filtering")
    return error(
        "E412",
        "no run gives a point of the sweep",
        file=where,
        notes=tuple(notes),
        help="check the files and the `--where` filters" if filters else None,
    )


def run_sweep(
    files: Sequence[str],
    *,
    trace_format: str | None = None,
    where: Iterable[str] = (),
    statistic: str = "median",
    at: Sequence[float | str] = (),
    method: str = "steffen",
    as_json: bool = False,
    gpus: int | None = None,
    metric: str = "tpot",
) -> Outcome:
    """Points, Pareto frontier and reads at each `--at` target for run files or rows: the
    frontier of throughput against `metric`'s statistic (interactivity for a per-token one)."""
    filters, problems = parse_filters(where)
    if gpus is not None and not gpus > 0:
        problems.append(
            error(
                "E411",
                f"`--gpus {gpus}` is not a positive GPU count",
                help="give the GPUs that served each run, e.g. `--gpus 8`",
            )
        )
    statistic = statistic.strip().lower()
    if statistic == "p50":
        statistic = "median"
    if not STATISTIC.match(statistic):
        problems.append(
            error(
                "E411",
                f"`--statistic {statistic}` is not a statistic",
                help="use median, mean or pNN (e.g. p90)",
            )
        )
    if metric not in V.METRICS:
        problems.append(
            error(
                "E411",
                f"`--metric {metric}` is not a latency metric",
                help=f"use one of {', '.join(V.METRICS)}",
            )
        )
        targets: list[Target] = []
    else:
        targets, wrong = parse_targets(at, metric)
        problems.extend(wrong)
    if problems:
        return Outcome(diagnostics=tuple(problems), exit_code=2)
    runs, diagnostics = load_sweep_runs(files, trace_format, statistic, gpus, metric)
    kept = [run for run in runs if all(f.matches(run.fields) for f in filters)]
    where_text = ", ".join(files)
    points = []
    for run in kept:
        if gpus and run.stated_gpus and not math.isclose(run.stated_gpus, gpus):
            diagnostics.append(_gpus_differ(run, gpus))
        if not _finite(run.interactivity) or not _finite(run.throughput_per_gpu):
            diagnostics.append(_unusable(run, statistic))
            continue
        points.append(
            Point(
                run.interactivity,
                run.throughput_per_gpu,
                run.concurrency,
                run.recipe,
                load=load_label(run.fields),  # as a build's points[].load names it
            )
        )
    if not points:
        if not has_errors(diagnostics):
            diagnostics.append(_no_points(runs, filters, where_text))
        return Outcome(diagnostics=tuple(diagnostics), checked=len(files))
    mixed = _mixed(kept, where_text)
    if mixed is not None:
        diagnostics.append(mixed)
    result = sweep(points, targets, Method(method), metric)
    for read, target in zip(result.reads, result.targets, strict=True):
        if not read.reachable:
            lo, hi = result.frontier[0], result.frontier[-1]
            if target.latency_ms is not None:
                span = f"{_at(hi, True)}-{_at(lo, True)}"
                what = f"target {terminal_text(target.text)} ({metric})"
            else:
                span = f"{lo.interactivity:.2f}-{hi.interactivity:.2f} tok/s/user"
                what = f"target {read.target:g} tok/s/user"
            diagnostics.append(
                warning(
                    "W411",
                    f"{what} is outside the frontier ({span}); not extrapolated",
                    file=where_text,
                )
            )
    text = render_json(result) if as_json else render_table(result, statistic, Method(method))
    return Outcome(stdout=text, diagnostics=tuple(diagnostics), checked=len(files))
