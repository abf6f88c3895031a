"""The parser tables shipped in `cmpc.syntax.tables`: made from this grammar, the same parser
lark builds from it, and not used once the grammar changes."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import lark
import pytest

from cmpc.syntax import parser, tables

REPO = Path(__file__).resolve().parents[1]
CORPUS = sorted(
    [*REPO.glob("specs/*.cmp"), *REPO.glob("tests/**/*.cmp"), *REPO.glob("compiler/**/*.cmp")]
)


@pytest.fixture
def built() -> lark.Lark:
    return lark.Lark(parser.grammar_text(), **parser.OPTIONS)


def test_the_shipped_tables_are_for_this_grammar():
    """Fails when grammar/cmp.lark is edited and `python scripts/parser_tables.py` not run."""
    assert hashlib.sha256(parser.grammar_text().encode()).hexdigest() == tables.GRAMMAR_SHA256
    fresh = parser.grammar_fingerprint(parser.grammar_text(), tables.LARK_VERSION)
    assert fresh == tables.FINGERPRINT, "options changed: regenerate the tables"


def test_the_shipped_tables_are_used_with_the_lark_that_made_them(monkeypatch):
    parser._lark.cache_clear()
    monkeypatch.setattr(lark, "__version__", tables.LARK_VERSION)

    def build(*args, **kwargs):
        pytest.fail("built the parser from the grammar although the tables match")

    monkeypatch.setattr(lark.Lark, "__init__", build)
    try:
        assert isinstance(parser._lark(), lark.Lark)
    finally:
        parser._lark.cache_clear()


@pytest.mark.parametrize("change", ["grammar", "lark"])
def test_stale_tables_are_not_used(monkeypatch, change):
    if change == "grammar":
        text = parser.grammar_text() + "\n// edited\n"
        monkeypatch.setattr(parser, "grammar_text", lambda: text)
    else:
        monkeypatch.setattr(lark, "__version__", tables.LARK_VERSION + ".post1")
    monkeypatch.setattr(
        lark.Lark, "_load_from_dict", lambda *a, **k: pytest.fail("loaded stale tables")
    )
    parser._lark.cache_clear()
    try:
        assert parser._lark().parse('comparison "x" { baseline a }\n')
    finally:
        parser._lark.cache_clear()


def _outcome(instance: lark.Lark, text: str):
    """A tree with every token's position, or the error with what was expected where."""
    try:
        tree = instance.parse(text)
    except lark.exceptions.UnexpectedToken as exc:
        return ("token", exc.line, exc.column, exc.token.type, exc.token.value,
                sorted(exc.expected), sorted(exc.accepts or ()))  # fmt: skip
    except lark.exceptions.UnexpectedCharacters as exc:
        return ("character", exc.line, exc.column, sorted(exc.allowed or ()))
    except lark.exceptions.UnexpectedInput as exc:
        return (
            type(exc).__name__,
            getattr(exc, "line", None),
            sorted(getattr(exc, "expected", ())),
        )
    return [
        (t.type, t.value, t.line, t.column, t.end_line, t.end_column, t.start_pos, t.end_pos)
        for t in tree.scan_values(lambda v: isinstance(v, lark.Token))
    ] + [(t.data, t.meta.line, t.meta.column) for t in tree.iter_subtrees() if not t.meta.empty]


def test_the_shipped_parser_is_the_one_lark_builds(built):
    """Every spec and fixture, every line prefix of them and random token cuts: the same tree,
    positions, or error with the same expected tokens (which E0xx messages list)."""
    shipped = parser._lark()
    assert CORPUS, "no specs found"
    rng = random.Random(12)
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
    errors = 0
    for text in texts:
        expected = _outcome(built, text)
        errors += isinstance(expected, tuple)
        assert _outcome(shipped, text) == expected, text
    assert errors > len(texts) // 4, "the corpus should exercise errors too"
