"""What a verb hands back to the CLI: text for stdout, diagnostics, and the exit code."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cmpc.diagnostics import Diagnostic, has_errors
from cmpc.source import SourceFile

# Codes that mean "could not read or write a file": exit 2, like a usage error.
IO_CODES = frozenset({"E090", "E091", "E092", "E300", "E500", "E506"})
# Usage of the review verbs (a policy not in the language, a path not in the results, a build
# folder or git revision that cannot be read): exit 2 as well.
USAGE_CODES = frozenset({"E800", "E801", "E802", "E803", "E804"})
# "The evidence is valid, a policy failed" (`--require`, `--fail-on`): exit 3.
POLICY_CODES = frozenset({"E810"})


def exit_code_for(diagnostics: Iterable[Diagnostic]) -> int:
    """2 for I/O or usage problems, 1 for any other error, 3 when the only errors are failed
    policies, 0 otherwise (warnings allowed)."""
    items = list(diagnostics)
    if any(d.code in IO_CODES or d.code in USAGE_CODES for d in items):
        return 2
    errors = [d for d in items if d.severity == "error"]
    if errors and all(d.code in POLICY_CODES for d in errors):
        return 3
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
