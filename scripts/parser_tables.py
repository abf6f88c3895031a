"""Regenerate compiler/cmpc/syntax/tables.py, the LALR tables of grammar/cmp.lark as plain data.

python scripts/parser_tables.py          # rewrite the module
python scripts/parser_tables.py --check  # exit 1 if they are not for this grammar and lark

The tables are lark's own serialization (`Lark.memo_serialize`, as `lark.tools.standalone`
embeds it) written as Python literals: cmpc loads them without pickle and without building the
parser at each start. lark numbers its states in memory order, so two runs give equivalent
tables under different numbers: `--check` compares the fingerprint (grammar, options, lark
version), and tests/test_parser_tables.py that both parsers agree on every input it tries.
"""

from __future__ import annotations

import argparse
import hashlib
import pprint
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "compiler" / "cmpc" / "syntax" / "tables.py"
HEADER = '''"""LALR tables of grammar/cmp.lark (lark {lark}), made by scripts/parser_tables.py.

Do not edit: change the grammar and run `python scripts/parser_tables.py`. Plain literals, so
loading them runs no code (lark's own cache is a pickle in the shared temporary folder).
"""
# ruff: noqa: E501
# fmt: off

'''


def generate() -> str:
    """The module's text for the checkout's grammar and the installed lark."""
    sys.path.insert(0, str(ROOT / "compiler"))
    import lark
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    from cmpc.syntax.parser import OPTIONS, grammar_fingerprint, grammar_text

    text = grammar_text()
    parser = lark.Lark(text, **OPTIONS)
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    body = [
        f"GRAMMAR_SHA256 = {hashlib.sha256(text.encode()).hexdigest()!r}",
        f"LARK_VERSION = {lark.__version__!r}",
        f"FINGERPRINT = {grammar_fingerprint(text, lark.__version__)!r}",
        f"DATA = {pprint.pformat(data, width=99, sort_dicts=True)}",
        f"MEMO = {pprint.pformat(memo, width=99, sort_dicts=True)}",
    ]
    return HEADER.format(lark=lark.__version__) + "\n\n".join(body) + "\n"


def is_fresh() -> bool:
    """Whether the shipped tables were generated from this grammar, these options and lark."""
    sys.path.insert(0, str(ROOT / "compiler"))
    import lark

    from cmpc.syntax import tables
    from cmpc.syntax.parser import grammar_fingerprint, grammar_text

    return grammar_fingerprint(grammar_text(), lark.__version__) == tables.FINGERPRINT


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--check", action="store_true", help="exit 1 if the module is stale")
    ns = args.parse_args(argv)
    if ns.check:
        if not is_fresh():
            print(f"{TARGET.relative_to(ROOT)} is stale: run python scripts/parser_tables.py")
            return 1
        return 0
    TARGET.write_text(generate(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
