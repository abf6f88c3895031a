"""`cmpc.build(require=..., unsets=...)`: the CLI's `--require` (exit 3) and `--unset`."""

from __future__ import annotations

import json

import pytest

import cmpc
from cmpc.cli import main

from .helpers import cli_build, sweep_copy

HOLDS = "headline.throughput_ratio > 0.8"  # the golden ratio is 0.8059177023318277
FAILS = "headline.throughput_ratio >= 1.2"


@pytest.fixture
def spec(tmp_path):
    return sweep_copy(tmp_path)


def test_a_failed_policy_is_the_clis_exit_3_as_a_result(spec, tmp_path):
    results = cmpc.build(spec, render=False, require=[HOLDS, FAILS])
    assert main(["build", str(spec), "-o", str(tmp_path / "o"), "--quiet", "--no-cache",
                 "--require", HOLDS, "--require", FAILS]) == 3  # fmt: skip
    assert results.exit_code == 3 and not results.policies_met
    assert [d.code for d in results.policy_failures] == ["E810"]
    failure = results.policy_failures[0]
    assert FAILS in failure.message and "headline.throughput_ratio = 0.8059" in failure.notes[0]
    assert results.headline["throughput_ratio"] == 0.8059177023318277  # the build is complete
    with pytest.raises(cmpc.PolicyFailed) as raised:
        results.raise_for_policies()
    assert raised.value.exit_code == 3 and raised.value.codes == ("E810",)
    assert raised.value.results is results and isinstance(raised.value, cmpc.CmpcError)


def test_policies_that_hold_exit_0(spec):
    results = cmpc.build(spec, render=False, require=HOLDS)  # one expression as a string
    assert results.exit_code == 0 and results.policies_met and results.policy_failures == ()
    assert results.raise_for_policies() is results
    assert cmpc.build(spec, render=False).exit_code == 0  # no policy: nothing to fail


def test_the_outputs_are_written_before_a_policy_fails(spec, tmp_path):
    results = cmpc.build(spec, output=tmp_path / "out", require=FAILS)
    assert results.exit_code == 3
    written = json.loads((tmp_path / "out" / "results.json").read_text())
    assert written == json.loads(results.files["results.json"])


@pytest.mark.parametrize(
    ("policy", "code"),
    [("headline.throughput_ratio >=", "E800"), ("headline.no_such_figure > 1", "E801")],
)
def test_an_invalid_policy_raises_as_the_cli_refuses_it(spec, tmp_path, policy, code, capsys):
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(spec, render=False, require=[policy])
    assert raised.value.codes == (code,) and not isinstance(raised.value, cmpc.PolicyFailed)
    assert cli_build(spec, tmp_path / "out", "--require", policy) == 2
    assert code in capsys.readouterr().err


def test_an_invalid_policy_fails_before_any_run_is_read(spec, monkeypatch):
    def no_reading(*args, **kwargs):
        raise AssertionError("a run file was read for a build whose policy is not valid")

    monkeypatch.setattr("cmpc.build.pipeline.load_data", no_reading)
    with pytest.raises(cmpc.CmpcError):
        cmpc.build(spec, require="headline.throughput_ratio >=")


def test_unsets_are_the_cli_unset(spec, tmp_path):
    path = "system.beta.price"
    removed = cmpc.build(spec, unsets=[path])
    assert cli_build(spec, tmp_path / "cli", "--unset", path) == 0
    assert removed.files["results.json"] == (tmp_path / "cli" / "results.json").read_text()
    # an unset line's `was` is its whole value: the amount, its basis and its source
    was = '2.50 USD/gpu/h basis assumed source "illustrative price, not a quote"'
    assert {"path": path, "value": None, "was": was} in removed.document["overrides"]
    assert removed.headline != cmpc.build(spec, render=False).headline
    both = cmpc.build(spec, render=False, overrides={path: "3.00 USD/gpu/h"}, unsets=path)
    assert both.document["systems"]["beta"]["cost"] == removed.document["systems"]["beta"]["cost"]


def test_an_unknown_unset_path_raises_with_its_diagnostic(spec):
    with pytest.raises(cmpc.CmpcError) as raised:
        cmpc.build(spec, render=False, unsets=["system.gamma.price"])
    assert raised.value.codes == ("E501",) and "no `system gamma`" in str(raised.value)
