"""The static verbs: `check`, `fmt` and `explain`; each returns an Outcome for the CLI."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from cmpc.compile import compile_source
from cmpc.diagnostics import Diagnostic, codes, error
from cmpc.files import display_path, read_source
from cmpc.outcome import Outcome
from cmpc.safe_text import terminal_text
from cmpc.safefs import Refused, create_file, replace_file
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


def format_specs(paths: list[str], *, check: bool, diff: bool, stdin: str | None) -> Outcome:
    """`cmpc fmt`: rewrite in place, or list (`--check`) / show (`--diff`) what would change."""
    from cmpc.syntax.parser import parse_spec
    from cmpc.syntax.printer import format_spec

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


def _shown_line(line: str) -> str:
    """A line of a diff as a terminal may show it: its own line break kept, nothing hidden."""
    body = line.removesuffix("\n")
    return terminal_text(body) + line[len(body) :]


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


def explain_code(code: str) -> Outcome:
    """`cmpc explain CODE`: the long explanation, with a wrong and a fixed example."""
    table = codes()
    info = table.get(code.upper())
    if info is None:
        close = difflib.get_close_matches(code.upper(), table, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return Outcome(stderr=f"cmpc: unknown diagnostic code `{code}`{hint}\n", exit_code=2)
    text = f"{info.code} ({info.name}): {info.summary}\n\n{info.explanation.strip()}\n"
    return Outcome(stdout=text, exit_code=0)


def init_spec(name: str) -> Outcome:
    """`cmpc init [NAME]`: write a commented starter spec, never over an existing file."""
    from importlib import resources

    path = Path(name if name.endswith(".cmp") else f"{name}.cmp")
    if os.path.lexists(path):
        return Outcome(
            diagnostics=(
                error(
                    "E090",
                    f"`{display_path(str(path))}` already exists",
                    file=display_path(str(path)),
                    help="choose another name; cmpc init never overwrites a file",
                ),
            )
        )
    text = resources.files("cmpc.verbs").joinpath("starter.cmp").read_text(encoding="utf-8")
    try:
        create_file(path, text.replace("NAME", path.stem).encode("utf-8"))
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        return Outcome(diagnostics=(error("E090", f"cannot write spec: {reason}", file=name),))
    return Outcome(
        stdout=f"wrote {display_path(str(path))}; fill in the TODOs, then run "
        f"`cmpc check {display_path(str(path))}`\n"
    )
