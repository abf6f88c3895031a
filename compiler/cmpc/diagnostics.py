"""One diagnostic type for every stage, and its human, short, JSON and GitHub renderings."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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
class Label:
    """A second place a diagnostic's rule involves (rustc's `---`), with what it is there."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in a spec, a trace or a build: stable code, where, what, and what to do.

    `span` locates it in a spec; trace problems carry `file` and `record` (e.g. "line 17",
    "`itls[3]`") instead. A build-time problem caused by a spec value names it by `origin`, a
    JSON pointer into the IR (`/systems/0/runs`), which `located` turns into that value's span.
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
    secondary: tuple[Label, ...] = ()
    origin: str | None = None

    @property
    def path(self) -> str | None:
        return self.span.file if self.span else self.file

    def sort_key(self) -> tuple:
        return (self.path or "", self.span.start if self.span else -1, self.code, self.message)


def error(code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, **kw)


def warning(code: str, message: str, span: Span | None = None, **kw) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, message, span, **kw)


def located(diagnostics: Iterable[Diagnostic], origins: Mapping[str, Span]) -> list[Diagnostic]:
    """Each diagnostic with an `origin` and no span given the span of the spec text behind it.

    The pointer's nearest ancestor with a known span is used (`/systems/0/runs/where` falls back
    to `/systems/0/runs`), so a diagnostic lands on the closest line the spec wrote.
    """
    out = []
    for d in diagnostics:
        pointer = d.origin
        while d.span is None and pointer is not None:
            if pointer in origins:
                d = replace(d, span=origins[pointer])
                break
            pointer = pointer.rpartition("/")[0] if pointer else None
        out.append(d)
    return out


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


@dataclass(frozen=True)
class CodeInfo:
    """A registered diagnostic code: its slug, one-line summary and long explanation."""

    code: str
    name: str
    summary: str
    explanation: str = field(repr=False)
    help: str | None = None  # the help line of every diagnostic of this code, where one fits all
    # where its Wrong/Fixed examples can be compiled: "spec" (whole specs, compiled statically),
    # "fragment" (the lines that matter; its whole-spec fixture is tests/diagnostics/CODE-*.cmp),
    # "build", "trace" or "cli" (they need data files or a command; tests exercise them there)
    context: str = "spec"


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
            table[code] = CodeInfo(
                code,
                info["name"],
                info["summary"],
                info["explanation"],
                info.get("help"),
                info.get("context", "spec"),
            )
    return table


def code_help(code: str) -> str | None:
    """The help line the code's registry entry gives (trace errors share one per code)."""
    info = codes().get(code)
    return info.help if info else None


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
        # the primary span (`^`) and each secondary one in the same file (`-`), in line order
        marks = [(d.span, "^", d.label)]
        marks += [(s.span, "-", s.message) for s in d.secondary if s.span.file == d.span.file]
        marks.sort(key=lambda m: m[0].start)
        lines = [src.line_col(span.start)[0] for span, _, _ in marks]
        pad = " " * len(str(max(lines)))
        line, col = src.line_col(d.span.start)
        out.append(f"{pad}--> {terminal_text(d.span.file)}:{line}:{col}")
        out.append(f"{pad} |")
        shown = None
        for (span, char, label), number in zip(marks, lines, strict=True):
            if shown is not None and number > shown + 1:
                out.append("...")
            if number != shown:
                raw = src.line_text(number).expandtabs(1)
                out.append(f"{number:>{len(pad)}} | {terminal_text(raw)}".rstrip())
            out.append(f"{pad} | {_underline(src, span, char)} {terminal_text(label)}".rstrip())
            shown = number
        out.append(f"{pad} |")
        gutter = pad
    else:
        out.append(f"  --> {_location(d, sources)}")
        gutter = " "
    elsewhere = [
        s for s in d.secondary if src is None or d.span is None or s.span.file != d.span.file
    ]
    out.extend(
        f"{gutter} = note: {terminal_text(s.message)} at {_at(s, sources)}" for s in elsewhere
    )
    out.extend(f"{gutter} = note: {terminal_text(n)}" for n in d.notes)
    if d.help:
        out.append(f"{gutter} = help: {terminal_text(d.help)}")
    return "\n".join(out) + "\n"


def _underline(src: SourceFile, span: Span, char: str) -> str:
    """Spaces up to the span's column, then `char` under it (to the line's end if it spans more).

    Columns are those of the line as shown, where a hidden character takes its escape's width.
    """
    line, col = src.line_col(span.start)
    end_line, end_col = src.line_col(max(span.end, span.start))
    raw = src.line_text(line).expandtabs(1)
    if end_line != line:
        end_col = len(raw) + 1
    before = len(terminal_text(raw[: col - 1]))
    return " " * before + char * max(1, len(terminal_text(raw[col - 1 : end_col - 1])))


def _at(label: Label, sources: Mapping[str, SourceFile]) -> str:
    src = sources.get(label.span.file)
    if src is None:
        return terminal_text(label.span.file)
    line, col = src.line_col(label.span.start)
    return f"{terminal_text(label.span.file)}:{line}:{col}"


def _trailing(d: Diagnostic, sources: Mapping[str, SourceFile]) -> str:
    """The secondary labels as one note, for the one-line formats."""
    if not d.secondary:
        return ""
    return (
        " ("
        + "; ".join(f"{terminal_text(s.message)} at {_at(s, sources)}" for s in d.secondary)
        + ")"
    )


def render_short(diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile]) -> str:
    """One line per diagnostic: `file:line:col: severity[CODE] message`."""
    lines = [
        f"{_location(d, sources)}: {d.severity}[{d.code}] {terminal_text(d.message)}"
        + _trailing(d, sources)
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
        body += "".join(
            f"\nnote: {terminal_text(s.message)} at {_at(s, sources)}" for s in d.secondary
        )
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


def _span_json(span: Span | None, sources: Mapping[str, SourceFile]) -> dict | None:
    if span is None:
        return None
    src = sources.get(span.file)
    return {
        "file": span.file,
        "start": _position(src, span.start),
        "end": _position(src, span.end),
    }


def to_json_dict(d: Diagnostic, sources: Mapping[str, SourceFile]) -> dict:
    """The JSON object of one diagnostic (keys sorted on output)."""
    return {
        "code": d.code,
        "name": code_name(d.code),
        "severity": str(d.severity),
        "message": d.message,
        "label": d.label,
        "notes": list(d.notes),
        "help": d.help,
        "span": _span_json(d.span, sources),
        "secondary": [
            {"span": _span_json(s.span, sources), "message": s.message} for s in d.secondary
        ],
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
