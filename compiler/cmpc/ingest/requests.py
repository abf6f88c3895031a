"""Each request of a build's runs as columns, for the per-request export (`--export requests`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

from cmpc.diagnostics import Diagnostic
from cmpc.ingest import remote
from cmpc.ingest.points import matches
from cmpc.traces import load_runs

COLUMNS = (
    "start_s",
    "ttft_s",
    "e2el_s",
    "tpot_s",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
)


@contextlib.contextmanager
def _local(path: str) -> Iterator[str]:
    if remote.is_url(path):
        with remote.fetched(path) as (local, _):
            yield local
    else:
        yield path


def request_columns(
    path: str, fmt: str | None, where: Mapping[str, str]
) -> tuple[list[tuple[int, dict[str, np.ndarray]]], list[Diagnostic]]:
    """(run index, columns) of each run the `where` filter keeps, one row per request.

    `tpot_s` is cmpc's per-request TPOT, (e2el − ttft) / (output − 1), NaN where undefined;
    aggregate-only runs have no requests and give no rows.
    """
    with _local(path) as local:
        runs, problems = load_runs(local, format=fmt, gaps=False)
    out = []
    for run in runs:
        req = run.requests
        if req is None or not matches(run.fields, where.items()):
            continue
        n = req.ok.size

        def column(values: np.ndarray | None, n: int = n) -> np.ndarray:
            return np.full(n, np.nan) if values is None else values.astype(np.float64)

        ttft, e2el, out_tok = column(req.ttft), column(req.e2el), column(req.output_tokens)
        with np.errstate(divide="ignore", invalid="ignore"):
            tpot = np.where(out_tok > 1, (e2el - ttft) / (out_tok - 1), np.nan)
        out.append(
            (
                run.index,
                {
                    "ok": req.ok.astype(bool),
                    "start_s": column(req.start),
                    "ttft_s": ttft,
                    "e2el_s": e2el,
                    "tpot_s": tpot,
                    "input_tokens": column(req.input_tokens),
                    "cached_input_tokens": column(req.cached_input_tokens),
                    "output_tokens": out_tok,
                },
            )
        )
    return out, problems


def spec_path(folder: Path, rel: str) -> str:
    """Where an input named in results.json is: a URL as it is, else under the spec's folder."""
    return rel if remote.is_url(rel) else str(folder / rel)
