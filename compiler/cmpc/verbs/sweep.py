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


def _sweep_run(metrics: RunMetrics, statistic: str, gpus: int | None) -> SweepRun:
    stated = _stated_gpus(metrics)
    return SweepRun(
        file=metrics.path,
        record=metrics.record,
        fields=metrics.fields,
        interactivity=metrics.interactivity(statistic),
        throughput_per_gpu=_throughput_per_gpu(metrics, stated or gpus),
        stated_gpus=stated if metrics.tput_per_gpu is None else None,
    )


def load_sweep_runs(
    files: Sequence[str], trace_format: str | None, statistic: str, gpus: int | None = None
) -> tuple[list[SweepRun], list[Diagnostic]]:
    """Every run or aggregate row of the files, with its point at the statistic.

    A run's GPU count is the one its file states; `gpus` (`--gpus N`) counts those whose file
    does not. Runs that publish their own per-GPU throughput keep it.
    """
    percentiles = (statistic[1:],) if statistic.startswith("p") else ()
    runs: list[SweepRun] = []
    problems: list[Diagnostic] = []
    for path in files:
        found, diagnostics = load_runs(path, format=trace_format, gaps=False)  # reads tpot
        problems.extend(diagnostics)
        runs.extend(
            _sweep_run(summarize(run, percentiles=percentiles), statistic, gpus) for run in found
        )
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
    at: Sequence[float] = (),
    method: str = "steffen",
    as_json: bool = False,
    gpus: int | None = None,
) -> Outcome:
    """Points, Pareto frontier and reads at each `--at` interactivity for run files or rows."""
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
    runs, diagnostics = load_sweep_runs(files, trace_format, statistic, gpus)
    kept = [run for run in runs if all(f.matches(run.fields) for f in filters)]
    where_text = ", ".join(files)
    points = []
    for run in kept:
        if gpus and run.stated_gpus and not math.isclose(run.stated_gpus, gpus):
            diagnostics.append(_gpus_differ(run, gpus))
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
