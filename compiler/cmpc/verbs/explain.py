"""`cmpc explain CODE`: a diagnostic's long explanation, with a wrong and a fixed example."""

from __future__ import annotations

from cmpc.diagnostics import CodeInfo, codes
from cmpc.outcome import Outcome

NEAR = 2  # edits (insert, delete, substitute) a suggestion may be from what was typed


def explain_code(code: str) -> Outcome:
    """`cmpc explain CODE` (or its name, `mixed-sweep`): the explanation and the examples."""
    table = codes()
    info = table.get(code.upper()) or _by_name(table).get(code.lower())
    if info is None:
        close = near_codes(code, table)
        hint = "; did you mean " + " or ".join(close) + "?" if close else ""
        return Outcome(stderr=f"cmpc: unknown diagnostic code `{code}`{hint}\n", exit_code=2)
    text = f"{info.code} ({info.name}): {info.summary}\n\n{info.explanation.strip()}\n"
    return Outcome(stdout=text, exit_code=0)


def _by_name(table: dict[str, CodeInfo]) -> dict[str, CodeInfo]:
    return {info.name: info for info in table.values()}


def near_codes(typed: str, table: dict[str, CodeInfo], most: int = 3) -> list[str]:
    """The codes whose code or name is within NEAR edits of what was typed, nearest first."""
    scored = []
    for info in table.values():
        distance = min(
            edit_distance(typed.upper(), info.code), edit_distance(typed.lower(), info.name)
        )
        if distance <= NEAR:
            scored.append((distance, info.code, f"{info.code} ({info.name})"))
    return [text for _, _, text in sorted(scored)[:most]]


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: the fewest single-character edits that turn `a` into `b`."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]
