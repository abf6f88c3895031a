"""The parser against hand-built syntax trees, and where it places syntax errors."""

from __future__ import annotations

import pytest

from cmpc.source import SourceFile
from cmpc.syntax import tree as st
from cmpc.syntax.parser import parse_spec


def parse(text: str) -> st.Spec:
    spec, diagnostics = parse_spec(SourceFile("t.cmp", text))
    assert diagnostics == []
    return spec


def entry(key: str, *alternatives, body=None) -> st.Entry:
    alts = tuple(st.Alternative(atoms=tuple(a)) for a in alternatives)
    return st.Entry(key=st.Name(value=key), alternatives=alts, body=body)


def name(v):
    return st.Name(value=v)


def number(t):
    return st.Number(text=t)


def test_literals_and_shapes():
    text = """# header
comparison "K3: A vs B" {
  baseline b300; question "Which?"
  latency {
    target 50 tok/s/user  # trailing
  }
  price 1.50 USD/gpu/h basis owning as_of 2026-08-14
  tokens { count input + output }
  sensitivity { statistic p50 | p90 | p99.9 }
  accelerator "AMD Instinct MI355X" x 8
  util 60%
  claim 155e12 tokens/day
  list 1, 2, 4
  empty {}
}
"""
    expected = st.Spec(
        root=entry(
            "comparison",
            [st.String(value="K3: A vs B")],
            body=(
                entry("baseline", [name("b300")]),
                entry("question", [st.String(value="Which?")]),
                entry(
                    "latency",
                    body=(entry("target", [st.Quantity(number=number("50"), unit="tok/s/user")]),),
                ),
                entry(
                    "price",
                    [
                        st.Quantity(number=number("1.50"), unit="USD/gpu/h"),
                        name("basis"),
                        name("owning"),
                        name("as_of"),
                        st.Date(text="2026-08-14"),
                    ],
                ),
                entry(
                    "tokens",
                    body=(entry("count", [name("input"), st.Symbol(text="+"), name("output")]),),
                ),
                entry(
                    "sensitivity",
                    body=(entry("statistic", [name("p50")], [name("p90")], [name("p99.9")]),),
                ),
                entry(
                    "accelerator", [st.String(value="AMD Instinct MI355X"), name("x"), number("8")]
                ),
                entry("util", [st.Quantity(number=number("60"), unit="%")]),
                entry("claim", [st.Quantity(number=number("155e12"), unit="tokens/day")]),
                entry(
                    "list",
                    [
                        number("1"),
                        st.Symbol(text=","),
                        number("2"),
                        st.Symbol(text=","),
                        number("4"),
                    ],
                ),
                entry("empty", body=()),
            ),
        )
    )
    spec = parse(text)
    assert spec == expected
    assert [c.text for c in spec.comments] == ["# header", "# trailing"]


def test_units_only_follow_numbers_so_unit_words_stay_names():
    spec = parse("tokens { s ms; tp 8 pp 2; h 8 h }\n")
    assert spec.root.body[0].atoms == (name("ms"),)
    assert spec.root.body[1].atoms == (number("8"), name("pp"), number("2"))
    assert spec.root.body[2].atoms == (st.Quantity(number=number("8"), unit="h"),)


def test_string_escapes():
    spec = parse('c { t "a \\"q\\" \\\\ b\\nc" }')
    assert spec.root.body[0].atoms[0].value == 'a "q" \\ b\nc'


def test_spans_are_character_offsets():
    text = "c {\n  baseline b300\n}\n"
    spec = parse(text)
    baseline = spec.root.body[0]
    assert text[baseline.span.start : baseline.span.end] == "baseline b300"
    assert text[baseline.atoms[0].span.start : baseline.atoms[0].span.end] == "b300"


def error_of(text: str):
    source = SourceFile("t.cmp", text)
    spec, diagnostics = parse_spec(source)
    assert spec is None and len(diagnostics) == 1
    d = diagnostics[0]
    return d, source.line_col(d.span.start)


def test_missing_brace_at_end_of_file_points_after_the_last_text():
    d, where = error_of('comparison "x" {\n  system a {\n    tp 8\n\n\n')
    assert d.code == "E002" and where == (3, 9)
    assert "line 2, column 12" in d.notes[0]


def test_eof_error_is_zero_width_at_end():
    d, _where = error_of('comparison "x" {\n  a b |')
    assert d.code == "E001" and d.span.start == d.span.end == len('comparison "x" {\n  a b |')
    assert "end of file" in d.message


def test_unexpected_token_names_expectations_in_the_languages_words():
    d, where = error_of('comparison "x" {\n  { a }\n}\n')
    assert d.message == "unexpected `{`"
    assert where == (2, 3)
    assert "RBRACE" not in d.label and "`}`" in d.label and "a name" in d.label


@pytest.mark.parametrize(
    ("text", "code", "where"),
    [
        ('c {\n  a "abc\n}\n', "E003", (2, 5)),
        ("c {\n\ta @\n}\n", "E004", (2, 4)),
        ("c {\n  é ✓\n}\n", "E004", (2, 3)),
        ("", "E001", (1, 1)),
        ("c {}\n}\n", "E001", (2, 1)),
    ],
)
def test_error_positions(text, code, where):
    d, found = error_of(text)
    assert (d.code, found) == (code, where)


def test_unicode_columns_count_characters():
    _d, where = error_of('c {\n  t "é✓" @\n}\n')
    assert where == (2, 10)


@pytest.mark.parametrize("text", ['c {\n  runs "a/*.json" where tp=8\n}\n', "c {\n  a: 1\n}\n"])
def test_an_equals_sign_is_told_keys_and_values_are_spaced(text):
    """A newcomer writes `where tp=8` (as on the command line) before `where tp 8`."""
    d, _ = error_of(text)
    assert d.code == "E004"
    assert d.help is not None and "separated by a space, not `=`" in d.help


def test_other_invalid_characters_keep_the_general_help():
    d, _ = error_of("c {\n\ta @\n}\n")
    assert d.help == "strings go in double quotes; comments start with `#`"
