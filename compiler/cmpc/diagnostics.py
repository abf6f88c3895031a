"""One diagnostic type for every stage, and its human, short, JSON and GitHub renderings."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

from cmpc.safe_text import github_message, github_property, json_text, terminal_text
from cmpc.source import SourceFile, Span

MAX_HUMAN = 50  # diagnostics rendered in full before "... and N more"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in a spec, a trace or a build: stable code, where, what, and what to do.

    `span` locates it in a spec; trace problems carry `file` and `record` (e.g. "line 17",
    "`itls[3]`") instead.
    """

    code: str
    severity: Severity
    message: str
    span: Span | None = None
    label: str = ""
    notes: tuple[str, ...] = ()
    help: str | None = None
    file: str | None = None
    record: str | None = None

    @property
    def path(self) -> str | None:
        return self.span.file if self.span else self.file

    def sort_key(self) -> tuple:
        return (self.path or "", self.span.start if self.span else -1, self.code, self.message)


def error(code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, **kw)


def warning(code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, **kw)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


@dataclass(frozen=True)
class CodeInfo:
    """A registered diagnostic code: its slug, one-line summary and long explanation."""

    code: str
    name: str
    summary: str
    explanation: str = field(repr=False)


@cache
def codes() -> dict[str, CodeInfo]:
    """Every registered code, read from the `codes/*.toml` tables shipped with the package."""
    import tomllib
    from importlib import resources

    table: dict[str, CodeInfo] = {}
    for entry in sorted(resources.files("cmpc.codes").iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".toml"):
            continue
        for code, info in tomllib.loads(entry.read_text(encoding="utf-8")).items():
            table[code] = CodeInfo(code, info["name"], info["summary"], info["explanation"])
    return table


def code_name(code: str) -> str:
    info = codes().get(code)
    return info.name if info else "unregistered"


# ---------------------------------------------------------------------------------------------
# Renderings: every text a diagnostic carries may quote a spec or a run file, so each rendering
# passes it through cmpc.safe_text before it reaches a terminal or a CI log.


def _location(d: Diagnostic, sources: Mapping[str, SourceFile]) -> str:
    if d.span is not None:
        src = sources.get(d.span.file)
        if src is not None:
            line, col = src.line_col(d.span.start)
            return f"{terminal_text(d.span.file)}:{line}:{col}"
        return terminal_text(d.span.file)
    if d.file is not None:
        where = f"{d.file}: {d.record}" if d.record else d.file
        return terminal_text(where)
    return "<cmpc>"


def render_human(diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile]) -> str:
    """rustc-style text: header, location arrow, source line, carets, notes and help."""
    items = sorted(diagnostics, key=Diagnostic.sort_key)
    blocks = [_render_one(d, sources) for d in items[:MAX_HUMAN]]
    if len(items) > MAX_HUMAN:
        blocks.append(f"... and {len(items) - MAX_HUMAN} more\n")
    return "\n".join(blocks)


def _render_one(d: Diagnostic, sources: Mapping[str, SourceFile]) -> str:
    out = [f"{d.severity}[{d.code}]: {terminal_text(d.message)}"]
    src = sources.get(d.span.file) if d.span else None
    if d.span is not None and src is not None:
        line, col = src.line_col(d.span.start)
        end_line, end_col = src.line_col(max(d.span.end, d.span.start))
        raw = src.line_text(line).expandtabs(1)
        width = len(str(line))
        pad = " " * width
        if end_line != line:
            end_col = len(raw) + 1
        # columns of the line as shown, where a hidden character takes its escape's width
        text = terminal_text(raw)
        before = len(terminal_text(raw[: col - 1]))
        carets = "^" * max(1, len(terminal_text(raw[col - 1 : end_col - 1])))
        out.append(f"{pad}--> {terminal_text(d.span.file)}:{line}:{col}")
        out.append(f"{pad} |")
        out.append(f"{line} | {text}".rstrip())
        out.append(f"{pad} | {' ' * before}{carets} {terminal_text(d.label)}".rstrip())
        out.append(f"{pad} |")
        gutter = pad
    else:
        out.append(f"  --> {_location(d, sources)}")
        gutter = " "
    out.extend(f"{gutter} = note: {terminal_text(n)}" for n in d.notes)
    if d.help:
        out.append(f"{gutter} = help: {terminal_text(d.help)}")
    return "\n".join(out) + "\n"


