"""The types that carry meaning agree with what they describe: word sets with the vocabulary and
the IR schema's enums, the results TypedDicts with results.schema.json."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path

import pytest

from cmpc.ir import model as ir
from cmpc.language import vocabulary as V

SCHEMAS = Path(__file__).resolve().parents[1] / "compiler" / "cmpc" / "schemas"

# Each IR dataclass and the ir.schema.json definition that describes it.
IR_DEFS = {
    ir.Source: "source",
    ir.Target: "target",
    ir.Latency: "latency",
    ir.Tokens: "tokens",
    ir.Normalization: "normalize",
    ir.Price: "price",
    ir.Power: "power",
    ir.Tco: "tco",
    ir.Pool: "pool",
    ir.Parallelism: "parallelism",
    ir.Runs: "runs",
    ir.ReportedPoint: "reported_point",
    ir.Reported: "reported",
    ir.System: "system",
    ir.Cost: "cost",
    ir.Capacity: "capacity",
    ir.Claim: "claim",
    ir.Alternative: "alternative",
    ir.SensitivityAxis: "sensitivity_axis",
}

# Each word tuple the checker offers and the Literal type the IR holds.
WORD_SETS = [
    (V.ROLES, V.Role),
    (V.STATUSES, V.Status),
    (V.METRICS, V.Metric),
    (V.TTFT_MODES, V.TtftMode),
    (V.READ_METHODS, V.ReadMethod),
    (V.PERCENTILE_METHODS, V.PercentileMethod),
    (V.TOKEN_KINDS, V.TokenKind),
    (V.REUSED_MODES, V.ReusedMode),
    (V.NORMALIZATIONS, V.NormalizeUnit),
    (V.POWER_BASES, V.PowerBasis),
    (V.PRICE_BASES, V.PriceBasis),
    (V.COST_BASES, V.CostBasis),
    (V.CLAIM_KINDS, V.ClaimKind),
    (V.SCOPES, V.Scope),
    (V.FORMATS, V.Format),
    (tuple(V.SENSITIVITY_KEYS), V.SensitivityParameter),
]


def _words(hint: object) -> set[object] | None:
    """The words of a Literal field (`W`, `W | None`, `tuple[W, ...]`), else None."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return set(typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        found: set[object] = set()
        words = False
        for arg in typing.get_args(hint):
            inner = _words(arg)
            if inner is not None:
                words = True
                found |= inner
            elif arg is type(None):
                found.add(None)
        return found if words else None
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return _words(args[0])
    return None


def _enum(schema: dict) -> set[object] | None:
    if "enum" in schema:
        return set(schema["enum"])
    if "items" in schema:
        return _enum(schema["items"])
    return None


def _literal_fields() -> list[tuple[str, str, set[object] | None, set[object] | None]]:
    defs = json.loads((SCHEMAS / "ir.schema.json").read_text())["$defs"]
    rows = []
    for cls, name in IR_DEFS.items():
        hints = typing.get_type_hints(cls)
        properties = defs[name]["properties"]
        for f in dataclasses.fields(cls):
            words = _words(hints[f.name])
            enum = _enum(properties.get(f.name, {}))
            if words is not None or enum is not None:
                rows.append((cls.__name__, f.name, words, enum))
    return rows


@pytest.mark.parametrize(("cls", "name", "words", "enum"), _literal_fields())
def test_ir_word_sets_match_the_schema_enums(cls, name, words, enum):
    # a field the schema closes must be a Literal in the IR and vice versa, with the same words
    assert words == enum, f"{cls}.{name}"


def test_every_ir_dataclass_is_described():
    defined = {c for c in vars(ir).values() if dataclasses.is_dataclass(c)}
    assert defined - set(IR_DEFS) == {ir.Comparison}


@pytest.mark.parametrize(("words", "literal"), WORD_SETS, ids=lambda w: str(w)[:30])
def test_vocabulary_tuples_are_their_literal_types(words, literal):
    assert words == typing.get_args(literal)


def test_the_role_words_include_synthetic():
    # the comment this type replaced (`self | third_party | vendor`) had drifted
    assert "synthetic" in typing.get_args(typing.get_type_hints(ir.Source)["role"])
