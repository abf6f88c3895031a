"""cmpc's LALR driver over the shipped tables parses as lark does from the grammar: the same trees
and positions, the same errors with the same expected terminals, the same diagnostics."""

from __future__ import annotations

import dataclasses
import hashlib
import random
import subprocess
import sys
from pathlib import Path

import lark
import pytest

from cmpc.source import SourceFile
from cmpc.syntax import grammar, lalr, parser, tables

REPO = Path(__file__).resolve().parents[1]
CORPUS = sorted(
    [*REPO.glob("specs/*.cmp"), *REPO.glob("tests/**/*.cmp"), *REPO.glob("compiler/**/*.cmp")]
)
# Characters that make the language's tokens, and some that make none: the fuzzer's alphabet.
ALPHABET = '{}|;+,"\\#\n\r\t .-%/:eE0123456789abmsUSDtok_\x00é'


@pytest.fixture(scope="module")
def built() -> lark.Lark:
    return lark.Lark(grammar.grammar_text(), **grammar.OPTIONS)


def _texts() -> list[str]:
    """Every spec and fixture, every third line prefix, word cuts and seeded character edits."""
    rng = random.Random(19)
    texts = []
    for path in CORPUS:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines(keepends=True)
        texts.append(text)
        texts += ["".join(lines[:n]) for n in range(0, len(lines), 3)]
        words = text.split(" ")
        for _ in range(5):
            i = rng.randrange(len(words))
            texts.append(" ".join(words[:i] + words[i + 1 :]))
        for _ in range(5):
            i = rng.randrange(len(text) + 1)
            edit = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 3)))
            texts.append(text[:i] + edit + text[i + rng.randint(0, 2) :])
    for _ in range(300):  # short random texts around one entry
        body = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
        texts.append(f'comparison "x" {{ price {body} }}\n')
    return texts


TEXTS = _texts()


def _tree(node):
    """A tree (lark's or the driver's) as nested tuples with every position."""
    if isinstance(node, lark.Tree):
        meta = node.meta
        span = (None, None) if meta.empty else (meta.start_pos, meta.end_pos)
        return (node.data, *span, [_tree(c) for c in node.children])
    if isinstance(node, lalr.Node):
        return (node.data, node.start_pos, node.end_pos, [_tree(c) for c in node.children])
    return (node.type, str(node), node.start_pos, node.end_pos)


def _outcome(parse, text: str):
    """The tree, or the error with what it holds: the token, what was expected and accepted."""
    try:
        return _tree(parse(text))
    except (lark.exceptions.UnexpectedToken, lalr.UnexpectedToken) as exc:
        token = exc.token
        where = (token.type, str(token), token.start_pos, token.end_pos)
        return ("token", where, sorted(exc.expected), sorted(exc.accepts or ()))
    except (lark.exceptions.UnexpectedCharacters, lalr.UnexpectedCharacters) as exc:
        return ("character", exc.pos_in_stream, sorted(exc.allowed or ()))


def test_the_shipped_tables_are_for_this_grammar():
    """Fails when grammar/cmp.lark is edited and `python scripts/parser_tables.py` not run."""
    text = grammar.grammar_text()
    assert hashlib.sha256(text.encode()).hexdigest() == tables.GRAMMAR_SHA256
    fresh = grammar.grammar_fingerprint(text, tables.LARK_VERSION)
    assert fresh == tables.FINGERPRINT, "options changed: regenerate the tables"


def test_the_generator_writes_the_shipped_tables_for_this_lark():
    if lark.__version__ != tables.LARK_VERSION:
        pytest.fail(f"tables made by lark {tables.LARK_VERSION}, lark {lark.__version__} installed")
    script = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "parser_tables.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert script.returncode == 0, script.stdout


def test_the_driver_parses_as_lark_does(built):
    """Trees with every position, or the error token, expected and accepted terminals."""
    assert CORPUS, "no specs found"
    errors = characters = 0
    for text in TEXTS:
        expected = _outcome(built.parse, text)
        errors += expected[0] == "token"
        characters += expected[0] == "character"
        assert _outcome(lalr.parse, text) == expected, repr(text)
    assert errors > len(TEXTS) // 4, "the corpus should exercise unexpected tokens"
    assert characters > 50, "the corpus should exercise invalid characters"


def _lark_spec(built: lark.Lark, source: SourceFile):
    """What `parse_spec` returned when lark parsed: the syntax tree, or the one diagnostic."""
    too_deep = parser._too_deep(source)
    if too_deep is not None:
        return None, [too_deep]
    try:
        tree = built.parse(source.text)
    except lark.exceptions.UnexpectedToken as exc:
        return None, [parser._unexpected_token(source, exc)]
    except lark.exceptions.UnexpectedCharacters as exc:
        return None, [parser._unexpected_character(source, exc)]
    return parser.build_spec(source, tree), []


def _with_spans(value):
    """A syntax tree or diagnostic with every field, the spans equality leaves out included."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value).__name__, *(_with_spans(getattr(value, f.name)) for f in fields))
    if isinstance(value, list | tuple):
        return tuple(_with_spans(v) for v in value)
    return value


def test_parse_spec_gives_what_the_lark_path_gave(built):
    """The syntax tree (spans, comments) or the diagnostic (code, message, span, label, help)."""
    for text in TEXTS:
        source = SourceFile("spec.cmp", text)
        got = _with_spans(parser.parse_spec(source))
        assert got == _with_spans(_lark_spec(built, source)), repr(text)


def test_parsing_imports_no_lark():
    code = (
        "import sys; from cmpc.source import SourceFile; from cmpc.syntax.parser import parse_spec;"
        "spec, diags = parse_spec(SourceFile('a.cmp', 'comparison \"x\" { baseline a }\\n'));"
        "assert spec is not None and not diags; assert 'lark' not in sys.modules, 'lark imported'"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
