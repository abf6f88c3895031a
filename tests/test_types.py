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
    ir.PublishedInterval: "published_interval",
    ir.Reported: "reported",
    ir.System: "system",
    ir.Cost: "cost",
    ir.Capacity: "capacity",
    ir.Claim: "claim",
    ir.Alternative: "alternative",
    ir.SensitivityAxis: "sensitivity_axis",
    ir.Uncertainty: "uncertainty",
    ir.Fleet: "fleet",
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
    (V.INTERVAL_FIGURES, V.IntervalFigure),
    (V.SENSITIVITY_PARAMETERS, V.SensitivityParameter),
    (V.INTERVAL_METHODS, V.IntervalMethod),
    # `tie` (the tie band) is the one sensitivity key that is not a parameter
    (tuple(k for k in V.SENSITIVITY_KEYS if k != "tie"), V.SensitivityParameter),
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


# -- results: TypedDicts <-> results.schema.json ---------------------------------------------


def _results_schema() -> dict:
    return json.loads((SCHEMAS / "results.schema.json").read_text())


def _bare(hint: object) -> object:
    """`X | None` -> X (the schema spells the null as a second alternative)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _object(node: dict, schema: dict) -> dict:
    """The object schema in `node`, through `$ref` and an `anyOf` with null."""
    ref = node.get("$ref", "")
    if ref.startswith("#/$defs/"):
        return _object(schema["$defs"][ref.removeprefix("#/$defs/")], schema)
    for alternative in node.get("anyOf", ()):
        if alternative.get("type") != "null":
            return _object(alternative, schema)
    return node


def _typed_objects(td: type, node: dict, schema: dict, path: str = ""):
    """(path, TypedDict, its schema object) for `td` and every TypedDict inside it."""
    node = _object(node, schema)
    yield path or "/", td, node
    properties = node.get("properties", {})
    for key, hint in typing.get_type_hints(td).items():
        inner, sub = _bare(hint), properties.get(key, {})
        origin = typing.get_origin(inner)
        if origin is list:
            inner, sub = typing.get_args(inner)[0], _object(sub, schema).get("items", {})
        elif origin is dict:
            inner, sub = (
                typing.get_args(inner)[1],
                _object(sub, schema).get("additionalProperties", {}),
            )
        inner = _bare(inner)
        if isinstance(inner, type) and typing.is_typeddict(inner):
            yield from _typed_objects(inner, sub, schema, f"{path}/{key}")


def _all_typed_objects():
    from cmpc.analysis import types as T

    schema = _results_schema()
    return list(_typed_objects(T.Results, schema, schema))


@pytest.mark.parametrize(
    ("path", "td", "node"), _all_typed_objects(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_results_typeddicts_mirror_the_schema(path, td, node):
    assert set(node.get("properties", {})) == set(typing.get_type_hints(td)), path
    assert set(node.get("required", ())) == set(td.__required_keys__), path
    # closed, so a key the types lack fails the schema validation of a build
    assert node.get("additionalProperties") is False, path


def test_the_walk_reaches_every_results_typeddict():
    from cmpc.analysis import types as T

    every = {v for v in vars(T).values() if isinstance(v, type) and typing.is_typeddict(v)}
    reached = {td for _, td, _ in _all_typed_objects()}
    assert every - reached == {T.Analysis, T.HeadlineUncertainty}  # Results, Headline extend them


TCO_SPEC = """
comparison "owned or rented" {
  baseline rented
  latency { metric tpot; statistic p90; target 30 tok/s/user; slo ttft 1 s tpot 50 ms }
  capacity { weights 140 GB; layers 80; kv_heads 8; head_dim 128; context 8192; concurrency 16 }
  system owned {
    accelerator "A" x 8
    memory 192 GB
    power 1.2 kW basis provisioned
    tco { capex 40000 USD/gpu; years 4; power 1.2 kW; pue 1.3; electricity 0.08 USD/kWh }
    runs "data/synthetic/alpha/*.jsonl" format cmpc
  }
  system rented {
    accelerator "B" x 8
    memory 288 GB
    price 2.50 USD/gpu/h basis rental
    runs "data/synthetic/beta/*.jsonl" format cmpc
  }
  claim tokens_day { value 1e12 tokens/day; scope cluster; gpus 64 }
  claim offpeak { value 3 USD/gpu/h; kind revenue; scope gpu }
}
"""


def test_a_build_with_every_optional_part_matches_the_results_schema(tmp_path, in_repo):
    import shutil

    import jsonschema
    from referencing import Registry, Resource

    from cmpc.build.pipeline import build_spec

    repo = SCHEMAS.parents[2]
    shutil.copytree(repo / "specs" / "data" / "synthetic", tmp_path / "data" / "synthetic")
    (tmp_path / "tco.cmp").write_text(TCO_SPEC)
    outcome = build_spec(str(tmp_path / "tco.cmp"), out_dir=str(tmp_path / "out"), render=False)
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    owned = results["systems"]["owned"]
    assert "tco" in owned["cost"]["price"] and owned["goodput"] and owned["energy"]
    assert results["capacity"] and results["claim_combinations"]
    ir = json.loads((SCHEMAS / "ir.schema.json").read_text())
    registry = Registry().with_resource(ir["$id"], Resource.from_contents(ir))
    jsonschema.Draft202012Validator(_results_schema(), registry=registry).validate(results)
