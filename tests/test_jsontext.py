"""build.jsontext.indented writes json.dumps(doc, sort_keys=True, indent=2)'s exact text."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.build.jsontext import indented
from cmpc.build.model import Options
from cmpc.build.pipeline import compute_build

REPO = Path(__file__).resolve().parents[1]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0.0, -0.0, 1e-320, 1.7976931348623157e308, math.inf, -math.inf, 1e16])
    | st.text()
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=40,
)


def _json(doc: object) -> str:
    return json.dumps(doc, sort_keys=True, indent=2)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_generated_documents_are_written_as_json_writes_them(doc):
    assert indented(doc) == _json(doc)


@pytest.mark.parametrize(
    "doc",
    [
        {},
        [],
        {"a": {}},
        {"b": [], "a": [[]]},
        "\u202e\x00\ud800",
        {3: "int keys", 1: "json converts"},  # keys json converts: its own text
        {None: 1},
        {1.5: 3, -2.5: 4},
        {"nested": {2: [1, 2]}},
        [float("nan"), {"k": (1, (2,))}],
    ],
)
def test_edge_documents_are_written_as_json_writes_them(doc):
    assert indented(doc) == _json(doc)


@pytest.mark.parametrize(
    "doc", [{"a": object()}, [1, {1, 2}], {"a": b"bytes"}, {3: "mixed", "x": "keys"}]
)
def test_what_json_refuses_is_refused_with_jsons_error(doc):
    with pytest.raises(TypeError) as expected:
        _json(doc)
    with pytest.raises(TypeError) as found:
        indented(doc)
    assert str(found.value) == str(expected.value)


def test_a_circular_document_raises_jsons_error():
    doc: list[object] = []
    doc.append(doc)
    with pytest.raises(ValueError, match="Circular reference"):
        indented(doc)


@pytest.mark.parametrize("spec", sorted((REPO / "specs").glob("*.cmp")), ids=lambda p: p.stem)
def test_every_showcase_results_json_is_jsons_text(spec):
    built = compute_build(str(spec), options=Options(render=False))
    assert built.results is not None
    assert indented(built.results) == _json(built.results)
