"""Readers that turn benchmark-tool outputs into cmpc's canonical run table."""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Iterable

from cmpc.diagnostics import Diagnostic, code_help, error, has_errors, warning
from cmpc.language import vocabulary
from cmpc.traces import detect, readpass
from cmpc.traces.jsonscan import TraceError
from cmpc.traces.table import Published, Requests, Run

FORMATS = vocabulary.FORMATS  # one list for the readers and the spec checker

_MODULES = {
    "vllm": "vllm",
    "vllm-sweep": "vllm_sweep",
    "sglang": "sglang",
    "aiperf": "aiperf",
    "aiperf-summary": "aiperf",
    "genai-perf": "genai_perf",
    "guidellm": "guidellm",
    "llmperf": "llmperf",
    "genai-bench": "genai_bench",
    "inference-perf": "inference_perf",
    "mlperf": "mlperf",
    "llmd-report": "llmd_report",
    "inferencex": "inferencex",
    "cmpc": "cmpc_jsonl",
}


def _reader(fmt: str):
    return importlib.import_module(f"cmpc.traces.{_MODULES[fmt]}")


def load_readers(formats: Iterable[str | None]) -> None:
    """Import the readers of `formats` and MLPerf's (every file's companions ask it)."""
    for fmt in {"mlperf", *(f for f in formats if f in _MODULES)}:
        _reader(fmt)


def skips_gaps(fmt: str) -> bool:
    """Whether the format's reader leaves chunk gaps unread when told they are not needed."""
    return fmt in _MODULES and getattr(_reader(fmt), "SKIPS_GAPS", False)


def companions(path: str, root: str | None = None) -> list[str]:
    """Files other than `path` whose content its reading depends on (MLPerf: the
    submission's `systems/<system>.json`), so a cache can key on them too."""
    found = _reader("mlperf").system_file(path, root)
    return [] if found is None else [found]


def _head(path: str) -> bytes:
    return readpass.head(path, detect.HEAD_BYTES)


