"""Reading spec files for the verbs: display paths, size limits, UTF-8, E090/E091/E092."""

from __future__ import annotations

import os

from cmpc.diagnostics import Diagnostic, error
from cmpc.limits import Limits, current
from cmpc.safefs import Refused, read_regular
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
    """Read a spec file (or stdin for `-`) as a SourceFile, or an E090-E092 diagnostic.

    A spec is a regular file; a symbolic link is followed only while it stays in the folder that
    holds it, so a committed link cannot make a verb read `/proc/self/environ` or `/etc/passwd`.
    """
    name = display_path(path)
    if path == "-":
        return _within_limit(name, stdin or "")
    limit = current().spec_bytes
    try:
        raw = read_regular(path, os.path.dirname(os.path.abspath(path)), limit)
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
    except Refused as refused:
        return None, [
            error(
                "E092",
                f"spec is not read: {refused}",
                file=name,
                help="a spec must be a regular file in its folder tree; "
                "copy the spec there instead of linking to it",
            )
        ]
    except UnicodeDecodeError:
        return None, [error("E090", "spec is not UTF-8 text", file=name, help="save it as UTF-8")]
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, [error("E090", f"cannot read spec: {reason.lower()}", file=name)]
    return SourceFile(name, text), []


def _within_limit(name: str, text: str) -> tuple[SourceFile | None, list[Diagnostic]]:
    """Text read from standard input, refused past the spec size limit like a file."""
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
