"""Typed reading of entry values (strings, names, numbers, quantities, dates, options)."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from cmpc import lazy
from cmpc.diagnostics import Diagnostic, Label, error
from cmpc.language import ranges, units
from cmpc.language.vocabulary import NAME_VALUED, W, is_word
from cmpc.source import Span
from cmpc.syntax import tree as st

if TYPE_CHECKING:
    import difflib
else:  # "did you mean": only a misspelt word needs it
    difflib = lazy.module("difflib")

A = TypeVar("A", bound=st.Atom)
# (canonical value, dimension, the atom written) of a quantity read
Quantity = tuple[float, units.Dimension, st.Quantity]


@dataclass(frozen=True)
class Field:
    """A key with its value atoms, from an entry or an inline `key value` option."""

    key: str
    atoms: tuple[st.Atom, ...]
    span: Span
    key_span: Span
    alternatives: tuple[st.Alternative, ...] = ()
    body: tuple[st.Entry, ...] | None = None
    body_span: Span | None = None

    @classmethod
    def of(cls, entry: st.Entry) -> Field:
        return cls(
            entry.key.value,
            entry.atoms,
            entry.span,
            entry.key.span,
            entry.alternatives,
            entry.body,
            entry.body_span,
        )

    @property
    def value_span(self) -> Span:
        if self.atoms:
            return self.atoms[0].span.to(self.atoms[-1].span)
        return self.key_span


def suggest(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate, if any is close enough to be a likely typo."""
    found = difflib.get_close_matches(word, sorted(set(candidates)), n=1, cutoff=0.6)
    return found[0] if found else None


def _is_name_valued(atom: st.Atom) -> bool:
    """An option key whose value is a name (`source`): the atom after it is never a key."""
    return isinstance(atom, st.Name) and atom.value in NAME_VALUED


def listing(words: Iterable[str]) -> str:
    return ", ".join(f"`{w}`" for w in words)


def describe(atom: st.Atom) -> str:
    """How an atom is named in 'found ...' messages."""
    if isinstance(atom, st.String):
        return f'the string "{atom.value}"'
    if isinstance(atom, st.Name):
        return f"the name `{atom.value}`"
    if isinstance(atom, st.Number):
        return f"the number `{atom.text}`"
    if isinstance(atom, st.Quantity):
        return f"`{atom.number.text} {atom.unit}`"
    if isinstance(atom, st.Date):
        return f"the date `{atom.text}`"
    return f"`{atom.text}`"


