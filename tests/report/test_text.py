"""Number formatting and escaping: one rounding place, spec text inert in Markdown and HTML."""

from __future__ import annotations

import pytest

from cmpc.report.text import (
    Md,
    code,
    column_digits,
    csv_value,
    escape,
    fixed,
    link,
    number,
    percent,
    ratio,
    usd,
)


@pytest.mark.parametrize(
    ("fraction", "kwargs", "shown"),
    [
        (1 - 1 / 1.244, {}, "19.6%"),
        (0.244, {}, "24.4%"),
        (0.244, {"signed": True}, "+24.4%"),
        (-0.19614, {"signed": True}, "\u221219.6%"),
        (1.0, {}, "100.0%"),
        (0.7000000000000001, {}, "70.0%"),
        (-0.00001, {}, "0.0%"),
        (0.02, {}, "2.0%"),  # issue 14: one precision throughout, never "2%" next to "2.5%"
        (0.7, {"digits": 0}, "70%"),
        (None, {}, "n/a"),
        (float("nan"), {}, "n/a"),
    ],
)
def test_percent_rounds_once(fraction, kwargs, shown):
    assert percent(fraction, **kwargs) == shown


def test_equal_price_consequence_of_a_24_4_percent_lead_is_19_6_percent():
    # methodology.md section 8: 1/1.244 = 0.8039, so 19.6% lower cost, not 24.4%.
    assert ratio(1 / 1.244) == "0.804"
    assert percent(abs(1 / 1.244 - 1)) == "19.6%"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (2600.2, "2,600.2"),
        (50.0, "50"),
        (8, "8"),
        (1.5, "1.5"),
        (0.0123, "0.012"),
        (1.55e14, "1.55 \u00d7 10^14"),
        (float("inf"), "\u221e"),
        (None, "n/a"),
    ],
)
def test_number(value, shown):
    assert number(value) == shown


@pytest.mark.parametrize(
    ("value", "shown"),
    [(1.5, "$1.50"), (0.392, "$0.392"), (0.2, "$0.20"), (25000.0, "$25,000"), (None, "n/a")],
)
def test_usd(value, shown):
    assert usd(value) == shown


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a | b", "a \\| b"),
        ("<script>x</script>", "\\<script\\>x\\</script\\>"),
        ("[^latency]: x", "\\[^latency\\]: x"),
        ("two\nlines", "two lines"),
        ("- item", "\\- item"),
        ("# heading", "\\# heading"),
        ("1. first", "1\\. first"),
        ("0.1.0", "0.1.0"),
        ("x_y *z*", "x\\_y \\*z\\*"),
        ("&amp;", "\\&amp;"),
    ],
)
def test_escape(text, escaped):
    assert escape(text) == escaped
    assert isinstance(escape(text), Md)


def test_escape_leaves_cmpc_markdown_alone():
    assert escape(Md("**bold**")) == "**bold**"


def test_code_span_fences_backticks():
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"


def test_link_only_for_http_urls():
    assert link("Dash", "https://example.com/a(b)|c") == "[Dash](https://example.com/a%28b%29%7Cc)"
    assert link("x", "https://example.com/a b") == "x (https://example.com/a b)"
    assert link("x", "javascript:alert(1)") == "x (javascript:alert(1))"
    assert link("x", None) == "x"


def test_csv_values_are_full_precision_and_platform_independent():
    assert csv_value(0.1 + 0.2) == "0.30000000000000004"
    assert csv_value(None) == ""
    assert csv_value(float("inf")) == "inf"
    assert csv_value(True) == "true"


@pytest.mark.parametrize(
    ("column", "shown"),
    [
        ([1263.04, 1567.1], ["1,263.0", "1,567.1"]),  # issue 14: not `1,263` beside `1,567.1`
        ([9.9, 36.19107], ["9.90", "36.19"]),
        ([119, 196, 31], ["119", "196", "31"]),  # whole numbers stay whole
        ([0.5, 250.0], ["0.500", "250.000"]),
    ],
)
def test_a_column_has_one_number_of_decimals(column, shown):
    digits = column_digits(column)
    assert [fixed(digits)(v) for v in column] == shown


def test_escape_backslashes_exactly_the_characters_the_special_pattern_matches():
    """escape's one-pass translation puts a backslash before each character SPECIAL matches, as
    SPECIAL.sub(r"\\\\\\1", ...) did: seeded strings of every printable ASCII character and more."""
    import random

    from cmpc.report import text

    pool = [chr(c) for c in range(32, 127)] + ["µ", "\u202e", "\n", "\t", "  ", "1.", "# "]
    rng = random.Random(19)
    for _ in range(20000):
        s = "".join(rng.choices(pool, k=rng.randint(0, 14)))
        assert s.translate(text._BACKSLASHED) == text.SPECIAL.sub(r"\\\1", s), s
    assert escape("a*b_c [d] `e` <f> |g| & ~h! $i {j} \\k") == (
        "a\\*b\\_c \\[d\\] \\`e\\` \\<f\\> \\|g\\| \\& \\~h\\! \\$i \\{j\\} \\\\k"
    )
