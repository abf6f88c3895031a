"""One reading of a block against its declared keys: unknown, repeated and missing keys reported,
each declared key read by its kind, each missing one filled from its IR dataclass's default."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmpc.check.context import Context
from cmpc.check.statistics import one_statistic
from cmpc.check.values import Field
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


@dataclass(frozen=True)
class Block:
    """A decoded block: the fields given, and each declared key's value (read, else default)."""

    spec: V.BlockSpec
    fields: Mapping[str, tuple[Field, ...]]  # in the order written
    read: Mapping[str, Any]  # keys given and read: None where the value was malformed
    defaults: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        """The value read, or the IR default when the key is missing or its value malformed."""
        value = self.read.get(key)
        return self.defaults.get(key) if value is None else value

    def get(self, key: str) -> Any:
        """The value read, or None (missing or malformed): for defaults that depend on others."""
        return self.read.get(key)

    def field(self, key: str) -> Field | None:
        found = self.fields.get(key)
        return found[0] if found else None

    def all(self, key: str) -> tuple[Field, ...]:
        return self.fields.get(key, ())

    def __contains__(self, key: str) -> bool:
        return key in self.fields


def decode(ctx: Context, field: Field, spec: V.BlockSpec, model: type | None = None) -> Block:
    """Decode the `{ ... }` body of `field` against `spec`; `model` is the IR class it fills."""
    return _decode(ctx, field, spec, model, ctx.read.block(field, spec.allowed()))


def decode_options(
    ctx: Context, field: Field, spec: V.BlockSpec, model: type | None = None
) -> tuple[tuple[st.Atom, ...], Block]:
    """Decode an entry's `key value` options (inline or in a body); the positional atoms first."""
    positional, found = ctx.read.options(field, spec.allowed())
    return positional, _decode(ctx, field, spec, model, found)


def _decode(
    ctx: Context,
    field: Field,
    spec: V.BlockSpec,
    model: type | None,
    found: Mapping[str, list[Field]],
) -> Block:
    read: dict[str, Any] = {}
    for key in spec.keys:
        given = found.get(key.name)
        if not given:
            if key.required:
                example = f"add e.g. `{key.name} {key.example}`" if key.example else None
                ctx.fail(
                    "E106",
                    f"`{spec.name}` needs `{key.name}`",
                    field.key_span,
                    help=example,
                )
        elif key.kind not in ("value", "block") and not key.repeats:
            read[key.name] = _read(ctx, given[0], key)
    fields = {k: tuple(v) for k, v in found.items()}
    return Block(spec, fields, read, _defaults(spec, model))


def _read(ctx: Context, field: Field, key: V.KeySpec) -> Any:
    r = ctx.read
    if key.kind == "text":
        return r.text(field, key.example) if key.example else r.text(field)
    if key.kind == "word":
        return r.word(field, key.words, dict(key.aliases) or None)
    if key.kind == "date":
        return r.date(field)
    if key.kind == "integer":
        return r.number(field, key.range, integer=True)
    if key.kind == "number":
        return r.number(field, key.range)
    if key.kind in ("fraction", "share"):
        return r.fraction(field, allow_zero=key.kind == "share")
    if key.kind == "statistic":
        return one_statistic(ctx, field)
    assert key.kind == "quantity" and key.dimension is not None, key
    got = r.quantity(field, key.dimension)
    return got[0] if got else None


def _defaults(spec: V.BlockSpec, model: type | None) -> dict[str, Any]:
    """Each key's default: that of the IR field it fills, None where there is none."""
    if model is None or not dataclasses.is_dataclass(model):
        return {}
    declared = {f.name: f for f in dataclasses.fields(model)}
    out: dict[str, Any] = {}
    for key in spec.keys:
        f = declared.get(key.field or key.name)
        if f is None:
            continue
        if f.default is not dataclasses.MISSING:
            out[key.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[key.name] = f.default_factory()
    return out
