"""What every block's checker shares: the diagnostics, the IR origins, the declared names."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cmpc.check.values import Field, Reader, listing, suggest
from cmpc.diagnostics import Diagnostic, Label, error, warning
from cmpc.ir import model as ir
from cmpc.limits import Limits
from cmpc.source import Span
from cmpc.syntax import tree as st
from cmpc.syntax.printer import atom_text


@dataclass(frozen=True)
class Context:
    """The sinks a check writes to, and the names declared before the block being read.

    `sources` and `systems` are known once the comparison's top level is read; the blocks that
    resolve references get a context made `with_names`, sharing the same sinks.
    """

    diagnostics: list[Diagnostic] = field(default_factory=list)
    origins: dict[str, Span] = field(default_factory=dict)
    sources: Mapping[str, ir.Source] = field(default_factory=dict)
    systems: tuple[str, ...] = ()

    @property
    def read(self) -> Reader:
        return Reader(self.diagnostics)

    @property
    def source_names(self) -> frozenset[str]:
        return frozenset(self.sources)

    def with_names(self, sources: Mapping[str, ir.Source], systems: Sequence[str]) -> Context:
        return dataclasses.replace(self, sources=dict(sources), systems=tuple(systems))

    def fail(self, code: str, message: str, span: Span, **kw: Any) -> None:
        self.diagnostics.append(error(code, message, span, **kw))

    def warn(self, code: str, message: str, span: Span, **kw: Any) -> None:
        self.diagnostics.append(warning(code, message, span, **kw))

    def origin(self, pointer: str, span: Span) -> None:
        """Where the IR value at a JSON pointer came from (the first span given wins)."""
        self.origins.setdefault(pointer, span)


def too_many(ctx: Context, kind: str, fields: Sequence[Field], limit: int, name: str) -> None:
    if len(fields) > limit:
        ctx.fail(
            "E123",
            f"the spec declares {len(fields)} {kind}s, more than the limit of {limit}",
            fields[limit].key_span,
            label=f"{kind} number {limit + 1}",
            help=f"split the comparison, or raise {Limits.variable(name)}",
        )


def entry_name(ctx: Context, field: Field) -> str | None:
    if len(field.atoms) == 1 and isinstance(field.atoms[0], st.Name):
        return field.atoms[0].value
    ctx.read.expect(field, "a name", f"my_{field.key} {{ ... }}")
    return None


def unique(ctx: Context, kind: str, fields: Sequence[Field]) -> None:
    seen: dict[str, Field] = {}
    for f in fields:
        if len(f.atoms) == 1 and isinstance(f.atoms[0], st.Name):
            name = f.atoms[0].value
            if name in seen:
                ctx.fail(
                    "E102",
                    f"{kind} `{name}` is declared twice",
                    f.atoms[0].span,
                    label="declared again here",
                    secondary=(Label(seen[name].atoms[0].span, "first declared here"),),
                    notes=(f"{kind} names must be unique within a spec",),
                    help=f"rename one of the two `{kind} {name}` blocks",
                )
            else:
                seen[name] = f


def ref(ctx: Context, atom: st.Atom, kind: str, names: Collection[str], key: str) -> str | None:
    """Resolve a reference to a declared system or source, with a suggestion."""
    code = "E104" if kind == "system" else "E105"
    if not isinstance(atom, st.Name):
        ctx.fail(code, f"`{key}` expects the name of a {kind}", atom.span)
        return None
    if atom.value in names:
        return atom.value
    close = suggest(atom.value, names)
    ctx.fail(
        code,
        f"unknown {kind} `{atom.value}`",
        atom.span,
        label="not declared in this spec",
        notes=(
            f"declared {kind}s: {listing(sorted(names))}" if names else f"no {kind}s are declared",
        ),
        help=f"did you mean `{close}`?"
        if close
        else f"declare it with `{kind} {atom.value} {{ ... }}`",
    )
    return None


def is_unknown(field: Field | None) -> bool:
    """`unknown` written as a value: stated as not published."""
    atoms = field.atoms if field else ()
    return len(atoms) == 1 and isinstance(atoms[0], st.Name) and atoms[0].value == "unknown"


def text_of(atom: st.Atom) -> str:
    """An atom as plain text: a string's value, any other atom as written."""
    return atom.value if isinstance(atom, st.String) else atom_text(atom)


def joined(atoms: Sequence[st.Atom]) -> str:
    return " ".join(text_of(a) for a in atoms)
