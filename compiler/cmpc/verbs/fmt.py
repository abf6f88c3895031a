"""`cmpc fmt`: specs in canonical layout, rewritten in place or shown as a diff."""

from __future__ import annotations

import difflib
from pathlib import Path

from cmpc.diagnostics import Diagnostic, error
from cmpc.files import read_source
from cmpc.outcome import Outcome
from cmpc.safe_text import terminal_text
from cmpc.safefs import Refused, replace_file
from cmpc.source import SourceFile
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import format_spec


def format_specs(paths: list[str], *, check: bool, diff: bool, stdin: str | None) -> Outcome:
    """`cmpc fmt`: rewrite in place, or list (`--check`) / show (`--diff`) what would change."""
    diagnostics: list[Diagnostic] = []
    sources: dict[str, SourceFile] = {}
    out: list[str] = []
    changed = False
    for path in paths:
        source, problems = read_source(path, stdin)
        diagnostics += problems
        if source is None:
            continue
        sources[source.name] = source
        spec, problems = parse_spec(source)
        diagnostics += problems
        if spec is None:
            continue
        formatted = format_spec(spec, source.text)
        if path == "-" and not check and not diff:
            out.append(formatted)
            continue
        if formatted == source.text:
            continue
        changed = True
        if check:
            out.append(f"would reformat {terminal_text(source.name)}\n")
        elif diff:
            lines = difflib.unified_diff(
                source.text.splitlines(keepends=True),
                formatted.splitlines(keepends=True),
                f"{source.name}",
                f"{source.name} (formatted)",
            )
            out.append("".join(_shown_line(line) for line in lines))
        else:
            diagnostics += _write(path, source.name, formatted)
    code = None
    if (check or diff) and changed and not diagnostics:
        code = 1
    return Outcome(
        stdout="".join(out), diagnostics=tuple(diagnostics), sources=sources, exit_code=code
    )


def _write(path: str, name: str, text: str) -> list[Diagnostic]:
    """Replace a spec atomically, so an interrupted fmt never leaves half a spec.

    The temporary is created exclusively under a random name, so a link planted beside the spec
    cannot redirect the write; a spec that is itself a link is not rewritten.
    """
    try:
        replace_file(Path(path), text.encode("utf-8"))
    except Refused as refused:
        return [error("E092", f"spec is not rewritten: {refused}", file=name)]
    except OSError as exc:
        return [error("E090", f"cannot write spec: {(exc.strerror or 'error').lower()}", file=name)]
    return []


def _shown_line(line: str) -> str:
    """A line of a diff as a terminal may show it: its own line break kept, nothing hidden."""
    body = line.removesuffix("\n")
    return terminal_text(body) + line[len(body) :]
