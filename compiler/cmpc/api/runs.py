"""`cmpc.load_runs`: benchmark output files to per-run statistics, as objects or a table."""

from __future__ import annotations

import glob
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from cmpc.api.errors import CmpcError
from cmpc.build import tables
from cmpc.diagnostics import Diagnostic, error, has_errors
from cmpc.language.vocabulary import PERCENTILE_METHODS
from cmpc.metrics import RunMetrics, summarize
from cmpc.traces import load_runs as read_runs

_MAGIC = ("*", "?", "[")


@dataclass(frozen=True)
class Runs:
    """Every run the files held, summarized (`RunMetrics`, as `cmpc stats --json` reports)."""

    runs: tuple[RunMetrics, ...]
    diagnostics: tuple[Diagnostic, ...] = ()  # warnings (errors raise CmpcError)
    files: tuple[str, ...] = field(default=(), repr=False)

    def __iter__(self) -> Iterator[RunMetrics]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def __getitem__(self, index: int) -> RunMetrics:
        return self.runs[index]

    def records(self) -> list[dict[str, object]]:
        """One flat dict per run: `cmpc stats --json`'s keys joined by `_` (`tpot_ms_p90`)."""
        return [_flat(run.to_json()) for run in self.runs]

    def to_arrow(self) -> Any:
        """A pyarrow.Table, one row per run (needs the `dataframe` extra)."""
        return tables.to_arrow(self.records())

    def to_pandas(self) -> Any:
        """A pandas.DataFrame, one row per run (needs the `dataframe` extra)."""
        return tables.to_pandas(self.records())


def load_runs(
    path: str | PathLike[str],
    format: str | None = None,
    *,
    percentiles: Sequence[str] = ("50", "90", "99"),
    method: str = "linear",
    slos: Mapping[str, float] | None = None,
) -> Runs:
    """Read one file, or every file a glob matches, and summarize each run in it.

    `format` is detected when None; `slos` maps ttft, tpot or e2el to a limit in seconds (each
    run then has goodput). Raises CmpcError when a file cannot be read as a benchmark output.
    """
    if method not in PERCENTILE_METHODS:
        raise CmpcError(
            [error("E314", f"unknown percentile method `{method}`", help="use `linear`")]
        )
    text = str(path)
    files = sorted(glob.glob(text, recursive=True)) if any(c in text for c in _MAGIC) else [text]
    files = [f for f in files if not Path(f).is_dir()] or [text]
    found: list[RunMetrics] = []
    diagnostics: list[Diagnostic] = []
    for name in files:
        runs, problems = read_runs(name, format=format)
        diagnostics += problems
        for run in runs:
            found.append(summarize(run, percentiles=tuple(percentiles), method=method, slos=slos))
    if has_errors(diagnostics):
        raise CmpcError(diagnostics)
    return Runs(tuple(found), tuple(diagnostics), tuple(files))


def _flat(document: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in document.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            # `metrics` holds one object per latency: `tpot_ms_p90`, not `metrics_tpot_ms_p90`
            out |= _flat(value, "" if name == "metrics" else f"{name}_")
        elif isinstance(value, list | tuple):
            out[name] = "; ".join(str(v) for v in value)
        elif hasattr(value, "item"):  # numpy scalars
            out[name] = value.item()
        elif isinstance(value, float) and not math.isfinite(value):
            out[name] = None
        else:
            out[name] = value
    return out
