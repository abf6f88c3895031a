"""The `sweep` verb: runs -> points -> frontier table and reads at target interactivities."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from cmpc.compute.cost import gpus_from_parallelism
from cmpc.compute.frontier import Method, Point, Read, pareto_frontier, read_all
from cmpc.diagnostics import Diagnostic, error, has_errors, warning
from cmpc.jsontypes import JsonObject
from cmpc.metrics import RunMetrics, summarize
from cmpc.outcome import Outcome
from cmpc.safe_text import json_text, terminal_text
from cmpc.traces import load_runs
from cmpc.traces.where import Filter

STATISTIC = re.compile(r"^(mean|median|p\d+(\.\d+)?)$")
RECIPE_FIELDS = ("tp", "pp", "pcp", "ep", "dcp")
# Fields that name one system and workload; recipes (parallelism, concurrency) may differ.
IDENTITY_FIELDS = (
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

    @property
    def concurrency(self) -> float | None:
        value = self.fields.get("conc", self.fields.get("max_concurrency"))
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    @property
    def recipe(self) -> str:
        parts = []
        for key in RECIPE_FIELDS:
            # InferenceX names some sizes `dcp_size`, and API rows name the decode pool's only.
            value = next(
                (
                    self.fields[name]
                    for name in (key, f"{key}_size", f"decode_{key}")
                    if self.fields.get(name) is not None
                ),
                None,
            )
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if key == "tp" or value > 1:
                parts.append(f"{key}{value:g}")
        dp_attention = self.fields.get("dp_attention", self.fields.get("decode_dp_attention"))
        if str(dp_attention).casefold() == "true":
            parts.append("dpa")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class SweepResult:
    """Points, their frontier and the reads at each target."""

    points: tuple[Point, ...]
    frontier: tuple[Point, ...]
    reads: tuple[Read, ...]


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


def sweep(points: Iterable[Point], targets: Sequence[float], method: Method | str) -> SweepResult:
    """Frontier of the pooled points, read at each target with the method."""
    points = tuple(sorted(points, key=lambda p: (p.interactivity, -p.throughput)))
    frontier = pareto_frontier(points)
    return SweepResult(points, frontier, read_all(frontier, targets, method))


# ---------------------------------------------------------------------------------------------
# Reading runs


def _gpus(metrics: RunMetrics) -> float | None:
    """GPUs behind a run: as the file states it, else tp·pp·pcp from the run's fields."""
    if metrics.num_gpus:
        return metrics.num_gpus
    sizes = {}
    for key in ("tp", "pp", "pcp"):
        value = metrics.fields.get(key, metrics.fields.get(f"{key}_size"))
        if value is not None and not isinstance(value, int | float):
            return None
        sizes[key] = int(value) if value else 1
    if metrics.fields.get("tp") is None:
        return None
    return gpus_from_parallelism(sizes["tp"], sizes["pp"], sizes["pcp"])


def _throughput_per_gpu(metrics: RunMetrics) -> float | None:
    if metrics.tput_per_gpu is not None:
        return metrics.tput_per_gpu
    total, gpus = metrics.throughput("total"), _gpus(metrics)
    return None if total is None or not gpus else total / gpus


def _sweep_run(metrics: RunMetrics, statistic: str) -> SweepRun:
    return SweepRun(
        file=metrics.path,
        record=metrics.record,
        fields=metrics.fields,
        interactivity=metrics.interactivity(statistic),
        throughput_per_gpu=_throughput_per_gpu(metrics),
    )


def load_sweep_runs(
    files: Sequence[str], trace_format: str | None, statistic: str
) -> tuple[list[SweepRun], list[Diagnostic]]:
    """Every run or aggregate row of the files, with its point at the statistic."""
    percentiles = (statistic[1:],) if statistic.startswith("p") else ()
    runs: list[SweepRun] = []
    problems: list[Diagnostic] = []
    for path in files:
        found, diagnostics = load_runs(path, format=trace_format, gaps=False)  # reads tpot
        problems.extend(diagnostics)
        runs.extend(_sweep_run(summarize(run, percentiles=percentiles), statistic) for run in found)
    return runs, problems


# ---------------------------------------------------------------------------------------------
# Rendering


def _point_json(point: Point, *, full: bool = True) -> JsonObject:
    doc: JsonObject = {
        "interactivity_tok_s_user": point.interactivity,
        "throughput_per_gpu": point.throughput,
        "concurrency": point.concurrency,
    }
    if full:
        doc["recipe"] = point.label
    return doc


