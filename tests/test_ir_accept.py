"""`ir.accept` says yes exactly when jsonschema finds no error, on real IRs and damaged ones."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from cmpc.compile import compile_source
from cmpc.ir.accept import accepts
from cmpc.ir.schema import ir_schema
from cmpc.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
SPECS = (
    sorted(ROOT.glob("specs/*.cmp"))
    + sorted(ROOT.glob("tests/*/*.cmp"))
    + [ROOT / "compiler/cmpc/verbs/starter.cmp"]
)
REPLACEMENTS = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2.5,
    -0.5,
    1e300,
    "",
    "x",
    "p90",
    [],
    {},
    [1],
    {"a": 1},
)


def _documents() -> list[tuple[str, dict]]:
    found = []
    for path in SPECS:
        comparison, _ = compile_source(SourceFile(str(path), path.read_text(encoding="utf-8")))
        if comparison is not None:
            found.append((path.relative_to(ROOT).as_posix(), comparison.to_json()))
    return found


DOCUMENTS = _documents()
VALIDATOR = Draft202012Validator(ir_schema())


def _valid(document: object) -> bool:
    return not any(True for _ in VALIDATOR.iter_errors(document))


def _places(document: object, path: tuple = ()) -> list[tuple]:
    """Every path to a value in the document (object keys and list indices)."""
    places = [path]
    if isinstance(document, dict):
        for key, value in document.items():
            places += _places(value, (*path, key))
    elif isinstance(document, list):
        for i, value in enumerate(document):
            places += _places(value, (*path, i))
    return places


def _mutated(document: dict, rng: random.Random) -> dict:
    """The document with one value replaced, a key dropped or added, or a list changed."""
    doc = copy.deepcopy(document)
    path = rng.choice(_places(doc)[1:])
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = rng.randrange(5)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 1 and isinstance(parent, dict):
        parent["unexpected_key"] = parent[last]
    elif action == 2 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))  # a duplicate item
    elif action == 3 and isinstance(parent[last], list):
        parent[last] = parent[last][: rng.randrange(len(parent[last]) + 1)]
    else:
        parent[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return doc


def test_the_specs_compile_to_documents_to_compare():
    assert len(DOCUMENTS) >= 12  # the showcase specs, report specs, W fixtures, the starter


@pytest.mark.parametrize("name, document", DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_every_spec_ir_is_accepted_as_jsonschema_accepts_it(name, document):
    assert accepts(document, ir_schema()) is True and _valid(document)


@pytest.mark.parametrize("name, document", DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_damaged_irs_are_accepted_exactly_when_jsonschema_accepts_them(name, document):
    rng = random.Random(name)
    outcomes = {True: 0, False: 0}
    for _ in range(250):
        damaged = _mutated(document, rng)
        truth = _valid(damaged)
        assert accepts(damaged, ir_schema()) == truth, damaged
        outcomes[truth] += 1
    assert outcomes[False] > 50  # the damage mostly breaks a rule: the test has teeth


def test_a_keyword_it_does_not_know_leaves_the_answer_to_jsonschema():
    assert accepts(1, {"type": "integer", "multipleOf": 2}) is False
    assert accepts(1, {"$ref": "https://example.com/schema"}) is False
    assert accepts({"a": 1}, {"patternProperties": {"^a": {}}}) is False


def test_json_equality_keeps_booleans_apart_from_numbers():
    assert accepts(1, {"enum": [True]}) is False and accepts(True, {"const": 1}) is False
    assert accepts(1.0, {"const": 1}) is True and accepts([1, True], {"uniqueItems": True})
    assert accepts(True, {"type": "integer"}) is False and accepts(2.0, {"type": "integer"})
