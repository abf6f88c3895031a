"""The grammar's text and the lark options the shipped tables are generated with (no lark here)."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

OPTIONS = {
    "parser": "lalr",
    "lexer": "contextual",
    "propagate_positions": True,
    "maybe_placeholders": False,
}


def grammar_text() -> str:
    """The grammar: the copy an install ships in the package, else the checkout's grammar/."""
    shipped = resources.files("cmpc").joinpath("grammar", "cmp.lark")
    if shipped.is_file():
        return shipped.read_text(encoding="utf-8")
    checkout = Path(__file__).resolve().parents[3] / "grammar" / "cmp.lark"
    return checkout.read_text(encoding="utf-8")


def grammar_fingerprint(text: str, lark_version: str) -> str:
    """What the shipped tables were generated from: the grammar, the options and lark's version."""
    signature = f"{text}\0{sorted(OPTIONS.items())}\0{lark_version}"
    return hashlib.sha256(signature.encode("utf-8")).hexdigest()
