"""The LALR(1) parser and contextual lexer that run the shipped tables: lark's parse, without lark.

It mirrors what lark's `Lark(parser="lalr", lexer="contextual", propagate_positions=True)` does
with the same tables (scripts/parser_tables.py makes them from grammar/cmp.lark): the same tokens,
the same tree shapes and positions, and the same errors with the same expected terminals, which
tests/test_parser_tables.py checks against lark on every spec, fixture and thousands of cut ones.
"""

from __future__ import annotations

import re

from cmpc.syntax import tables

# One regex for every terminal, in lark's lexer order: at a position the first alternative that
# matches is the token lark's lexer of any state would take, when that state accepts it.
_ANY = re.compile("|".join(f"(?P<{name}>{regex})" for name, regex in tables.TERMINALS))
_REGEX = dict(tables.TERMINALS)
_IGNORE = frozenset(tables.IGNORE)
_LEXERS = tuple((names, frozenset(names)) for names in tables.LEXERS)
_ALONE: dict[str, re.Pattern[str]] = {}  # one terminal's regex, for the rare fallback


class Token:
    """A terminal matched in the text: lark's Token as the syntax builder reads it."""

    __slots__ = ("end_pos", "start_pos", "type", "value")

    def __init__(self, type_: str, value: str, start_pos: int, end_pos: int | None) -> None:
        self.type = type_
        self.value = value
        self.start_pos = start_pos
        self.end_pos = end_pos

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"


class Node:
    """A rule's tree: its name, kept children and the span of everything it matched."""

    __slots__ = ("children", "data", "end_pos", "start_pos")

    def __init__(self, data: str, children: list, start_pos: int | None, end_pos: int | None):
        self.data = data
        self.children = children
        self.start_pos = start_pos
        self.end_pos = end_pos

    def __repr__(self) -> str:
        return f"Node({self.data!r}, {self.children!r})"


class UnexpectedToken(Exception):
    """A token the parser cannot take here; `expected` and `accepts` as lark reports them."""

    def __init__(self, token: Token, expected: set[str], accepts: set[str]) -> None:
        super().__init__(f"unexpected {token!r}")
        self.token = token
        self.expected = expected
        self.accepts = accepts


class UnexpectedCharacters(Exception):
    """No terminal matches at `pos_in_stream`; `allowed` as lark's state lexer reports it."""

    def __init__(self, pos: int, allowed: set[str]) -> None:
        super().__init__(f"no terminal matches at {pos}")
        self.pos_in_stream = pos
        self.allowed = allowed


def parse(text: str) -> Node:
    """The tree of `text` (the `start` rule), or UnexpectedToken / UnexpectedCharacters."""
    actions = tables.ACTIONS
    stack = [tables.START]
    values: list = []
    pos, size, last = 0, len(text), None
    while pos < size:
        match = _ANY.match(text, pos)
        kind = match.lastgroup if match is not None else None
        order, accepted = _LEXERS[tables.STATE_LEXER[stack[-1]]]
        if match is None or kind not in accepted:
            found = _first_match(order, text, pos)
            if found is None:
                allowed = {name for name in order if name not in _IGNORE}
                if match is None or kind is None:
                    raise UnexpectedCharacters(pos, allowed or {"<END-OF-FILE>"})
                token = Token(kind, match.group(), pos, match.end())
                raise UnexpectedToken(token, allowed, _accepts(stack))
            match, kind = found
        end = match.end()
        if kind not in _IGNORE:
            last = Token(kind, match.group(), pos, end)
            _feed(actions, stack, values, last, False)
        pos = end
    if last is None:
        finish = Token("$END", "", 0, None)
    else:
        finish = Token("$END", "", last.start_pos, last.end_pos)
    return _feed(actions, stack, values, finish, True)


def _first_match(order: tuple[str, ...], text: str, pos: int) -> tuple[re.Match[str], str] | None:
    """The first of a state's terminals that matches at `pos` (lark's lexer of that state)."""
    for name in order:
        regex = _ALONE.get(name)
        if regex is None:
            regex = _ALONE[name] = re.compile(_REGEX[name])
        found = regex.match(text, pos)
        if found is not None:
            return found, name
    return None


def _feed(actions, stack: list[int], values: list, token: Token, is_end: bool):
    """lark's `ParserState.feed_token`: reduce as the table says, then shift (or finish)."""
    rules = tables.RULES
    while True:
        act = actions[stack[-1]].get(token.type)
        if act is None:
            expected = {s for s in actions[stack[-1]] if s.isupper()}
            raise UnexpectedToken(token, expected, _accepts(stack))
        if act >= 0:
            stack.append(act)
            values.append(token)
            return None
        origin, length, data, keep, expand1 = rules[~act]
        children = values[-length:] if length else []
        if length:
            del stack[-length:]
            del values[-length:]
        values.append(_node(data or origin, children, keep, expand1))
        stack.append(actions[stack[-1]][origin])
        if is_end and stack[-1] == tables.END:
            return values[-1]


def _node(data: str, children: list, keep, expand1: bool):
    """A rule's tree: kept children (inlined rules spliced in), spanning every matched child."""
    kept: list = []
    for index, splice in keep:
        child = children[index]
        if splice:
            kept.extend(child.children)
        else:
            kept.append(child)
    if expand1 and len(kept) == 1:
        return kept[0]
    start = end = None
    for child in children:
        if child.start_pos is not None:
            start = child.start_pos
            break
    for child in reversed(children):
        if child.start_pos is not None:
            end = child.end_pos
            break
    return Node(data, kept, start, end)


def _accepts(stack: list[int]) -> set[str]:
    """lark's `InteractiveParser.accepts`: the terminals this state would take after reducing."""
    actions = tables.ACTIONS
    return {
        name for name in actions[stack[-1]] if name.isupper() and _takes(actions, list(stack), name)
    }


def _takes(actions, stack: list[int], name: str) -> bool:
    """Whether feeding terminal `name` shifts (or, for `$END`, completes the parse)."""
    rules = tables.RULES
    while True:
        act = actions[stack[-1]].get(name)
        if act is None:
            return False
        if act >= 0:
            return True
        origin, length, *_ = rules[~act]
        if length:
            del stack[-length:]
        stack.append(actions[stack[-1]][origin])
        if name == "$END" and stack[-1] == tables.END:
            return True
