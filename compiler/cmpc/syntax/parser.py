"""Spec text to syntax tree, by cmpc's LALR driver over the tables made from the grammar."""

from __future__ import annotations

import re

from cmpc.diagnostics import Diagnostic, error
from cmpc.limits import Limits, current
from cmpc.source import SourceFile, Span
from cmpc.syntax import lalr
from cmpc.syntax import tree as st

# How the language's own words name the grammar's terminals in "expected ..." messages.
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "DATE": "a date",
    "UNIT": "a unit",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
    "SEMICOLON": "`;`",
    "VBAR": "`|`",
    "PLUS": "`+`",
    "COMMA": "`,`",
    "_NL": "a new line",
    "$END": "end of file",
}

# `where tp=8`, `utilization: 70%`: a key and its value are written side by side
EQUALS_HELP = (
    "a key and its value are separated by a space, not `=` or `:`: `where tp 8`, `utilization 70%`"
)


def parse_spec(source: SourceFile) -> tuple[st.Spec | None, list[Diagnostic]]:
    """Parse a spec; on a syntax error return None and that one diagnostic."""
    too_deep = _too_deep(source)
    if too_deep is not None:
        return None, [too_deep]
    try:
        tree = lalr.parse(source.text)
    except (lalr.UnexpectedToken, lalr.UnexpectedCharacters) as exc:
        return None, [syntax_error(source, exc)]
    return build_spec(source, tree), []


def syntax_error(source: SourceFile, exc: Exception) -> Diagnostic:
    """The diagnostic of a parse error (lark's errors carry the same fields: tests use both)."""
    if isinstance(exc, lalr.UnexpectedCharacters):
        return _unexpected_character(source, exc)
    return _unexpected_token(source, exc)


def build_spec(source: SourceFile, tree) -> st.Spec:
    """The syntax tree of a parse tree (the driver's, or lark's in tests)."""
    comments = _comments(source)
    return st.Spec(root=_Builder(source).entry(tree.children[0]), comments=comments)


def _too_deep(source: SourceFile) -> Diagnostic | None:
    """E007 at the first `{` nested deeper than the limit (strings and comments skipped)."""
    limit = current().depth
    depth = 0
    for offset, ch in _braces(source.text):
        if ch == "}":
            depth = max(0, depth - 1)
            continue
        depth += 1
        if depth > limit:
            return error(
                "E007",
                f"blocks are nested more than {limit} deep",
                source.span(offset, offset + 1),
                label=f"block {depth} levels deep",
                help=f"specs nest a few levels at most; raise {Limits.variable('depth')} "
                "if this is intended",
            )
    return None


_STRING = re.compile(r'"([^"\\\n]|\\["\\nt])*"')  # the grammar's STRING


def _comments(source: SourceFile) -> tuple[st.Comment, ...]:
    """Every `#` comment outside strings of a text that parsed: no other token holds a `#`.

    (Not lark's standalone lexer: without the parser's context it lexes `ms.v2` as the unit
    `ms` and then fails on `.`, an internal error on a valid spec.)
    """
    found = []
    text, i = source.text, 0
    while i < len(text):
        if text[i] == "#":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            found.append(st.Comment(text=text[i:end].rstrip(), span=source.span(i, end)))
            i = end
        elif text[i] == '"' and (string := _STRING.match(text, i)):
            i = string.end()
        else:
            i += 1
    return tuple(found)


class _Builder:
    """Parse tree to syntax tree; never raises on any tree the grammar can produce."""

    def __init__(self, source: SourceFile):
        self.source = source

    def span(self, node) -> Span:
        meta = getattr(node, "meta", None)
        if meta is not None and not meta.empty:
            return self.source.span(meta.start_pos, meta.end_pos)
        return self.source.span(node.start_pos, node.end_pos)

    def entry(self, tree) -> st.Entry:
        key = tree.children[0].children[0]
        alternatives: tuple[st.Alternative, ...] = ()
        body = None
        body_span = None
        for child in tree.children[1:]:
            if child.data == "values":
                alternatives = tuple(self.alternative(alt) for alt in child.children)
            else:
                body = tuple(self.entry(e) for e in child.children)
                body_span = self.span(child)
        return st.Entry(
            key=st.Name(value=str(key), span=self.span(key)),
            alternatives=alternatives,
            body=body,
            span=self.span(tree),
            body_span=body_span,
        )

    def alternative(self, tree) -> st.Alternative:
        return st.Alternative(
            atoms=tuple(self.atom(a) for a in tree.children), span=self.span(tree)
        )

    def atom(self, tree) -> st.Atom:
        span = self.span(tree)
        kind = tree.data
        tokens = tree.children
        if kind == "string":
            return st.String(value=_unescape(str(tokens[0])[1:-1]), span=span)
        if kind == "date":
            return st.Date(text=str(tokens[0]), span=span)
        if kind == "quantity":
            number = st.Number(text=str(tokens[0]), span=self.span(tokens[0]))
            return st.Quantity(number=number, unit=str(tokens[1]), span=span)
        if kind == "number":
            return st.Number(text=str(tokens[0]), span=span)
        if kind == "name":
            return st.Name(value=str(tokens[0]), span=span)
        return st.Symbol(text="+" if kind == "plus" else ",", span=span)


