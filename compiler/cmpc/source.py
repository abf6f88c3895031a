"""Source files and spans: character offsets in, 1-based line/column out."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range of 0-based character offsets in one file."""

    file: str
    start: int
    end: int

    def to(self, other: Span) -> Span:
        """The smallest span covering both."""
        return Span(self.file, min(self.start, other.start), max(self.end, other.end))


@dataclass(frozen=True)
class SourceFile:
    """A file's display name and text, with offset to line/column conversion."""

    name: str
    text: str
    _cache: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def line_starts(self) -> list[int]:
        starts = [0]
        starts.extend(i + 1 for i, ch in enumerate(self.text) if ch == "\n")
        return starts

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line + 1, offset - self.line_starts[line] + 1

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its newline."""
        starts = self.line_starts
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[begin:end].rstrip("\r")

    def offset_of(self, line: int, column: int) -> int:
        """The character offset of a 1-based line and column."""
        line = max(1, min(line, len(self.line_starts)))
        return min(self.line_starts[line - 1] + max(column, 1) - 1, len(self.text))

    def span(self, start: int, end: int) -> Span:
        return Span(self.name, start, end)
