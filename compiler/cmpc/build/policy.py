"""Policy expressions over results.json paths: parsed and evaluated by cmpc itself, never eval.

The language (docs/policies.md): paths (`headline.throughput_ratio`, `systems.b300.gpus`,
`comparisons[0].winner`, `systems["my-gpu"].cost.usd_per_million_tokens`), literals (numbers,
"strings", true, false, null), `+ - * /`, comparisons `== != < <= > >=`, `and or not`,
parentheses and two functions, `abs(x)` and `len(x)`. A path only walks JSON objects and arrays:
there is no attribute access, no call but those two, and nothing from Python is reachable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

MAX_LENGTH = 1000  # characters in one expression
MAX_DEPTH = 32  # nesting of parentheses and operators (the parser recurses)

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<string>"[^"\\]*"|'[^'\\]*')
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | (?P<op>==|!=|<=|>=|<|>|\+|-|\*|/|\(|\)|\[|\]|\.|,)
    )""",
    re.X,
)
_KEYWORDS = {"and", "or", "not", "true", "false", "null"}
_FUNCTIONS = {"abs", "len"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


class PolicyError(Exception):
    """The expression is not in the language (a usage error, exit 2)."""


class PathMissing(Exception):
    """A path names a key the results do not have (a usage error: most often a typo)."""


class Undecidable(Exception):
    """The expression cannot be decided on these results (a null or a wrong type): it fails."""


# ---------------------------------------------------------------------------------------------
# The tree


@dataclass(frozen=True)
class Literal:
    """A number, string, boolean or null written in the expression."""

    value: object


@dataclass(frozen=True)
class Path:
    """A results path: keys (str) and array indices (int), from the document's root."""

    steps: tuple[str | int, ...]

    def text(self) -> str:
        out = ""
        for step in self.steps:
            if isinstance(step, int):
                out += f"[{step}]"
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step):
                out += ("." if out else "") + step
            else:
                out += f'["{step}"]'
        return out