def _read_json(read: Read) -> JsonObject:
    return {
        "target_tok_s_user": read.target,
        "throughput_per_gpu": read.value,
        "reachable": read.reachable,
        "method": str(read.method),
        "knots": [_point_json(k, full=False) for k in read.knots],
    }


def render_json(result: SweepResult) -> str:
    """The fixed-key JSON document: points, frontier, reads."""
    doc = {
        "points": [_point_json(p) for p in result.points],
        "frontier": [_point_json(p) for p in result.frontier],
        "reads": [_read_json(r) for r in result.reads],
    }
    return json_text(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)) + "\n"


def _conc(point: Point) -> str:
    return "-" if point.concurrency is None else f"{point.concurrency:g}"


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


def render_table(result: SweepResult, statistic: str, method: Method) -> str:
    """A readable table: every point (frontier marked), then each read with its knots."""
    on_frontier = set(result.frontier)
    lines = [
        f"points: {len(result.points)} runs; interactivity = 1 / {statistic} TPOT (tok/s/user);"
        " throughput = total (input + output) tok/s per GPU"
    ]
    rows = [
        [
            _conc(p),
            terminal_text(p.label or "-"),
            f"{p.interactivity:.2f}",
            f"{p.throughput:.1f}",
            "*" if p in on_frontier else "",
        ]
        for p in result.points
    ]
    lines += _table(["conc", "recipe", "tok/s/user", "tok/s/GPU", "frontier"], rows, {0, 2, 3})
    if not result.reads:
        return "\n".join(lines) + "\n"
    lines += ["", f"reads ({method}):"]
    rows = []
    for read in result.reads:
        if not read.reachable:
            lo, hi = result.frontier[0], result.frontier[-1]
            span = f"frontier spans {lo.interactivity:.2f}-{hi.interactivity:.2f} tok/s/user"
            rows.append([f"{read.target:g}", "unreachable", span, ""])
            continue
        lo, hi = read.knots
        rows.append(
            [
                f"{read.target:g}",
                f"{read.value:.1f}",
                f"{lo.interactivity:.2f} ({lo.throughput:.1f}) conc {_conc(lo)}",
                f"{hi.interactivity:.2f} ({hi.throughput:.1f}) conc {_conc(hi)}",
            ]
        )
    lines += _table(["tok/s/user", "tok/s/GPU", "lower knot", "upper knot"], rows, {0, 1})
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
        notes=("the run does not say how many GPUs served it (no `num_gpus` or `tp`)",),
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
    at: Sequence[float] = (),
    method: str = "steffen",
    as_json: bool = False,
) -> Outcome:
    """Points, Pareto frontier and reads at each `--at` interactivity for run files or rows."""
    filters, problems = parse_filters(where)
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
    problems.extend(
        error(
            "E411",
            f"`--at {target:g}` is not a positive interactivity",
            help="give a target in tok/s/user, e.g. `--at 50`",
        )
        for target in at
        if not (math.isfinite(target) and target > 0)
    )
    if problems:
        return Outcome(diagnostics=tuple(problems), exit_code=2)
    runs, diagnostics = load_sweep_runs(files, trace_format, statistic)
    kept = [run for run in runs if all(f.matches(run.fields) for f in filters)]
    where_text = ", ".join(files)
    points = []
    for run in kept:
        if not _finite(run.interactivity) or not _finite(run.throughput_per_gpu):
            diagnostics.append(_unusable(run, statistic))
            continue
        points.append(Point(run.interactivity, run.throughput_per_gpu, run.concurrency, run.recipe))
    if not points:
        if not has_errors(diagnostics):
            diagnostics.append(_no_points(runs, filters, where_text))
        return Outcome(diagnostics=tuple(diagnostics), checked=len(files))
    mixed = _mixed(kept, where_text)
    if mixed is not None:
        diagnostics.append(mixed)
    result = sweep(points, at, Method(method))
    for read in result.reads:
        if not read.reachable:
            lo, hi = result.frontier[0].interactivity, result.frontier[-1].interactivity
            diagnostics.append(
                warning(
                    "W411",
                    f"target {read.target:g} tok/s/user is outside the frontier "
                    f"({lo:.2f}-{hi:.2f} tok/s/user); not extrapolated",
                    file=where_text,
                )
            )
    text = render_json(result) if as_json else render_table(result, statistic, Method(method))
    return Outcome(stdout=text, diagnostics=tuple(diagnostics), checked=len(files))
