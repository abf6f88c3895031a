"""Token accounting: which tokens count, measured versus declared cache share, the gap warning."""

from __future__ import annotations

import pytest

from cmpc.compute.accounting import (
    INPUT_AND_OUTPUT,
    OUTPUT_ONLY,
    UNCACHED_INPUT_AND_OUTPUT,
    CacheSource,
    TokenAccounting,
    TokenRates,
    TokenWeights,
    counted_tokens,
    hit_rate_gap,
    split_input,
    weighted_tokens,
)
from cmpc.diagnostics import Severity


def test_measured_cached_counts_win_over_a_declared_rate():
    rates = split_input(1000, 100, measured_cached=800, declared_hit_rate=0.5)
    assert rates.cache_source is CacheSource.MEASURED
    assert (rates.input_cached, rates.input_uncached, rates.hit_rate) == (800, 200, 0.8)


def test_declared_hit_rate_is_labelled_declared():
    rates = split_input(1000, 100, declared_hit_rate=0.25)
    assert rates.cache_source is CacheSource.DECLARED
    assert rates.input_cached == 250


def test_unknown_split_has_no_hit_rate():
    rates = split_input(1000, 100)
    assert rates.cache_source is CacheSource.UNKNOWN
    assert rates.hit_rate is None


@pytest.mark.parametrize(
    ("accounting", "counted"),
    [
        (OUTPUT_ONLY, 100),
        (INPUT_AND_OUTPUT, 1100),
        (UNCACHED_INPUT_AND_OUTPUT, 300),
        (TokenAccounting(output=False, reused_input=True), 800),
    ],
)
def test_counted_tokens_under_each_accounting(accounting, counted):
    assert counted_tokens(split_input(1000, 100, measured_cached=800), accounting) == counted


def test_uncached_accounting_needs_a_known_split():
    unknown = split_input(1000, 100)
    assert counted_tokens(unknown, UNCACHED_INPUT_AND_OUTPUT) is None
    assert counted_tokens(unknown, INPUT_AND_OUTPUT) == 1100
    assert counted_tokens(unknown, OUTPUT_ONLY) == 100


def test_labels():
    assert OUTPUT_ONLY.label == "output"
    assert INPUT_AND_OUTPUT.label == "input (reused included) + output"
    assert UNCACHED_INPUT_AND_OUTPUT.label == "uncached input + output"


def test_weighted_tokens():
    rates = TokenRates(input=1000, output=100, input_cached=800, cache_source=CacheSource.MEASURED)
    assert weighted_tokens(rates, TokenWeights(input=1, output=5, input_cached=0.1)) == 780


def test_hit_rate_gap_beyond_the_margin_is_a_warning_value():
    mine = split_input(1000, 10, measured_cached=937)
    theirs = split_input(1000, 10, declared_hit_rate=0.801)
    gap = hit_rate_gap("mi355x", mine, "b300", theirs)
    assert gap is not None
    assert gap.gap == pytest.approx(0.136)
    diagnostic = gap.diagnostic()
    assert (diagnostic.code, diagnostic.severity) == ("W410", Severity.WARNING)
    assert "13.6 points" in diagnostic.message
    assert "(declared)" in diagnostic.notes[0]


@pytest.mark.parametrize(("a", "b"), [(0.95, 0.90), (0.35, 0.30), (0.5, 0.5)])
def test_gap_within_the_margin_is_quiet(a, b):
    assert (
        hit_rate_gap(
            "a", split_input(1, 1, declared_hit_rate=a), "b", split_input(1, 1, declared_hit_rate=b)
        )
        is None
    )


def test_declared_margin_and_unknown_rates():
    mine = split_input(1000, 10, measured_cached=900)
    theirs = split_input(1000, 10, measured_cached=700)
    assert hit_rate_gap("a", mine, "b", theirs, margin=0.25) is None
    assert hit_rate_gap("a", mine, "b", split_input(1000, 10)) is None
