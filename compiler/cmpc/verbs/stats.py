"""The `cmpc stats` verb: canonical metrics of benchmark output files, as a table or JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

import numpy as np

from cmpc.diagnostics import Diagnostic, error, warning
from cmpc.language.vocabulary import PERCENTILE_METHODS
from cmpc.metrics import RunMetrics, summarize
from cmpc.outcome import Outcome
from cmpc.safe_text import json_text, terminal_text
from cmpc.traces import load_runs

METHODS = PERCENTILE_METHODS
_METRICS = ("ttft", "tpot", "chunk_gap", "e2el", "e2e_per_token")


def run_stats(
    files: Sequence[str],
    *,
    trace_format: str | None = None,
    percentiles: Sequence[str] = ("50", "90", "99"),
    method: str = "linear",
    as_json: bool = False,
    slos: Mapping[str, float] | None = None,
) -> Outcome:
    """Read each file, summarize each run, and render a table or the JSON document.

    `slos` maps `ttft`, `tpot` or `e2el` to a limit in seconds; each run then reports goodput
    (requests/s meeting every limit) and SLO attainment.
    """
    if method not in METHODS:
        diag = error(
            "E314",
            f"unknown percentile method `{method}`",
            notes=("numpy methods: " + ", ".join(f"`{m}`" for m in METHODS),),
            help="use `--percentile-method linear` (the default, numpy's and vLLM's)",
        )
        return Outcome(diagnostics=(diag,), checked=len(files))
    results: list[RunMetrics] = []
    diagnostics: list[Diagnostic] = []
    for path in files:
        runs, diags = load_runs(path, format=trace_format)
        diagnostics.extend(diags)
        for run in runs:
            metrics = summarize(
                run,
                percentiles=tuple(percentiles),
                method=method,
                slos=slos or None,
                overwrite_input=True,
            )
            results.append(metrics)
            if metrics.e2el_reconstructed:
                diagnostics.append(
                    warning(
                        "W400",
                        "e2el and tpot are reconstructed as ttft + sum of chunk gaps",
                        file=path,
                        record=run.record or None,
                        notes=(
                            "the file stores no per-request latencies (vLLM before `latencies`)",
                        ),
                        help="re-run with a vLLM that saves `latencies` for exact tpot and e2el",
                    )
                )
    if as_json:
        docs = [_clean(m.to_json()) for m in results]
        body = docs[0] if len(docs) == 1 and len(files) == 1 else docs
        document = json.dumps(body, indent=2, ensure_ascii=False, allow_nan=False)
        text = json_text(document) + "\n" if docs else ""
    else:
        text = "\n".join(render_table(m) for m in results)
    return Outcome(stdout=text, diagnostics=tuple(diagnostics), checked=len(files))


def _clean(value):
    """JSON-safe: numpy scalars to Python, non-finite floats to null."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _num(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "-"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value)}"
    return f"{value:.{digits}f}"


def render_table(m: RunMetrics) -> str:
    """A readable block for one run: counts, tokens, throughputs, one row per latency metric."""
    title = terminal_text(f"{m.path}" + (f" [{m.record}]" if m.record else ""))
    kind = "aggregate-only, published values" if m.aggregate_only else "per-request"
    lines = [f"{title}  (format {terminal_text(m.format)}, {kind})"]
    lines.append(
        f"  requests    {_num(m.total)} total, {_num(m.succeeded)} succeeded, "
        f"{_num(m.failed)} failed; duration {_num(m.duration_s)} s"
    )
    t = m.tokens
    lines.append(
        f"  tokens      input {_num(t.input if t else None)}, cached input "
        f"{_num(t.cached_input if t else None)}, output {_num(t.output if t else None)}"
    )
    tp = m.throughputs
    lines.append(
        f"  throughput  {_num(tp.get('requests'))} req/s; tokens/s input {_num(tp.get('input'))}, "
        f"output {_num(tp.get('output'))}, total {_num(tp.get('total'))}"
    )
    keys = [f"p{k}" for k in m.percentile_keys]
    header = ["metric (ms)", "n", "mean", "std", "min", "max", *keys]
    rows = [header]
    for metric in _METRICS:
        stats = m.stats.get(metric)
        if stats is None:
            continue
        cells = [metric, _num(stats.n)]
        for name in ("mean", "std", "min", "max", *keys):
            value = stats.get(name)
            cells.append(_num(None if value is None else value * 1000.0))
        rows.append(cells)
    if len(rows) > 1:
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        for row in rows:
            cells = [row[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
            ]
            lines.append("  " + "  ".join(cells).rstrip())
    if m.stats.get("tpot") is not None:
        parts = [f"{s} {_num(m.interactivity(s), 2)}" for s in ("mean", *keys)]
        lines.append("  interactivity (tok/s/user, 1/statistic of tpot): " + ", ".join(parts))
    if m.slos is not None:
        limits = ", ".join(f"{k} <= {_num(v * 1000.0)} ms" for k, v in m.slos.items())
        attainment = "-" if m.slo_attainment is None else f"{m.slo_attainment * 100.0:.1f}%"
        lines.append(
            f"  goodput     {_num(m.goodput)} req/s meeting every SLO ({limits}); "
            f"SLO attainment {attainment}"
        )
    lines.append(f"  percentiles: numpy `{m.method}`; std: population")
    return "\n".join(lines) + "\n"
