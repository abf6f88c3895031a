"""`cmpc init [NAME]`: a commented starter spec, never written over an existing file."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from cmpc.diagnostics import error
from cmpc.files import display_path
from cmpc.outcome import Outcome
from cmpc.safefs import create_file


def init_spec(name: str) -> Outcome:
    """`cmpc init [NAME]`: write a commented starter spec, never over an existing file."""
    path = Path(name if name.endswith(".cmp") else f"{name}.cmp")
    if os.path.lexists(path):
        return Outcome(
            diagnostics=(
                error(
                    "E090",
                    f"`{display_path(str(path))}` already exists",
                    file=display_path(str(path)),
                    help="choose another name; cmpc init never overwrites a file",
                ),
            )
        )
    text = resources.files("cmpc.verbs").joinpath("starter.cmp").read_text(encoding="utf-8")
    try:
        create_file(path, text.replace("NAME", path.stem).encode("utf-8"))
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        return Outcome(diagnostics=(error("E090", f"cannot write spec: {reason}", file=name),))
    return Outcome(
        stdout=f"wrote {display_path(str(path))}; fill in the TODOs, then run "
        f"`cmpc check {display_path(str(path))}`\n"
    )
