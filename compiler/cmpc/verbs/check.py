"""`cmpc check`: every problem of every spec, without reading any trace."""

from __future__ import annotations

from cmpc.compile import compile_source
from cmpc.diagnostics import Diagnostic
from cmpc.files import read_source
from cmpc.outcome import Outcome
from cmpc.source import SourceFile


def check_specs(paths: list[str], *, stdin: str | None = None) -> Outcome:
    """`cmpc check`: every problem of every spec (`-`: standard input), reading no trace."""
    diagnostics: list[Diagnostic] = []
    sources: dict[str, SourceFile] = {}
    for path in paths:
        source, problems = read_source(path, stdin)
        diagnostics += problems
        if source is None:
            continue
        sources[source.name] = source
        diagnostics += compile_source(source)[1]
    return Outcome(diagnostics=tuple(diagnostics), sources=sources, checked=len(paths))