class Reader:
    """Reads typed values out of fields, collecting diagnostics instead of raising."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics

    # -- diagnostics ---------------------------------------------------------------------------

    def fail(self, code: str, message: str, span: Span, **kw: Any) -> None:
        self.diagnostics.append(error(code, message, span, **kw))

    def expect(self, field: Field, what: str, example: str) -> None:
        found = describe(field.atoms[0]) if field.atoms else "nothing"
        self.fail(
            "E107",
            f"`{field.key}` expects {what}, found {found}",
            field.value_span if field.atoms else field.span,
            label=f"expected {what}",
            help=f"write it like `{field.key} {example}`",
        )

    # -- single values -------------------------------------------------------------------------

    def _single(self, field: Field, kind: type[A], what: str, example: str) -> A | None:
        atom = field.atoms[0] if len(field.atoms) == 1 else None
        if isinstance(atom, kind) and not field.body:
            return atom
        self.expect(field, what, example)
        return None

    def text(self, field: Field, example: str = '"..."') -> str | None:
        atom = self._single(field, st.String, "a string", example)
        return atom.value if atom else None

    def text_or_name(self, field: Field, example: str = '"..."') -> str | None:
        if len(field.atoms) == 1 and isinstance(field.atoms[0], st.Name):
            return field.atoms[0].value
        return self.text(field, example)

    def word(
        self,
        field: Field,
        choices: Iterable[W],
        aliases: Mapping[str, W] | None = None,
    ) -> W | None:
        words = tuple(choices)
        atom = self._single(field, st.Name, "a name", words[0])
        if atom is None:
            return None
        return self.choose(atom, field.key, words, aliases)

    def choose(
        self,
        atom: st.Name,
        key: str,
        choices: tuple[W, ...],
        aliases: Mapping[str, W] | None = None,
    ) -> W | None:
        value = atom.value
        if aliases and value in aliases:
            return aliases[value]
        if is_word(value, choices):
            return value
        close = suggest(value, [*choices, *(aliases or {})])
        self.fail(
            "E107",
            f"`{value}` is not a valid `{key}`",
            atom.span,
            label="not one of the allowed values",
            notes=(f"allowed: {listing(choices)}",),
            help=f"did you mean `{close}`?" if close else None,
        )
        return None

    def number(
        self,
        field: Field,
        kind: ranges.Range = ranges.COUNT,
        *,
        integer: bool = False,
        positive: bool = True,
    ) -> Any:  # an int when `integer`, else a float
        atom = self._single(field, st.Number, "an integer" if integer else "a number", "8")
        if atom is None:
            return None
        return self.number_atom(atom, field.key, kind, integer=integer, positive=positive)

    def number_atom(
        self,
        atom: st.Number,
        key: str,
        kind: ranges.Range = ranges.COUNT,
        *,
        integer: bool = False,
        positive: bool = True,
    ) -> Any:  # an int when `integer`, else a float
        if integer and not atom.is_integer:
            self.fail("E107", f"`{key}` expects an integer, found `{atom.text}`", atom.span)
            return None
        value = atom.value  # float() of any text: a 5,000-digit integer is inf, not a ValueError
        if positive and value <= 0:
            self.fail(
                "E107",
                f"`{key}` must be positive, found `{atom.text}`",
                atom.span,
                label="must be greater than zero",
            )
            return None
        if not self.in_range(value, kind, key, f"`{atom.text}`", atom.span):
            return None
        return int(value) if integer else value  # in range, so exact

    def in_range(self, value: float, kind: ranges.Range, key: str, shown: str, span: Span) -> bool:
        """Whether a value is within its kind's finite range (E124 if not): every numeric slot
        is checked here, so no computation downstream meets an infinity or a denormal."""
        if kind.holds(value):
            return True
        self.fail(
            "E124",
            f"`{key}` is {shown}, outside the range cmpc accepts for {kind.what}",
            span,
            label="too large" if abs(value) > kind.high else "too small",
            notes=(f"{kind.what} must be between {kind.bounds()}",),
            help="check the number and its unit; docs/language.md lists every range",
        )
        return False

    def date(self, field: Field) -> str | None:
        atom = self._single(field, st.Date, "a date", "2026-10-09")
        return self.date_atom(atom) if atom else None

    def date_atom(self, atom: st.Date) -> str | None:
        try:
            datetime.date.fromisoformat(atom.text)
        except ValueError:
            self.fail(
                "E120",
                f"`{atom.text}` is not a calendar date",
                atom.span,
                label="no such day",
                help="dates are written YYYY-MM-DD, e.g. `2026-10-09`",
            )
            return None
        return atom.text

    def quantity(self, field: Field, *dims: units.Dimension) -> Quantity | None:
        """(canonical value, dimension, atom) of a one-quantity field, or None."""
        if len(field.atoms) == 1 and isinstance(field.atoms[0], st.Quantity):
            return self.quantity_atom(field.atoms[0], field.key, dims)
        unit = units.units_of(dims[0])[0]
        self.expect(field, dims[0].words, f"1 {unit}")
        return None

    def quantity_atom(
        self, atom: st.Quantity, key: str, dims: tuple[units.Dimension, ...]
    ) -> Quantity | None:
        found = units.lookup(atom.unit)
        if found is None:
            close = suggest(atom.unit, units.UNITS)
            self.fail(
                "E109",
                f"unknown unit `{atom.unit}`",
                atom.span,
                label="not a unit cmpc knows",
                help=f"did you mean `{close}`?"
                if close
                else "see the unit table in docs/language.md",
            )
            return None
        dimension, factor = found
        if dimension not in dims:
            wanted = " or ".join(d.words for d in dims)
            self.fail(
                "E108",
                f"`{key}` expects {wanted}, found {dimension.words.split(' (')[0]} `{atom.unit}`",
                atom.span,
                label=f"this is {dimension.words}",
                help=f"use a unit such as `{dims[0].canonical}`",
            )
            return None
        if atom.number.value <= 0 and dimension != units.FRACTION:
            self.fail(
                "E107",
                f"`{key}` must be positive, found `{atom.number.text} {atom.unit}`",
                atom.span,
                label="must be greater than zero",
            )
            return None
        value = units.convert(atom.number.text, factor)  # one rounding: `70%` is 0.7
        shown = f"`{atom.number.text} {atom.unit}`"
        if dimension != units.FRACTION and not self.in_range(
            value, ranges.of(dimension), key, shown, atom.span
        ):
            return None  # a percentage is checked by `fraction`, after its own interval
        return value, dimension, atom

    def fraction(self, field: Field, *, allow_zero: bool = False) -> float | None:
        got = self.quantity(field, units.FRACTION)
        if got is None:
            return None
        value = got[0]
        if value < 0 or (value == 0 and not allow_zero) or value > 1:
            interval = "[0, 100%]" if allow_zero else "(0, 100%]"
            self.fail(
                "E111",
                f"`{field.key}` is {got[2].number.text}%, outside {interval}",
                got[2].span,
                label=f"must be within {interval}",
            )
            return None
        shown = f"`{got[2].number.text}%`"
        if not self.in_range(value, ranges.of(units.FRACTION), field.key, shown, got[2].span):
            return None
        return value

    # -- options -------------------------------------------------------------------------------

    def options(
        self, field: Field, allowed: Mapping[str, bool]
    ) -> tuple[tuple[st.Atom, ...], dict[str, list[Field]]]:
        """Split a field into leading positional atoms and `key value...` options.

        Options come inline (`price 1.5 USD/gpu/h basis owning`) or from a body
        (`price 1.5 USD/gpu/h { basis owning }`); both forms mean the same.
        """
        positional: list[st.Atom] = []
        found: dict[str, list[Field]] = {}
        current: list[st.Atom] = []
        key_atom: st.Name | None = None

        def close() -> None:
            if key_atom is not None:
                atoms = tuple(current)
                span = key_atom.span.to(atoms[-1].span) if atoms else key_atom.span
                found.setdefault(key_atom.value, []).append(
                    Field(key_atom.value, atoms, span, key_atom.span)
                )

        for atom in field.atoms:
            names_a_value = key_atom is not None and key_atom.value in NAME_VALUED and not current
            if isinstance(atom, st.Name) and atom.value in allowed and not names_a_value:
                close()
                key_atom, current = atom, []
            elif key_atom is None:
                positional.append(atom)
            else:
                current.append(atom)
        close()
        for entry in field.body or ():
            found.setdefault(entry.key.value, []).append(Field.of(entry))
        self.check_keys(found, allowed, field.key)
        return tuple(positional), found

    def check_keys(
        self, found: dict[str, list[Field]], allowed: Mapping[str, bool], where: str
    ) -> None:
        """Unknown keys (with a suggestion) and repeated keys that may appear once."""
        for key in list(found):
            if key not in allowed:
                for f in found.pop(key):
                    close = suggest(key, allowed)
                    self.fail(
                        "E101",
                        f"unknown key `{key}` in `{where}`",
                        f.key_span,
                        label=f"`{where}` has no `{key}`",
                        notes=(f"`{where}` takes: {listing(allowed)}",),
                        help=f"did you mean `{close}`?" if close else None,
                    )
            elif not allowed[key] and len(found[key]) > 1:
                first = found[key][0]
                for dup in found[key][1:]:
                    line_note = "the first one is kept"
                    self.fail(
                        "E103",
                        f"`{key}` is given more than once in `{where}`",
                        dup.key_span,
                        label="given again here",
                        secondary=(Label(first.key_span, "first given here"),),
                        notes=(line_note,),
                        help=f"remove one of the `{key}` entries",
                    )
                found[key] = [first]

    def block(self, field: Field, allowed: Mapping[str, bool]) -> dict[str, list[Field]]:
        """The entries of a `{ ... }` body, keyed and checked."""
        found: dict[str, list[Field]] = {}
        for entry in field.body or ():
            for part in self._split_run_on(Field.of(entry), allowed):
                found.setdefault(part.key, []).append(part)
        self.check_keys(found, allowed, field.key)
        return found

    def _split_run_on(self, field: Field, allowed: Mapping[str, bool]) -> list[Field]:
        """Entries written on one line without `;` (`metric tpot statistic p90`): report, split."""
        atoms = field.atoms
        cut = next(
            (
                i
                for i, a in enumerate(atoms)
                if i > 0
                and isinstance(a, st.Name)
                and a.value in allowed
                and not _is_name_valued(atoms[i - 1])
                and not (field.key == "slo" and _names_statistic(atoms[i - 1]))
                and not (field.key == "interval" and a.value == "source")  # its own option
            ),
            None,
        )
        if cut is None or len(field.alternatives) > 1:
            return [field]
        key_atom = atoms[cut]
        assert isinstance(key_atom, st.Name)  # the cut is at a name
        self.fail(
            "E005",
            f"`{key_atom.value}` starts a new entry inside the value of `{field.key}`",
            key_atom.span,
            label="a second entry on the same line",
            help=f"end `{field.key} ...` with `;` or a new line before `{key_atom.value}`",
        )
        head = Field(
            field.key,
            atoms[:cut],
            field.key_span.to(atoms[cut - 1].span),
            field.key_span,
            (st.Alternative(atoms=atoms[:cut], span=atoms[0].span.to(atoms[cut - 1].span)),),
        )
        rest = st.Entry(
            key=st.Name(value=key_atom.value, span=key_atom.span),
            alternatives=(st.Alternative(atoms=atoms[cut + 1 :], span=key_atom.span),)
            if cut + 1 < len(atoms)
            else (),
            body=field.body,
            span=key_atom.span.to(field.span),
            body_span=field.body_span,
        )
        return [head, *self._split_run_on(Field.of(rest), allowed)]


def _names_statistic(atom: st.Atom) -> bool:
    """`p99` in `slo p99 ttft 2 s`: the metric after it is a limit's, not a new entry."""
    return (
        isinstance(atom, st.Name)
        and re.fullmatch(r"mean|median|p\d+(\.\d+)?", atom.value) is not None
    )
