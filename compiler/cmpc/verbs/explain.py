"""`cmpc explain CODE`: a diagnostic's long explanation, with a wrong and a fixed example."""

from __future__ import annotations

import difflib

from cmpc.diagnostics import codes
from cmpc.outcome import Outcome


def explain_code(code: str) -> Outcome:
    """`cmpc explain CODE`: the long explanation, with a wrong and a fixed example."""
    table = codes()
    info = table.get(code.upper())
    if info is None:
        close = difflib.get_close_matches(code.upper(), table, n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return Outcome(stderr=f"cmpc: unknown diagnostic code `{code}`{hint}\n", exit_code=2)
    text = f"{info.code} ({info.name}): {info.summary}\n\n{info.explanation.strip()}\n"
    return Outcome(stdout=text, exit_code=0)
