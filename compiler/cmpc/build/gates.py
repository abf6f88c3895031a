"""Policy gates: `--require` and `--fail-on` expressions as diagnostics (E800, E801, E810)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.diagnostics import Diagnostic, error

if TYPE_CHECKING:
    from cmpc.build import policy
else:  # a build without `--require` never parses a policy
    policy = lazy.module("cmpc.build.policy")

HELP = "policies are expressions over results.json paths, e.g. `headline.throughput_ratio >= 1.2`"


def parse_all(texts: Sequence[str], flag: str) -> tuple[list[policy.Policy], list[Diagnostic]]:
    """Parse every expression; E800 for each one that is not in the language."""
    parsed, problems = [], []
    for text in texts:
        try:
            parsed.append(policy.parse(text))
        except policy.PolicyError as exc:
            problems.append(
                error(
                    "E800",
                    f"invalid policy `{flag} {text}`: {exc}",
                    help=HELP + " (docs/policies.md)",
                )
            )
    return parsed, problems


def check_policy(
    parsed: policy.Policy,
    document: Mapping[str, object],
    *,
    fail_when: bool = False,
    flag: str = "--require",
) -> list[Diagnostic]:
    """Evaluate one policy: [] when it holds, else E810 (failed) or E801 (a path is missing).

    `--require` fails when the expression is false; `--fail-on` (fail_when) when it is true. An
    expression that cannot be decided (a null, a string where a number is needed) fails either way.
    """
    label = f"{flag} {parsed.text}"
    try:
        value = policy.evaluate(parsed, document)
    except policy.PathMissing as exc:
        return [
            error(
                "E801",
                f"policy `{label}` names a path the results do not have: {exc}",
                help="paths are documented in schemas/results.schema.json (docs/policies.md)",
            )
        ]
    except policy.Undecidable as exc:
        return [policy_failed(label, f"it cannot be decided: {exc}", _values(parsed, document))]
    if value != fail_when:
        return []
    why = "it is true" if fail_when else "it is false"
    return [policy_failed(label, why, _values(parsed, document))]


def policy_failed(label: str, reason: str, notes: Sequence[str] = ()) -> Diagnostic:
    """E810: the evidence is valid, the policy is not met (exit 3)."""
    return error(
        "E810",
        f"policy `{label}` failed: {reason}",
        notes=tuple(notes),
        help="the evidence is valid (a build's outputs are written); the policy sets exit code 3",
    )


def _values(parsed: policy.Policy, document: Mapping[str, object]) -> list[str]:
    notes = []
    for path in policy.paths(parsed):
        try:
            value = policy.lookup(document, path.steps)
        except (policy.PathMissing, policy.Undecidable) as exc:
            notes.append(f"{path.text()}: {exc}")
            continue
        notes.append(f"{path.text()} = {policy.show(value)}")
    return notes
