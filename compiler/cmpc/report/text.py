"""Number formatting and Markdown escaping: the one place where report numbers are rounded."""

from __future__ import annotations

import math
import operator
import re
import string
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, SupportsIndex
from urllib.parse import quote

from cmpc.safe_text import HIDDEN_TEXT, NUMBER_TEXT, visible

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

DASH = "n/a"


class Md(str):
    """Text that is already Markdown (escaped or built by cmpc); printed as is.

    Composing it escapes the other side, as `markupsafe.Markup` does for HTML: `+`, `%`,
    `.format` and `.join` pass every argument that is not `Md` through `escape`, so spec text
    spliced into cmpc's Markdown is always escaped. (It has no `__html__`: to HTML it is text.)
    """

    __slots__ = ()

    def __add__(self, other: object) -> Md:
        if isinstance(other, str):
            return Md(str.__add__(self, escape(other)))
        return NotImplemented

    def __radd__(self, other: object) -> Md:
        if isinstance(other, str):
            return Md(str.__add__(escape(other), self))
        return NotImplemented

    def __mul__(self, count: SupportsIndex) -> Md:
        return Md(str.__mul__(self, count))

    __rmul__ = __mul__

    def __mod__(self, args: object) -> Md:
        if isinstance(args, tuple):
            escaped: object = tuple(_Escaped(a) for a in args)
        elif isinstance(args, Mapping):
            escaped = {k: _Escaped(v) for k, v in args.items()}
        else:
            escaped = _Escaped(args)
        return Md(str.__mod__(self, escaped))

    def join(self, iterable: Iterable[object]) -> Md:
        return Md(str.join(self, (escape(item) for item in iterable)))

    def format(self, *args: object, **kwargs: object) -> Md:
        return Md(_FORMATTER.vformat(self, args, kwargs))

    def format_map(self, mapping: Mapping[str, object]) -> Md:  # type: ignore[override]
        return Md(_FORMATTER.vformat(self, (), mapping))


class _EscapingFormatter(string.Formatter):
    """`str.format` whose fields are escaped unless they are `Md` already."""

    def format_field(self, value: object, format_spec: str) -> Md:
        if isinstance(value, Md):
            return Md(format(str(value), format_spec))
        return escape(format(value, format_spec))


_FORMATTER = _EscapingFormatter()


class _Escaped:
    """A `%` argument: escaped as `%s` and `%r`, still a number to `%d` and `%f`."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __str__(self) -> str:
        return escape(self.value)

    def __repr__(self) -> str:
        return escape(repr(self.value))

    def __int__(self) -> int:
        return int(self.value)  # type: ignore[call-overload]

    def __float__(self) -> float:
        return float(self.value)  # type: ignore[arg-type]

    def __index__(self) -> int:
        return operator.index(self.value)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# Escaping

SPECIAL = re.compile(r"([\\`*_{}\[\]<>|&~!$])")
# SPECIAL.sub(r"\\\1", text) as one C pass: each special character, a backslash before it (the
# template's substitution runs in Python per call: 3 µs of every escape, 480 in a report)
_BACKSLASHED = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>|&~!$"})
_LINE_START = re.compile(r"^(\s*)([#+\-]|\d+(?=[.)](?:\s|$)))(?=\s|$|[.)])")
# compiled by the module's body, as every report pattern is: cmpc/_recache.py keeps the program
# of those alone (a pattern compiled in a function is parsed afresh by each process)
_CODE_SPAN = re.compile(r"`([^`]+)`")
_BACKTICKS = re.compile(r"`+")
_NOT_KEY = re.compile(r"[^a-z0-9]+")
# safe_text compiles these two at their first use (`cmpc check` seldom needs them; their parse
# is 1.2 ms), which every build's rendering reaches: compiled here, their programs are kept too,
# and re's own cache hands safe_text the same Pattern objects
_HIDDEN = re.compile(HIDDEN_TEXT)
_NUMBER = re.compile(NUMBER_TEXT)


def escape(value: object) -> Md:
    """Spec text made inert in Markdown and HTML: one line, every markup character escaped,
    hidden characters (bidi controls, zero-width) written out as `\\u202E`."""
    if isinstance(value, Md):
        return value
    text = visible(" ".join(str(value).split()))
    if SPECIAL.search(text):  # rare in report text: a search is a seventh of a translation
        text = text.translate(_BACKSLASHED)
    match = _LINE_START.match(text)
    if match:
        lead, mark = match.group(1), match.group(2)
        if mark[0].isdigit():
            rest = text[len(lead) + len(mark) :]
            text = f"{lead}{mark}\\{rest}"
        else:
            text = f"{lead}\\{text[len(lead) :]}"
    return Md(text)


def escape_prose(value: object) -> Md:
    """cmpc's own prose (analysis notes): `spans` stay code spans, everything else is escaped."""
    if isinstance(value, Md):
        return value
    parts = _CODE_SPAN.split(visible(" ".join(str(value).split())))
    return Md("".join(code(p) if i % 2 else _spaced(p) for i, p in enumerate(parts)))


def _spaced(text: str) -> str:
    """Escaped text that keeps the single spaces around it (next to code spans)."""
    if not text.strip():
        return text
    lead = " " if text.startswith(" ") else ""
    trail = " " if text.endswith(" ") else ""
    return f"{lead}{escape(text)}{trail}"


