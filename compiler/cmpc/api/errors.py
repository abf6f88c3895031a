"""The one exception the API raises for user errors: it carries the diagnostics."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cmpc.diagnostics import Diagnostic, render_short
from cmpc.source import SourceFile


class CmpcError(Exception):
    """A spec, a run file or an option the API was given has errors; `diagnostics` says which.

    The message is the diagnostics rendered one per line (`file:line:col: severity[CODE]: ...`).
    """

    def __init__(
        self, diagnostics: Iterable[Diagnostic], sources: Mapping[str, SourceFile] | None = None
    ) -> None:
        self.diagnostics = tuple(diagnostics)
        self.sources = dict(sources or {})
        errors = [d for d in self.diagnostics if d.severity == "error"]
        super().__init__(render_short(errors or self.diagnostics, self.sources).rstrip("\n"))

    @property
    def codes(self) -> tuple[str, ...]:
        """The codes of the errors, in order (e.g. `("E503",)`)."""
        return tuple(d.code for d in self.diagnostics if d.severity == "error")


class PolicyFailed(CmpcError):
    """A valid build failed a `require=` policy (E810): `cmpc build --require` exits 3 there.

    Raised by `Results.raise_for_policies()`; `results` is the build, complete and usable.
    """

    exit_code = 3

    def __init__(self, diagnostics: Iterable[Diagnostic], results: object = None) -> None:
        super().__init__(diagnostics)
        self.results = results
