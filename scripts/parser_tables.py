"""Regenerate compiler/cmpc/syntax/tables.py, the LALR tables of grammar/cmp.lark for cmpc's driver.

python scripts/parser_tables.py          # rewrite the module
python scripts/parser_tables.py --check  # exit 1 if they are not for this grammar and lark

lark builds the parser from the grammar (its LALR analysis and contextual lexer are the reference);
this script writes what `cmpc.syntax.lalr` needs to run it without lark, as tuple and dict
literals that import from their .pyc with no code run and no pickle: the terminals in lark's
lexer order, the terminals each state's lexer tries, the action table and the tree-building
shape of each rule. lark numbers its states in memory order, so two runs may give equivalent
tables under different numbers: `--check` compares the fingerprint (grammar, options, lark
version), and tests/test_parser_tables.py that the driver and lark agree on every input it tries.
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

Do not edit: change the grammar and run `python scripts/parser_tables.py`. Plain literals read by
`cmpc.syntax.lalr`: loading them runs no code and needs no lark (nor a pickle).
ACTIONS[state][symbol] is a shift to that state (>= 0) or ~rule, a reduction by RULES[rule]:
(origin, length, tree name or None to inline it, ((child index, splice it?), ...), expand1).
"""
# ruff: noqa: E501
# fmt: off

'''


def _lexer_order(terminal) -> tuple:
    """lark's BasicLexer order: the first terminal in it that matches wins."""
    pattern = terminal.pattern
    return (-terminal.priority, -pattern.max_width, -len(pattern.value), terminal.name)


def generate() -> str:
    """The module's text for the checkout's grammar and the installed lark."""
    sys.path.insert(0, str(ROOT / "compiler"))
    import lark

    from cmpc.syntax.grammar import OPTIONS, grammar_fingerprint, grammar_text

    text = grammar_text()
    built = lark.Lark(text, **OPTIONS)
    assert not built.options.keep_all_tokens and built.options.lexer == "contextual"
    table = built.parser.parser._parse_table
    terminals = sorted(built.terminals, key=_lexer_order)
    names = {t.name for t in terminals}
    ignore = tuple(built.ignore_tokens)
    rules = list(built.rules)
    index = {id(rule): i for i, rule in enumerate(rules)}
    shapes = []
    for rule in rules:
        keep = tuple(
            (i, not sym.is_term and sym.name.startswith("_"))
            for i, sym in enumerate(rule.expansion)
            if rule.options.keep_all_tokens or not (sym.is_term and sym.filter_out)
        )
        inline = rule.origin.name.startswith("_")
        name = None if inline else (rule.alias or rule.origin.name)
        expand1 = bool(rule.options.expand1 and not rule.alias)
        origin = str(rule.origin.name)
        shapes.append((origin, len(rule.expansion), name and str(name), keep, expand1))
    actions = []
    lexers: list[tuple[str, ...]] = []
    state_lexer = []
    assert sorted(table.states) == list(range(len(table.states)))
    for state in range(len(table.states)):
        row = {}
        for symbol, (action, arg) in sorted(table.states[state].items()):
            row[str(symbol)] = arg if action.name == "Shift" else ~index[id(arg)]
        actions.append(row)
        accepted = {s for s in row if s in names} | set(ignore)
        tried = tuple(t.name for t in terminals if t.name in accepted)
        if tried not in lexers:
            lexers.append(tried)
        state_lexer.append(lexers.index(tried))
    body = [
        f"GRAMMAR_SHA256 = {hashlib.sha256(text.encode()).hexdigest()!r}",
        f"LARK_VERSION = {lark.__version__!r}",
        f"FINGERPRINT = {grammar_fingerprint(text, lark.__version__)!r}",
        f"START = {table.start_states['start']!r}",
        f"END = {table.end_states['start']!r}",
        f"TERMINALS = {pprint.pformat(tuple((t.name, t.pattern.to_regexp()) for t in terminals))}",
        f"IGNORE = {ignore!r}",
        f"LEXERS = {pprint.pformat(tuple(lexers), width=99)}",
        f"STATE_LEXER = {tuple(state_lexer)!r}",
        f"RULES = {pprint.pformat(tuple(shapes), width=99)}",
        f"ACTIONS: tuple[dict[str, int], ...] = {pprint.pformat(tuple(actions), width=99)}",
    ]
    return HEADER.format(lark=lark.__version__) + "\n\n".join(body) + "\n"


def is_fresh() -> bool:
    """Whether the shipped tables were generated from this grammar, these options and lark."""
    sys.path.insert(0, str(ROOT / "compiler"))
    import lark

    from cmpc.syntax import tables
    from cmpc.syntax.grammar import grammar_fingerprint, grammar_text

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