def load_runs(
    path: str, *, format: str | None = None, gaps: bool = True, root: str | None = None
) -> tuple[list[Run], list[Diagnostic]]:
    """Every run in one benchmark output file; diagnostics name the file and the record.

    With `gaps=False` the caller reads no chunk-gap figure and the runs come back without chunk
    gaps; a reader that can leave them unread (vLLM, cmpc JSONL, AIPerf) neither parses nor
    checks them. `root` (a spec's folder) bounds the files a reader may read beside `path`.
    """
    try:
        if os.path.isdir(path):
            raise IsADirectoryError(path)
        head = _head(path)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return [], [
            error(
                "E300",
                f"cannot read `{path}`: {reason.lower()}",
                file=path,
                help="check the path; quote globs the shell did not expand",
            )
        ]
    if format is not None and format not in FORMATS:
        return [], [
            error(
                "E311",
                f"unknown trace format `{format}`",
                file=path,
                notes=("known formats: " + ", ".join(f"`{f}`" for f in FORMATS),),
                help="pass one of the known formats to `--format`, or leave it out to detect",
            )
        ]
    if detect.is_empty(head):
        return [], [
            error(
                "E310",
                f"`{path}` is empty",
                file=path,
                record="line 1",
                help="the benchmark wrote nothing; re-run it or pass the right file",
            )
        ]
    try:
        found = detect.candidates(head, among=format)
    except TraceError as exc:
        return [], [
            error(exc.code, str(exc), file=path, record=exc.record, help=code_help(exc.code))
        ]
    if format is None:
        if not found:
            hint = detect.not_a_run_hint(head)
            return [], [
                error(
                    "E302",
                    f"`{path}` is not a benchmark output cmpc can read"
                    + (f": it looks like {hint.split(';')[0]}" if hint else ""),
                    file=path,
                    notes=("formats read: " + ", ".join(f"`{f}`" for f in FORMATS),),
                    help=(
                        hint.split("; ", 1)[1]
                        if hint
                        else "pass `--format F` if you know it; "
                        "for a new harness, write cmpc's JSONL (docs/traces.md)"
                    ),
                )
            ]
        if len(found) > 1:
            return [], [
                error(
                    "E303",
                    f"`{path}` fits several formats: " + ", ".join(f"`{f}`" for f in found),
                    file=path,
                    help="pass `--format F` to say which one it is",
                )
            ]
        format = found[0]
    elif format not in found:
        found = detect.candidates(head)  # every format, to say what the file looks like
        seen = f"; it looks like `{found[0]}`" if len(found) == 1 else ""
        return [], [
            error(
                "E304",
                f"`{path}` is not a `{format}` file{seen}",
                file=path,
                help=f"pass `--format {found[0]}`"
                if len(found) == 1
                else "check the file or the `--format` value",
            )
        ]
    try:
        options: dict[str, object] = {} if gaps or not skips_gaps(format) else {"gaps": False}
        if getattr(_reader(format), "READS_BESIDE", False):
            options["root"] = root
        runs = _reader(format).read(path, format, **options)
    except TraceError as exc:
        return [], [
            error(exc.code, str(exc), file=path, record=exc.record, help=code_help(exc.code))
        ]
    except UnicodeDecodeError as exc:
        return [], [
            error(
                "E301",
                f"not UTF-8 text ({exc.reason})",
                file=path,
                record=f"byte {exc.start}",
                help=code_help("E301"),
            )
        ]
    except OSError as exc:
        return [], [error("E300", f"cannot read `{path}`: {exc.strerror or exc}", file=path)]
    except RecursionError:  # a reader's own parse of nested text (json does it recursively)
        return [], [
            error(
                "E301",
                "JSON nested too deeply",
                file=path,
                record="the document",
                help=code_help("E301"),
            )
        ]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # a shape no check above anticipated: still the file's fault, so a diagnostic, not a crash
        return [], [
            error(
                "E305",
                f"the file does not have the structure of a `{format}` file "
                f"({type(exc).__name__}: {exc})",
                file=path,
                help=code_help("E305"),
            )
        ]
    diagnostics: list[Diagnostic] = []
    for run in runs:
        unproved = run.reading.problem() if run.reading else None
        if unproved and run.reading:
            layout = run.reading.layout
            diagnostics.append(
                warning(
                    "W320",
                    f"`{path}`: {unproved}",
                    file=path,
                    record=run.record or None,
                    notes=(f"proved on {layout.proved_on}",) if layout else (),
                    help="check the figures against the tool's own summary, or use a "
                    "release cmpc is proved on (docs/traces.md)",
                )
            )
        diagnostics.extend(getattr(_reader(format), "run_warnings", _no_warnings)(run))
        if run.requests is not None and not run.requests.ok.any():
            diagnostics.append(
                error(
                    "E309",
                    "the run has no successful request",
                    file=path,
                    record=run.record or None,
                    help=code_help("E309"),
                )
            )
    if has_errors(diagnostics):
        return [], diagnostics
    return (runs if gaps else [_without_gaps(r) for r in runs]), _once(diagnostics)


def _no_warnings(run: Run) -> list[Diagnostic]:
    return []


def _once(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One layout warning per file, not one per run of it."""
    seen: set[str] = set()
    out = []
    for diag in diagnostics:
        if diag.message not in seen:
            seen.add(diag.message)
            out.append(diag)
    return out


def _without_gaps(run: Run) -> Run:
    """The run without chunk gaps, for readers that had to parse them (the bulk of a trace,
    and a partition of every gap in `summarize` if kept)."""
    req = run.requests
    if req is None or (req.gaps is None and req.chunk_tokens is None):
        return run
    return dataclasses.replace(
        run, requests=dataclasses.replace(req, gaps=None, gap_offsets=None, chunk_tokens=None)
    )


__all__ = ["FORMATS", "Published", "Requests", "Run", "companions", "load_runs"]
