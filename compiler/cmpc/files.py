"""Reading spec files for the verbs: display paths, size limits, UTF-8, E090/E091."""

from __future__ import annotations

import os
from pathlib import Path

from cmpc.diagnostics import Diagnostic, error
from cmpc.source import SourceFile


def display_path(path: str) -> str:
    """A path as diagnostics show it: relative to the working directory when inside it."""
    if path == "-":
        return "<stdin>"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def read_source(path: str, stdin: str | None = None) -> tuple[SourceFile | None, list[Diagnostic]]:
    """Read a spec file (or stdin for `-`) as a SourceFile, or an E090 diagnostic."""
    name = display_path(path)
    if path == "-":
        return _within_limit(name, stdin or "")
    from cmpc.limits import Limits, current

    limit = current().spec_bytes
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(limit + 1)
        if len(raw) > limit:
            return None, [
                error(
                    "E091",
                    f"spec is larger than {limit} bytes",
                    file=name,
                    help=f"a spec is a short declaration; raise {Limits.variable('spec_bytes')} "
                    "if this one really is that long",
                )
            ]
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, [error("E090", "spec is not UTF-8 text", file=name, help="save it as UTF-8")]
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, [error("E090", f"cannot read spec: {reason.lower()}", file=name)]
    return SourceFile(name, text), []


def _within_limit(name: str, text: str) -> tuple[SourceFile | None, list[Diagnostic]]:
    """Text read from standard input, refused past the spec size limit like a file."""
    from cmpc.limits import Limits, current

    limit = current().spec_bytes
    if len(text.encode("utf-8")) > limit:
        return None, [
            error(
                "E091",
                f"spec is larger than {limit} bytes",
                file=name,
                help=f"raise {Limits.variable('spec_bytes')} if this one really is that long",
            )
        ]
    return SourceFile(name, text), []
