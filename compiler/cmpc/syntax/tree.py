"""The syntax tree of a spec: frozen dataclasses with spans that do not take part in equality."""

from __future__ import annotations

from dataclasses import dataclass, field

from cmpc.source import Span

NO_SPAN = Span("", 0, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Name:
    """A bare word: a key, a system name, an enum value (`tpot`, `p90`, `owning`)."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class String:
    """A double-quoted string; `value` is unescaped."""

    value: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Number:
    """A number exactly as written (`1.50`, `155e12`), so printing keeps the author's digits."""

    text: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def value(self) -> float:
        return float(self.text)

    @property
    def is_integer(self) -> bool:
        return self.text.lstrip("+-").isdigit()


@dataclass(frozen=True, slots=True, kw_only=True)
class Quantity:
    """A number with a unit: `20 ms`, `1.50 USD/gpu/h`, `60%`."""

    number: Number
    unit: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Date:
    """An ISO calendar date literal (`2026-10-09`), kept as text."""

    text: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Symbol:
    """An operator inside a value: `+` (a sum of token kinds) or `,` (a list)."""

    text: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


Atom = Name | String | Number | Quantity | Date | Symbol


@dataclass(frozen=True, slots=True, kw_only=True)
class Alternative:
    """One `|`-separated choice of a value: a sequence of atoms."""

    atoms: tuple[Atom, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """`key value... [| value...] [{ entry... }]`: the one shape every line of a spec has."""

    key: Name
    alternatives: tuple[Alternative, ...] = ()
    body: tuple[Entry, ...] | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    body_span: Span | None = field(default=None, compare=False, repr=False)

    @property
    def atoms(self) -> tuple[Atom, ...]:
        """The atoms of the first (usually only) alternative."""
        return self.alternatives[0].atoms if self.alternatives else ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Comment:
    """A `#` comment, kept so `cmpc fmt` can put it back."""

    text: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Spec:
    """A parsed spec file: its single top-level entry and its comments."""

    root: Entry
    comments: tuple[Comment, ...] = field(default=(), compare=False)