def render_short(diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile]) -> str:
    """One line per diagnostic: `file:line:col: severity[CODE] message`."""
    lines = [
        f"{_location(d, sources)}: {d.severity}[{d.code}] {terminal_text(d.message)}"
        for d in sorted(diagnostics, key=Diagnostic.sort_key)
    ]
    return "".join(line + "\n" for line in lines)


def render_github(diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile]) -> str:
    """GitHub Actions workflow commands, so a pull request shows each problem inline."""
    lines = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        kind = {"error": "error", "warning": "warning"}.get(d.severity, "notice")
        props = []
        if d.path:
            props.append(f"file={terminal_text(d.path)}")
        if d.span is not None and d.span.file in sources:
            src = sources[d.span.file]
            line, col = src.line_col(d.span.start)
            end_line, end_col = src.line_col(d.span.end)
            props += [f"line={line}", f"col={col}", f"endLine={end_line}", f"endColumn={end_col}"]
        props.append(f"title={d.code} {code_name(d.code)}")
        # cmpc's own line breaks separate message, notes and help; quoted text has none left
        body = terminal_text(d.message) + "".join(f"\nnote: {terminal_text(n)}" for n in d.notes)
        if d.help:
            body += f"\nhelp: {terminal_text(d.help)}"
        prop_text = ",".join(
            f"{key}={github_property(value)}" for key, value in (p.split("=", 1) for p in props)
        )
        lines.append(f"::{kind} {prop_text}::{github_message(body)}")
    return "".join(line + "\n" for line in lines)


def _position(src: SourceFile | None, offset: int) -> dict:
    if src is None:
        return {"offset": offset}
    line, col = src.line_col(offset)
    return {"line": line, "column": col, "offset": offset}


def to_json_dict(d: Diagnostic, sources: Mapping[str, SourceFile]) -> dict:
    """The JSON object of one diagnostic (keys sorted on output)."""
    span = None
    if d.span is not None:
        src = sources.get(d.span.file)
        span = {
            "file": d.span.file,
            "start": _position(src, d.span.start),
            "end": _position(src, d.span.end),
        }
    return {
        "code": d.code,
        "name": code_name(d.code),
        "severity": str(d.severity),
        "message": d.message,
        "label": d.label,
        "notes": list(d.notes),
        "help": d.help,
        "span": span,
        "file": d.path,
        "record": d.record,
    }


def render_json(
    diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile], checked: int = 1
) -> str:
    """A stable envelope: format_version, valid, counts, and every diagnostic."""
    items = sorted(diagnostics, key=Diagnostic.sort_key)
    errors = sum(d.severity is Severity.ERROR for d in items)
    warnings = sum(d.severity is Severity.WARNING for d in items)
    doc = {
        "format_version": "1",
        "valid": errors == 0,
        "error_count": errors,
        "warning_count": warnings,
        "files_checked": checked,
        "diagnostics": [to_json_dict(d, sources) for d in items],
    }
    return json_text(json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False)) + "\n"


def summary_line(diagnostics: Iterable[Diagnostic], checked: int, noun: str = "spec") -> str:
    """`found 2 errors and 1 warning (3 specs checked)`, or an empty string when clean."""
    items = list(diagnostics)
    errors = sum(d.severity is Severity.ERROR for d in items)
    warnings = sum(d.severity is Severity.WARNING for d in items)
    if not errors and not warnings:
        return ""
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' * (errors != 1)}")
    if warnings:
        parts.append(f"{warnings} warning{'s' * (warnings != 1)}")
    files = f"{checked} {noun}{'s' * (checked != 1)} checked"
    return f"found {' and '.join(parts)} ({files})\n"


RENDERERS = {"human": render_human, "short": render_short, "github": render_github}