@dataclass(frozen=True)
class Unary:
    """`not x` or `-x`."""

    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    """An arithmetic, comparison or boolean operator with its two operands."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    """`abs(x)` or `len(x)`."""

    function: str
    argument: Node


Node = Literal | Path | Unary | Binary | Call


@dataclass(frozen=True)
class Policy:
    """A parsed expression with the text it was written as."""

    text: str
    tree: Node


# ---------------------------------------------------------------------------------------------
# Parsing: recursive descent, one function per precedence level, depth bounded


def parse(text: str) -> Policy:
    """Parse an expression; raises PolicyError saying what is wrong and where."""
    if len(text) > MAX_LENGTH:
        raise PolicyError(f"the expression is longer than {MAX_LENGTH} characters")
    parser = _Parser(text, _tokens(text))
    tree = parser.expression(0)
    if parser.peek() is not None:
        raise PolicyError(f"unexpected `{parser.peek()}` at character {parser.position()}")
    return Policy(text, tree)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    tokens = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            start = pos + len(text[pos:]) - len(text[pos:].lstrip())
            raise PolicyError(f"unexpected character `{text[start]}` at character {start + 1}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind), match.start(kind) + 1))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text = text
        self.tokens = tokens
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def kind(self) -> str | None:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else None

    def position(self) -> int:
        return self.tokens[self.at][2] if self.at < len(self.tokens) else len(self.text) + 1

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None:
            raise PolicyError(
                "the expression ends too early" + (f": `{expected}` expected" if expected else "")
            )
        if expected is not None and token != expected:
            raise PolicyError(
                f"`{expected}` expected at character {self.position()}, not `{token}`"
            )
        self.at += 1
        return token

    def expression(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise PolicyError(f"the expression nests deeper than {MAX_DEPTH} levels")
        return self._or(depth + 1)

    def _or(self, depth: int) -> Node:
        node = self._and(depth)
        while self.peek() == "or":
            self.take()
            node = Binary("or", node, self._and(depth))
        return node

    def _and(self, depth: int) -> Node:
        node = self._not(depth)
        while self.peek() == "and":
            self.take()
            node = Binary("and", node, self._not(depth))
        return node

    def _not(self, depth: int) -> Node:
        if self.peek() == "not":
            self.take()
            return Unary("not", self._nested(depth, self._not))
        return self._compare(depth)

    def _compare(self, depth: int) -> Node:
        node = self._sum(depth)
        if self.peek() in _COMPARE and self.kind() == "op":
            op = self.take()
            node = Binary(op, node, self._sum(depth))
            if self.peek() in _COMPARE and self.kind() == "op":
                raise PolicyError(
                    f"comparisons do not chain (character {self.position()}): "
                    "write `a < b and b < c`"
                )
        return node

    def _sum(self, depth: int) -> Node:
        node = self._product(depth)
        while self.peek() in ("+", "-") and self.kind() == "op":
            op = self.take()
            node = Binary(op, node, self._product(depth))
        return node

    def _product(self, depth: int) -> Node:
        node = self._unary(depth)
        while self.peek() in ("*", "/") and self.kind() == "op":
            op = self.take()
            node = Binary(op, node, self._unary(depth))
        return node

    def _unary(self, depth: int) -> Node:
        if self.peek() == "-" and self.kind() == "op":
            self.take()
            return Unary("-", self._nested(depth, self._unary))
        return self._atom(depth)

    def _nested(self, depth: int, level: Callable[[int], Node]) -> Node:
        if depth > MAX_DEPTH:
            raise PolicyError(f"the expression nests deeper than {MAX_DEPTH} levels")
        return level(depth + 1)

    def _atom(self, depth: int) -> Node:
        kind, token = self.kind(), self.peek()
        if token is None:
            raise PolicyError("the expression ends too early: a value or path expected")
        if kind == "number":
            self.take()
            return Literal(float(token))
        if kind == "string":
            self.take()
            return Literal(token[1:-1])
        if token == "(":
            self.take()
            node = self.expression(depth)
            self.take(")")
            return node
        if kind == "name":
            if token in ("true", "false"):
                self.take()
                return Literal(token == "true")
            if token == "null":
                self.take()
                return Literal(None)
            if token in _KEYWORDS:
                raise PolicyError(
                    f"`{token}` at character {self.position()} needs a value before it"
                )
            self.take()
            if token in _FUNCTIONS and self.peek() == "(":
                self.take("(")
                argument = self.expression(depth)
                self.take(")")
                return Call(token, argument)
            return self._path(token)
        raise PolicyError(f"unexpected `{token}` at character {self.position()}")

    def _path(self, first: str) -> Path:
        steps: list[str | int] = [first]
        while self.peek() in (".", "["):
            if self.take() == ".":
                kind, token = self.kind(), self.peek()
                if kind == "name":
                    steps.append(self.take())
                elif kind == "number" and token is not None and token.isdigit():
                    steps.append(int(self.take()))
                else:
                    raise PolicyError(f"a key expected after `.` at character {self.position()}")
            else:
                kind, token = self.kind(), self.peek()
                if kind == "string" and token is not None:
                    steps.append(self.take()[1:-1])
                elif kind == "number" and token is not None and token.isdigit():
                    steps.append(int(self.take()))
                else:
                    raise PolicyError(
                        f'an index or "key" expected in `[ ]` at character {self.position()}'
                    )
                self.take("]")
        return Path(tuple(steps))


# ---------------------------------------------------------------------------------------------
# Evaluation: JSON values only


def evaluate(policy: Policy, document: Mapping[str, object]) -> bool:
    """The policy's truth on a results document.

    Raises PathMissing for a key the document lacks, Undecidable for a null or a type that the
    operator does not take (so the policy fails, and says why).
    """
    value = _value(policy.tree, document)
    if not isinstance(value, bool):
        raise Undecidable(f"`{policy.text}` is {_show(value)}, not true or false")
    return value


def paths(policy: Policy) -> list[Path]:
    """Every results path the policy reads, in order (to show their values beside a failure)."""
    found: list[Path] = []

    def walk(node: Node) -> None:
        if isinstance(node, Path):
            found.append(node)
        elif isinstance(node, Unary):
            walk(node.operand)
        elif isinstance(node, Binary):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, Call):
            walk(node.argument)

    walk(policy.tree)
    return list(dict.fromkeys(found))


def lookup(document: Mapping[str, object], steps: tuple[str | int, ...]) -> object:
    """The value at a path; PathMissing names the first step that is not there."""
    value: object = document
    for i, step in enumerate(steps):
        where = Path(steps[:i]).text() or "the results"
        if isinstance(step, int) and isinstance(value, list):
            if step >= len(value):
                raise PathMissing(f"`{where}` has {len(value)} items, so no [{step}]")
            value = value[step]
        elif isinstance(step, str) and isinstance(value, dict):
            if step not in value:
                keys = ", ".join(f"`{k}`" for k in sorted(value)[:12])
                raise PathMissing(f"`{where}` has no key `{step}` (it has {keys})")
            value = value[step]
        elif value is None:
            raise Undecidable(f"`{where}` is null")
        else:
            raise PathMissing(f"`{where}` is {_show(value)}, which has no `{step}`")
    return value


def _value(node: Node, document: Mapping[str, object]) -> object:
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Path):
        value = lookup(document, node.steps)
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if isinstance(node, Call):
        argument = _value(node.argument, document)
        if node.function == "abs":
            return abs(_number(argument, "abs"))
        if isinstance(argument, list | dict | str):
            return float(len(argument))
        raise Undecidable(f"len() of {_show(argument)}")
    if isinstance(node, Unary):
        operand = _value(node.operand, document)
        if node.op == "not":
            return not _boolean(operand, "not")
        return -_number(operand, "-")
    if node.op in ("and", "or"):
        first = _boolean(_value(node.left, document), node.op)
        if node.op == "and" and not first:
            return False
        if node.op == "or" and first:
            return True
        return _boolean(_value(node.right, document), node.op)
    left, right = _value(node.left, document), _value(node.right, document)
    if node.op == "==":
        return _same(left, right)
    if node.op == "!=":
        return not _same(left, right)
    a, b = _number(left, node.op), _number(right, node.op)
    if node.op == "<":
        return a < b
    if node.op == "<=":
        return a <= b
    if node.op == ">":
        return a > b
    if node.op == ">=":
        return a >= b
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if b == 0:
        raise Undecidable("division by zero")
    return a / b


def _same(left: object, right: object) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return left == right


def _number(value: object, op: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Undecidable(f"`{op}` needs numbers, not {_show(value)}")
    if not math.isfinite(value):
        raise Undecidable(f"`{op}` on a non-finite number")
    return float(value)


def _boolean(value: object, op: str) -> bool:
    if not isinstance(value, bool):
        raise Undecidable(f"`{op}` needs true or false, not {_show(value)}")
    return value


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return f'"{value[:60]}"'
    return "an array" if isinstance(value, list) else "an object"


def show(value: object) -> str:
    """A value as a policy message quotes it."""
    return _show(value)