def _unescape(text: str) -> str:
    out = []
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
        else:
            out.append(ch)
    return "".join(out)


def _expected(names) -> str:
    words = sorted({TERMINAL_WORDS.get(n, f"`{n}`") for n in names if n != "COMMENT"})
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    return "one of " + ", ".join(words[:-1]) + " or " + words[-1]


def _braces(text: str):
    """(offset, `{` or `}`) of every brace outside strings and comments."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch in "{}":
            yield i, ch
        i += 1


def _unclosed_brace(text: str) -> int | None:
    """Offset of the innermost `{` that is never closed."""
    stack: list[int] = []
    for offset, ch in _braces(text):
        if ch == "{":
            stack.append(offset)
        elif stack:
            stack.pop()
    return stack[-1] if stack else None


def _bad_escape(text: str, start: int, end: int) -> int | None:
    """Offset of the first invalid backslash escape in a string that does close on its line."""
    i = start + 1
    while i < end:
        if text[i] == '"':
            return None
        if text[i] == "\\":
            if i + 1 >= end or text[i + 1] not in '"\\nt':
                closes = '"' in text[i + 1 : end]
                return i if closes else None
            i += 2
            continue
        i += 1
    return None


def _unexpected_token(source: SourceFile, exc) -> Diagnostic:
    token = exc.token
    expected = set(exc.accepts or exc.expected)
    if token.type == "$END":
        end = len(source.text.rstrip())
        span = source.span(end, end)
        if not source.text.strip():
            return error(
                "E001",
                "empty spec",
                span,
                label="expected a `comparison` block",
                help='a spec holds one block: comparison "title" { ... }',
            )
        opened = _unclosed_brace(source.text)
        if "RBRACE" in expected and opened is not None:
            line, col = source.line_col(opened)
            return error(
                "E002",
                "unclosed `{` at end of file",
                span,
                label="expected `}` here",
                notes=(f"the block opened at line {line}, column {col} is never closed",),
                help="add the missing `}`",
            )
        return error(
            "E001",
            "unexpected end of file",
            span,
            label=f"expected {_expected(expected)}",
        )
    start = token.start_pos
    end = token.end_pos if token.end_pos is not None else start + len(str(token))
    what = TERMINAL_WORDS.get(token.type, f"`{token}`")
    if token.type in {"NAME", "NUMBER", "STRING", "DATE", "UNIT"}:
        what = f"{what.removeprefix('a ')} `{token}`"
    if token.type == "_NL":
        start = end = token.start_pos
    expectation = _expected(expected)
    help_text = None
    if token.type == "LBRACE":
        help_text = "a block starts after a key, e.g. `system b300 {`"
    elif token.type == "RBRACE" and _unclosed_brace(source.text) is None:
        help_text = "this `}` closes no block; remove it"
    return error(
        "E001",
        f"unexpected {what}",
        source.span(start, max(end, start)),
        label=f"expected {expectation}" if expectation else "not expected here",
        help=help_text,
    )


def _unexpected_character(source: SourceFile, exc) -> Diagnostic:
    pos = exc.pos_in_stream
    char = source.text[pos] if pos < len(source.text) else ""
    if char == '"':
        line_end = source.text.find("\n", pos)
        line_end = len(source.text) if line_end < 0 else line_end
        bad = _bad_escape(source.text, pos, line_end)
        if bad is not None:
            return error(
                "E006",
                f"invalid escape `{source.text[bad : bad + 2]}` in a string",
                source.span(bad, bad + 2),
                label="not an escape of the language",
                notes=('escapes are `\\"`, `\\\\`, `\\n` and `\\t`',),
                help="write a backslash itself as `\\\\`",
            )
        return error(
            "E003",
            "unterminated string",
            source.span(pos, line_end),
            label='this string has no closing `"`',
            help='close the string on the same line: "..."',
        )
    shown = char if char.isprintable() else repr(char)
    expected = _expected(exc.allowed or ())
    return error(
        "E004",
        f"invalid character `{shown}`",
        source.span(pos, pos + 1),
        label=f"expected {expected}" if expected else "not part of the language",
        help=EQUALS_HELP
        if char in "=:"
        else "strings go in double quotes; comments start with `#`",
    )
