"""`cmpc.check`: a spec's diagnostics, from its text or its path, reading no trace."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from cmpc.compile import compile_source
from cmpc.diagnostics import RENDERERS, Diagnostic
from cmpc.files import read_source
from cmpc.source import SourceFile


@dataclass(frozen=True)
class Checked:
    """The diagnostics of one spec, in the order `cmpc check` prints them."""

    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """No error (warnings allowed): what `cmpc check` exits 0 on."""
        return not self.errors

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.diagnostics)

    def render(self, format: str = "human") -> str:
        """The diagnostics as `cmpc check --format FORMAT` prints them (human, short, github)."""
        return RENDERERS[format](self.diagnostics, self.sources)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)


def check(text_or_path: str | PathLike[str]) -> Checked:
    """Check a spec given as text or as a path (a `Path`, or a string without a newline or `{`).

    Nothing is read but the spec itself: as `cmpc check`, no run file and no network.
    """
    if isinstance(text_or_path, str) and _is_text(text_or_path):
        source, problems = read_source("-", text_or_path)
    else:
        source, problems = read_source(str(Path(text_or_path)))
    if source is None:
        return Checked(tuple(problems))
    diagnostics = [*problems, *compile_source(source)[1]]
    return Checked(tuple(diagnostics), {source.name: source})


def _is_text(value: str) -> bool:
    return "\n" in value or "{" in value
