"""The `tokens` accounting block and the `normalize` entry."""

from __future__ import annotations

from collections.abc import Sequence

from cmpc.check.context import (
    Context,
)
from cmpc.check.decode import decode
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st


def token_sum(
    ctx: Context, atoms: Sequence[st.Atom], key: str, span: Span
) -> tuple[V.TokenKind, ...] | None:
    kinds: list[V.TokenKind] = []
    expect_word = True
    for atom in atoms:
        if expect_word and isinstance(atom, st.Name):
            if atom.value == "total":
                kinds += ["input", "output"]
            else:
                kind = ctx.read.choose(atom, key, V.TOKEN_KINDS)
                if kind is None:
                    return None
                kinds.append(kind)
        elif not expect_word and isinstance(atom, st.Symbol) and atom.text == "+":
            pass
        else:
            ctx.fail(
                "E107",
                f"`{key}` expects token kinds joined by `+`",
                atom.span,
                help=f"write it like `{key} input + output`",
            )
            return None
        expect_word = not expect_word
    if not kinds or expect_word:
        ctx.fail("E107", f"`{key}` expects token kinds joined by `+`", span)
        return None
    ordered = tuple(k for k in V.TOKEN_KINDS if k in kinds)
    if "input" in ordered and ("uncached_input" in ordered or "cached_input" in ordered):
        ctx.fail(
            "E107",
            "`input` already counts cached and uncached input",
            span,
            help="count `input`, or `uncached_input` (+ `cached_input`), not both",
        )
        return None
    return ordered


def read_tokens(ctx: Context, field: Field) -> ir.Tokens:
    ctx.origin("/tokens", field.span)
    block = decode(ctx, field, V.TOKENS, ir.Tokens)
    count: tuple[V.TokenKind, ...] = block["count"]
    given = block.field("count")
    if given is not None:
        count = token_sum(ctx, given.atoms, "count", given.span) or count
    reused: V.ReusedMode = block.get("reused") or (
        "excluded" if "uncached_input" in count else "included"
    )
    return ir.Tokens(count=count, reused=reused, hit_rate_margin=block["hit_rate_margin"])


def read_normalize(ctx: Context, field: Field) -> ir.Normalization:
    ctx.origin("/normalize", field.span)
    atoms = list(field.atoms)
    if atoms and isinstance(atoms[0], st.Name) and atoms[0].value == "per":
        atoms = atoms[1:]
    basis = None
    if len(atoms) >= 3 and isinstance(atoms[1], st.Name) and atoms[1].value == "basis":
        basis_atom = atoms[2]
        if isinstance(basis_atom, st.Name):
            basis = ctx.read.choose(basis_atom, "basis", V.POWER_BASES)
        atoms = atoms[:1] + atoms[3:]
    if len(atoms) != 1 or not isinstance(atoms[0], st.Name):
        ctx.read.expect(field, "a normalization unit", "per gpu")
        return ir.Normalization()
    per = ctx.read.choose(atoms[0], "normalize", V.NORMALIZATIONS) or "gpu"
    return ir.Normalization(per=per, power_basis=basis)
