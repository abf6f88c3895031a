"""Syntax tree to canonical spec text (`cmpc fmt`), comments and single blank lines kept."""

from __future__ import annotations

import re

from cmpc.syntax import tree as st

INDENT = "  "
_BLANK = re.compile(r"\n[ \t\r]*\n")


def format_spec(spec: st.Spec, text: str = "") -> str:
    """The canonical text of a spec; `text` (the parsed source) places comments and blank lines."""
    printer = _Printer(spec.comments, text)
    printer.entry(spec.root, 0)
    printer.comments_before(len(text) + 1, 0)
    return "\n".join(printer.lines).rstrip("\n") + "\n"


def atom_text(atom: st.Atom) -> str:
    """One atom as the canonical layout writes it."""
    if isinstance(atom, st.String):
        escaped = (
            atom.value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\n", "\\n")
            .replace("\t", "\\t")
        )
        return f'"{escaped}"'
    if isinstance(atom, st.Quantity):
        sep = "" if atom.unit == "%" else " "
        return f"{atom.number.text}{sep}{atom.unit}"
    if isinstance(atom, st.Name):
        return atom.value
    return atom.text


def values_text(alternatives: tuple[st.Alternative, ...]) -> str:
    """`a b | c + d, e`: atoms spaced, `,` attached to the left, alternatives split by ` | `."""
    parts = []
    for alt in alternatives:
        out = ""
        for atom in alt.atoms:
            piece = atom_text(atom)
            if isinstance(atom, st.Symbol) and atom.text == ",":
                out += piece
            else:
                out += (" " if out else "") + piece
        parts.append(out)
    return " | ".join(parts)


class _Printer:
    def __init__(self, comments: tuple[st.Comment, ...], text: str):
        self.comments = sorted(comments, key=lambda c: c.span.start)
        self.next_comment = 0
        self.text = text
        self.lines: list[str] = []
        self.last_end: int | None = None
        self.just_opened = False

    def emit(self, line: str, start: int, end: int, opens: bool = False) -> None:
        """Add a line, after a blank line if the source had one before this item."""
        if (
            self.last_end is not None
            and not self.just_opened
            and line.strip() != "}"
            and _BLANK.search(self.text[self.last_end : start])
        ):
            self.lines.append("")
        self.lines.append(line)
        self.last_end = end
        self.just_opened = opens

    def comments_before(self, offset: int, depth: int) -> None:
        while self.next_comment < len(self.comments):
            comment = self.comments[self.next_comment]
            if comment.span.start >= offset:
                return
            self.emit(INDENT * depth + comment.text, comment.span.start, comment.span.end)
            self.next_comment += 1

    def trailing(self, after: int) -> str:
        """A comment on the same source line after `after`, taken as this line's comment."""
        if self.next_comment >= len(self.comments):
            return ""
        comment = self.comments[self.next_comment]
        if comment.span.start < after or "\n" in self.text[after : comment.span.start]:
            return ""
        self.next_comment += 1
        self.last_end = comment.span.end
        return "  " + comment.text

    def entry(self, entry: st.Entry, depth: int) -> None:
        self.comments_before(entry.span.start, depth)
        head = INDENT * depth + entry.key.value
        if entry.alternatives:
            head += " " + values_text(entry.alternatives)
        if entry.body is None:
            self.emit(head, entry.span.start, entry.span.end)
            self.lines[-1] += self.trailing(entry.span.end)
            return
        body_end = entry.body_span.end if entry.body_span else entry.span.end
        has_inner_comment = (
            self.next_comment < len(self.comments)
            and self.comments[self.next_comment].span.start < body_end
        )
        if not entry.body and not has_inner_comment:
            self.emit(head + " {}", entry.span.start, entry.span.end)
            self.lines[-1] += self.trailing(entry.span.end)
            return
        open_at = entry.body_span.start + 1 if entry.body_span else entry.span.start
        self.emit(head + " {", entry.span.start, open_at, opens=True)
        self.lines[-1] += self.trailing(open_at)
        for child in entry.body:
            self.entry(child, depth + 1)
        self.comments_before(body_end - 1, depth + 1)
        self.emit(INDENT * depth + "}", body_end - 1, body_end)
        self.lines[-1] += self.trailing(body_end)
