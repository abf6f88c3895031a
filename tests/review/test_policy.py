"""The policy language: what it parses, what it refuses, and how it decides on results."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.build import policy
from cmpc.build.gates import check_policy, parse_all
from cmpc.outcome import exit_code_for

RESULTS = {
    "headline": {
        "throughput_ratio": 1.25,
        "cost_ratio": None,
        "winner": "x",
        "within_noise": False,
    },
    "systems": {"x": {"gpus": 8}, "my-gpu": {"gpus": 16}},
    "comparisons": [{"winner": "x"}, {"winner": None}],
    "warnings": [{"code": "W515"}],
}


def holds(text: str, doc=RESULTS) -> bool:
    return policy.evaluate(policy.parse(text), doc)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("headline.throughput_ratio >= 1.2", True),
        ("headline.throughput_ratio >= 1.3", False),
        ("headline.within_noise == false", True),
        ('headline.winner == "x"', True),
        ("headline.winner != 'x'", False),
        ("headline.cost_ratio == null", True),
        ('systems.x.gpus * 2 == systems["my-gpu"].gpus', True),
        ("comparisons[1].winner == null and comparisons.0.winner == 'x'", True),
        ("len(warnings) == 0 or not headline.within_noise", True),
        ("abs(headline.throughput_ratio - 1) < 0.3", True),
        ("-headline.throughput_ratio < -1", True),
        ("(1 + 2) * 3 == 9 and 1 + 2 * 3 == 7", True),
        ("10 / 4 == 2.5", True),
        ("1e3 == 1000", True),
    ],
)
def test_expressions_decide_on_results_paths(text, expected):
    assert holds(text) is expected


@pytest.mark.parametrize(
    "text",
    [
        "headline.throughput_ratio => 1.2",
        "__import__('os').system('true')",
        "open('x')",
        ".5 == 0.5",
        "1 < 2 < 3",
        "headline.throughput_ratio >=",
        "(1 == 1",
        "headline..winner == 1",
        "a ; b",
        "not",
        "(" * 40 + "1 == 1" + ")" * 40,
        "1 == 1 " * 200,
    ],
)
def test_anything_outside_the_language_is_refused(text):
    with pytest.raises(policy.PolicyError):
        policy.parse(text)


def test_dunder_names_are_only_keys_that_results_do_not_have():
    """`__class__` parses as a key (a name is a name) and is looked up in the JSON, nowhere
    else: it is missing, never Python's attribute."""
    with pytest.raises(policy.PathMissing):
        holds("headline.__class__ == 1")
    with pytest.raises(policy.PathMissing):
        holds("__builtins__ == 1")


def test_null_and_wrong_types_are_undecidable_not_errors():
    with pytest.raises(policy.Undecidable):
        holds("headline.cost_ratio < 1")
    with pytest.raises(policy.Undecidable):
        holds("headline.winner > 1")
    with pytest.raises(policy.Undecidable):
        holds("headline.throughput_ratio")  # a number is not a condition


def test_gates_map_to_exit_codes():
    """A policy that is false is E810 (exit 3); a path that is not there is E801 (exit 2);
    an expression outside the language is E800 (exit 2); a policy that holds is nothing."""
    (ok,), _ = parse_all(["headline.throughput_ratio >= 1.2"], "--require")
    assert check_policy(ok, RESULTS) == []
    (false,), _ = parse_all(["headline.throughput_ratio >= 2"], "--require")
    failed = check_policy(false, RESULTS)
    assert [d.code for d in failed] == ["E810"] and exit_code_for(failed) == 3
    assert "headline.throughput_ratio = 1.25" in failed[0].notes
    (typo,), _ = parse_all(["headline.throughput >= 1"], "--require")
    missing = check_policy(typo, RESULTS)
    assert [d.code for d in missing] == ["E801"] and exit_code_for(missing) == 2
    _, invalid = parse_all(["headline.throughput_ratio => 1"], "--require")
    assert [d.code for d in invalid] == ["E800"] and exit_code_for(invalid) == 2
    (null,), _ = parse_all(["headline.cost_ratio < 1"], "--require")
    assert [d.code for d in check_policy(null, RESULTS)] == ["E810"]


def test_fail_on_fails_when_the_expression_is_true():
    (p,), _ = parse_all(["headline.within_noise == false"], "--fail-on")
    assert [d.code for d in check_policy(p, RESULTS, fail_when=True)] == ["E810"]
    assert check_policy(p, RESULTS, fail_when=False) == []


def test_a_failed_policy_beside_an_input_error_is_an_input_error():
    from cmpc.diagnostics import error

    (false,), _ = parse_all(["headline.throughput_ratio >= 2"], "--require")
    items = [*check_policy(false, RESULTS), error("E121", "missing data")]
    assert exit_code_for(items) == 1


# Untrusted or mistyped policies: any text either parses or is a PolicyError, and a parsed
# policy on any JSON either decides or raises one of the two documented exceptions.

ALPHABET = st.sampled_from(list("headline.throughput_ratio[]()\"'0123456789 <=>!+-*/andornot,e"))
JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=60), JSON)
def test_any_text_parses_or_is_refused_and_any_json_decides_or_says_why(text, document):
    try:
        parsed = policy.parse(text)
    except policy.PolicyError:
        return
    with contextlib.suppress(policy.PathMissing, policy.Undecidable):
        assert isinstance(policy.evaluate(parsed, {"headline": document}), bool)
