"""A build's runs and figures as typed columns: for Arrow, pandas and Parquet (optional extras)."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cmpc.build.model import Built
from cmpc.ingest.requests import COLUMNS, request_columns, spec_path
from cmpc.jsontypes import JsonObject
from cmpc.report import figure_rows

Row = dict[str, object]
Columns = dict[str, list[object]]
EXTRA_HINT = "pip install 'cmpc[dataframe]'"  # pandas and pyarrow


class MissingExtra(ImportError):
    """An optional library a table conversion needs is not installed."""


def run_rows(built: Built) -> list[Row]:
    """One row per run: system, file, configuration fields, each statistic, the plotted point.

    `interactivity_tok_s_user` and `throughput_per_gpu` are the run's point as the report plots
    it (null when the run is not a point: no latency or no GPU count).
    """
    results: Any = built.results or {}
    conditions = results.get("conditions") or {}
    statistic = str(((conditions.get("latency") or {}).get("statistic")) or "median")
    metric = str((conditions.get("latency") or {}).get("metric") or "")
    inputs = {(i.system, i.path): i for i in built.inputs}
    rows: list[Row] = []
    for name, data in built.data.items():
        system = (results.get("systems") or {}).get(name) or {}
        plotted = {p.get("label"): p for p in system.get("points") or ()}
        spec_points = data.runs.get(statistic, ())
        for position, point in enumerate(spec_points):
            found = inputs.get((name, point.path))
            shown = plotted.get(point.label) or {}
            row: Row = {
                "system": name,
                "path": point.path,
                "run": point.index,
                "label": point.label,
                "format": found.format if found else None,
                "sha256": found.sha256 if found else None,
                "concurrency": point.concurrency,
                "gpus": point.gpus,
                "metric": metric,
                "statistic": statistic,
                "interactivity_tok_s_user": shown.get("interactivity_tok_s_user"),
                "throughput_per_gpu": shown.get("throughput_per_gpu"),
                "input_tok_s": point.input_tok_s,
                "output_tok_s": point.output_tok_s,
                "cached_tok_s": point.cached_tok_s,
                "goodput_req_s": point.goodput_req_s,
                "slo_attainment": point.slo_attainment,
            }
            for stat, points in sorted(data.runs.items()):
                if position < len(points):
                    row[f"{metric}_{stat}_s"] = points[position].latency_s
            for key, value in sorted(point.fields.items()):
                row[f"field_{key}"] = value
            rows.append(row)
    return rows


def result_figure_rows(built: Built) -> list[Row]:
    """The rows of figures.csv, typed: `value` a number (null if it is not), `value_text` as
    figures.csv writes it."""
    if built.results is None:
        return []
    rows = []
    for row in figure_rows(_document(built)):
        value = row.get("value")
        number = value if _numeric(value) else None
        rows.append(
            {
                "id": row.get("id"),
                "quantity": row.get("quantity"),
                "system": row.get("system") or None,
                "value": number,
                "value_text": _text(value),
                "unit": row.get("unit"),
                "displayed": row.get("displayed"),
                "source": row.get("source"),
            }
        )
    return rows


def _document(built: Built) -> JsonObject:
    document: Any = built.results
    return dict(document)


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def columns(rows: Sequence[Mapping[str, object]]) -> tuple[Columns, dict[str, str]]:
    """Rows to columns with one type each: bool, int64, float64 or string (mixed: string).

    Keys missing from a row are null there; columns keep the order keys first appear in.
    """
    names = list(dict.fromkeys(k for row in rows for k in row))
    out: Columns = {}
    kinds: dict[str, str] = {}
    for name in names:
        values = [row.get(name) for row in rows]
        kind = _kind(v for v in values if v is not None)
        kinds[name] = kind
        if kind == "float64":
            out[name] = [None if v is None else float(v) for v in values]  # type: ignore[arg-type]
        elif kind == "string":
            out[name] = [None if v is None else _text(v) for v in values]
        else:
            out[name] = values
    return out, kinds


def _kind(values: Any) -> str:
    kinds = set()
    for v in values:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, int):
            kinds.add("int64")
        elif isinstance(v, float):
            kinds.add("float64")
        else:
            kinds.add("string")
    if not kinds or kinds == {"float64"} or kinds == {"int64", "float64"}:
        return "float64"
    return kinds.pop() if len(kinds) == 1 else "string"


def to_arrow(rows: Sequence[Mapping[str, object]]) -> Any:
    """A pyarrow.Table of the rows (NaN and infinities stay floats)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise MissingExtra(f"Arrow tables need pyarrow: {EXTRA_HINT}") from None
    data, kinds = columns(rows)
    types = {"bool": pa.bool_(), "int64": pa.int64(), "float64": pa.float64()}
    fields = [pa.field(n, types.get(kinds[n], pa.string())) for n in data]
    return pa.table({n: pa.array(data[n], type=f.type) for n, f in zip(data, fields, strict=True)})


def to_pandas(rows: Sequence[Mapping[str, object]]) -> Any:
    """A pandas.DataFrame of the rows (numbers as float64 with NaN for null)."""
    try:
        import pandas as pd
    except ImportError:
        raise MissingExtra(f"DataFrames need pandas: {EXTRA_HINT}") from None
    data, kinds = columns(rows)
    frame = {}
    for name, values in data.items():
        if kinds[name] == "float64":
            frame[name] = pd.array([math.nan if v is None else v for v in values], dtype="float64")
        elif kinds[name] == "int64" and None not in values:
            frame[name] = pd.array(values, dtype="int64")
        else:
            frame[name] = pd.array(values, dtype="object")
    return pd.DataFrame(frame, index=pd.RangeIndex(len(rows)))


def parquet_bytes(rows: Sequence[Mapping[str, object]] | Any) -> bytes:
    """Rows (or a pyarrow.Table) as one Parquet file (zstd), deterministic for a pyarrow version."""
    table = to_arrow(rows) if isinstance(rows, Sequence) else rows
    import pyarrow.parquet as pq

    out = io.BytesIO()
    pq.write_table(table, out, compression="zstd")
    return out.getvalue()


def request_table(built: Built) -> Any:
    """A pyarrow.Table with one row per request of every run the build read (re-read here):
    system, path, run, request, ok, then cmpc.ingest.requests.COLUMNS."""
    try:
        import pyarrow as pa
    except ImportError:
        raise MissingExtra(f"Arrow tables need pyarrow: {EXTRA_HINT}") from None
    document: Any = built.results or {}
    systems = {s["name"]: s for s in (document.get("ir") or {}).get("systems") or ()}
    folder = built.folder or Path()
    parts = []
    for item in built.inputs:
        runs = (systems.get(item.system) or {}).get("runs") or {}
        where = {str(k): str(v) for k, v in (runs.get("where") or {}).items()}
        found, _ = request_columns(spec_path(folder, item.path), item.format, where)
        for index, columns in found:
            n = columns["ok"].size
            head = {
                "system": pa.array([item.system] * n, pa.string()),
                "path": pa.array([item.path] * n, pa.string()),
                "run": pa.array(np.full(n, index, dtype=np.int64)),
                "request": pa.array(np.arange(n, dtype=np.int64)),
            }
            parts.append(pa.table(head | {k: pa.array(v) for k, v in columns.items()}))
    if not parts:
        names = ["system", "path", "run", "request", "ok", *COLUMNS]
        return pa.table({n: pa.array([], pa.float64()) for n in names})
    return pa.concat_tables(parts)
