"""What a verb hands back to the CLI: text for stdout, diagnostics, and the exit code."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cmpc.diagnostics import Diagnostic, has_errors
from cmpc.source import SourceFile

# Codes that mean "could not read or write a file": exit 2, like a usage error.
IO_CODES = frozenset({"E090", "E091", "E092", "E300", "E500", "E506"})


def exit_code_for(diagnostics: Iterable[Diagnostic]) -> int:
    """2 for I/O problems, 1 for any other error, 0 otherwise (warnings allowed)."""
    items = list(diagnostics)
    if any(d.code in IO_CODES for d in items):
        return 2
    return 1 if has_errors(items) else 0


@dataclass(frozen=True)
class Outcome:
    """The result of one verb; the CLI prints it and exits with `exit_code`."""

    stdout: str = ""
    diagnostics: tuple[Diagnostic, ...] = ()
    sources: Mapping[str, SourceFile] = field(default_factory=dict)
    exit_code: int | None = None
    stderr: str = ""
    checked: int = 1

    @property
    def code(self) -> int:
        return self.exit_code if self.exit_code is not None else exit_code_for(self.diagnostics)
