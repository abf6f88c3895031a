"""The computation layer's diagnostic codes are registered and explained."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

TABLE = tomllib.loads((resources.files("cmpc.codes") / "compute.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("code", sorted(TABLE))
def test_code_has_a_slug_summary_and_a_wrong_and_fixed_example(code):
    info = TABLE[code]
    assert code[0] in "EW" and code[1] == "4"
    assert info["name"] == info["name"].lower() and " " not in info["name"]
    assert "Wrong" in info["explanation"] and "Fixed" in info["explanation"]


def test_emitted_codes_are_registered():
    from cmpc.compute.accounting import hit_rate_gap, split_input

    gap = hit_rate_gap(
        "a", split_input(1, 1, declared_hit_rate=0.9), "b", split_input(1, 1, declared_hit_rate=0.1)
    )
    assert gap.diagnostic().code in TABLE