def code(value: object, in_table: bool = True) -> Md:
    """An identifier or a file name as a code span (fenced with more backticks than it holds):
    every character kept, hidden ones written out; `|` escaped where it would end a table cell
    (GFM reads `\\|` as `|` in a table, also in a code span, and as two characters elsewhere)."""
    text = visible(value)
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    edges = text[:1] + text[-1:]
    pad = " " if "`" in edges or edges == "  " else ""  # CommonMark strips one space a side
    return Md(f"{fence}{pad}{text}{pad}{fence}")


_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)


def link(text: object, url: object) -> Md:
    """A link when the URL is http(s); otherwise the text followed by the escaped address."""
    label = escape(text)
    if url is None:
        return label
    url = str(url)
    if _URL.match(url):
        target = quote(url, safe=":/?#@$&'*+,;=%-._~")
        return Md(f"[{label}]({target})")
    return Md(f"{label} ({escape(url)})")


def capitalized(text: Md) -> Md:
    """Markdown with its first letter capitalized (a clause turned into a sentence)."""
    return Md(text[:1].upper() + text[1:])


def footnote_key(name: object) -> str:
    """A footnote label made of lowercase letters, digits and hyphens only."""
    key = _NOT_KEY.sub("-", str(name).lower()).strip("-")
    return key or "x"


# ---------------------------------------------------------------------------------------------
# Numbers (every number a report shows goes through one of these)


def _finite(x: object) -> TypeIs[float]:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _trim(text: str) -> str:
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def percent(fraction: object, digits: int = 1, signed: bool = False) -> Md:
    """A fraction as a percentage, rounded once, here: 0.1961 -> '19.6%', 0.02 -> '2.0%'."""
    if not _finite(fraction):
        return Md(DASH)
    value = round(fraction * 100, digits)
    if value == 0:
        value = 0.0  # no "-0.0%"
    text = f"{abs(value):.{digits}f}%"  # one precision throughout: 2.0%, never 2%
    if value < 0:
        return Md("\u2212" + text)
    return Md(("+" if signed and value > 0 else "") + text)


def number(x: object, digits: int | None = None) -> Md:
    """A plain quantity: thousands separators, fewer decimals as numbers grow."""
    if x is None:
        return Md(DASH)
    if isinstance(x, float) and math.isinf(x):
        return Md("\u221e" if x > 0 else "\u2212\u221e")
    if not _finite(x):
        return Md(DASH)
    if isinstance(x, int):
        return Md(f"{x:,}")
    size = abs(x)
    if digits is None:
        if size >= 1e9:
            mantissa, exponent = f"{x:.3e}".split("e")
            return Md(f"{_trim(mantissa)} \u00d7 10^{int(exponent)}")
        digits = 1 if size >= 100 else 2 if size >= 1 else 3
        if 0 < size < 0.001:
            return Md(f"{x:.3g}")
    text = _trim(f"{x:,.{digits}f}")
    return Md("\u2212" + text[1:] if text.startswith("-") else text)


def column_digits(values: Iterable[object]) -> int:
    """The decimals one column shows: those its most precise value would get from `number`."""
    digits = 0
    for x in values:
        if _finite(x) and not float(x).is_integer() and abs(x) < 1e9:
            size = abs(x)
            digits = max(digits, 1 if size >= 100 else 2 if size >= 1 else 3)
    return digits


def fixed(digits: int) -> Callable[[object], Md]:
    """`number` with exactly `digits` decimals, zeros kept: every value of a column alike."""

    def shown(x: object) -> Md:
        if not _finite(x) or abs(x) >= 1e9:
            return number(x)
        text = f"{round(x, digits) + 0.0:,.{digits}f}"  # + 0.0: never "-0.00"
        return Md("\u2212" + text[1:] if text.startswith("-") else text)

    return shown


def ratio(x: object) -> Md:
    """A ratio to three decimals: 1.244, 0.804."""
    if x is not None and isinstance(x, float) and math.isinf(x):
        return Md("\u221e")
    if not _finite(x):
        return Md(DASH)
    return Md(f"{x:.3f}")


def usd(x: object) -> Md:
    """Dollars: two decimals from $1, three significant digits below."""
    if x is not None and isinstance(x, float) and math.isinf(x):
        return Md("\u221e")
    if not _finite(x):
        return Md(DASH)
    if abs(x) >= 1000:
        return Md(f"${x:,.0f}")
    if abs(x) >= 1:
        return Md(f"${x:,.2f}")
    if abs(x * 100 - round(x * 100)) < 1e-9:
        return Md(f"${x:.2f}")  # a price in whole cents: $0.20
    text = f"{x:#.3g}"  # three significant digits, trailing zeros kept: $0.440
    return Md(f"${text}" if "e" not in text else f"${x:.3g}")


def gigabytes(x: object) -> Md:
    """Bytes in GB (10^9)."""
    if not _finite(x):
        return Md(DASH)
    return Md(f"{number(x / 1e9)} GB")


def csv_value(x: object) -> str:
    """A value as figures.csv stores it: full precision, the same on every platform."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    return str(x)
