"""`cmpc fmt`: idempotent, syntax-tree preserving, comments kept; random trees and text."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from cmpc.compile import compile_source
from cmpc.language.units import UNITS
from cmpc.source import SourceFile
from cmpc.syntax import tree as st
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import format_spec

REPO = Path(__file__).resolve().parents[1]
SPEC_FILES = sorted(
    p
    for p in [*REPO.glob("specs/*.cmp"), *REPO.glob("tests/**/*.cmp")]
    if parse_spec(SourceFile(p.name, p.read_text(encoding="utf-8")))[0] is not None
)


def fmt(text: str) -> str:
    spec, diagnostics = parse_spec(SourceFile("t.cmp", text))
    assert spec is not None, diagnostics
    return format_spec(spec, text)


def parse(text: str) -> st.Spec:
    spec, diagnostics = parse_spec(SourceFile("t.cmp", text))
    assert spec is not None, diagnostics
    return spec


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
def test_real_specs_format_stably(path: Path):
    text = path.read_text(encoding="utf-8")
    once = fmt(text)
    assert fmt(once) == once
    assert parse(once) == parse(text)
    assert [c.text for c in parse(once).comments] == [c.text for c in parse(text).comments]


def test_canonical_layout():
    text = (
        '# top\ncomparison   "x"{baseline b ; '
        "source s { role third_party;snapshot 2026-10-09 }\n\n\n"
        "  # about latency\n  latency {}   # none yet\n  tokens { count input+output }\n"
        "  list 1 ,2\n}  # end\n# tail\n"
    )
    assert fmt(text) == (
        "# top\n"
        'comparison "x" {\n'
        "  baseline b\n"
        "  source s {\n"
        "    role third_party\n"
        "    snapshot 2026-10-09\n"
        "  }\n"
        "\n"
        "  # about latency\n"
        "  latency {}  # none yet\n"
        "  tokens {\n"
        "    count input + output\n"
        "  }\n"
        "  list 1, 2\n"
        "}  # end\n"
        "# tail\n"
    )


def test_comment_inside_empty_block_and_after_open_brace_are_kept():
    text = 'c "x" {  # opens\n  b {\n    # nothing here yet\n  }\n}\n'
    assert fmt(text) == text


def test_percent_and_strings_print_canonically():
    assert fmt('c { u 60 %; t "a\\"b" }') == 'c {\n  u 60%\n  t "a\\"b"\n}\n'


# -- generated syntax trees -------------------------------------------------------------------

_UNIT_WORD = re.compile(
    r"(USD|EUR|tok|tokens|token|req|requests|J|kJ|W|kW|MW|GW|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|Wh|kWh"
    r"|MWh|gpu|gpus|GPU|GPUs|s|ms|us|ns|min|h|day|days|year|years)(/[A-Za-z]+)*"
)
names = hs.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,8}\Z").map(lambda v: st.Name(value=v))
strings = hs.text(
    alphabet=hs.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r")
    | hs.sampled_from('"\\\n\t'),
    max_size=12,
).map(lambda v: st.String(value=v))
number_texts = hs.one_of(
    hs.integers(-(10**6), 10**15).map(str),
    hs.floats(0, 1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
    hs.sampled_from(["155e12", "1.5E-3", ".5", "2."]),
)
numbers = number_texts.map(lambda t: st.Number(text=t))
quantities = hs.builds(
    lambda n, u: st.Quantity(number=st.Number(text=n), unit=u),
    number_texts,
    hs.sampled_from(sorted(u for u in UNITS if u == "%" or _UNIT_WORD.fullmatch(u))),
)
dates = hs.from_regex(r"\A\d{4}-\d{2}-\d{2}\Z").map(lambda t: st.Date(text=t))
symbols = hs.sampled_from(["+", ","]).map(lambda t: st.Symbol(text=t))
atoms = hs.one_of(names, strings, numbers, quantities, dates, symbols)


def _lexes_back(seq) -> bool:
    """A number followed by a unit word would re-lex as a quantity: not a printable tree."""
    return not any(
        isinstance(a, st.Number) and isinstance(b, st.Name) and _UNIT_WORD.fullmatch(b.value)
        for a, b in itertools.pairwise(seq)
    )


alternatives = (
    hs.lists(atoms, min_size=1, max_size=5)
    .filter(_lexes_back)
    .map(lambda seq: st.Alternative(atoms=tuple(seq)))
)
entries = hs.recursive(
    hs.builds(
        lambda k, alts: st.Entry(key=k, alternatives=tuple(alts)),
        names,
        hs.lists(alternatives, max_size=3),
    ),
    lambda children: hs.builds(
        lambda k, alts, body: st.Entry(key=k, alternatives=tuple(alts), body=tuple(body)),
        names,
        hs.lists(alternatives, max_size=2),
        hs.lists(children, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries)
def test_generated_trees_print_and_parse_back_equal(root: st.Entry):
    spec = st.Spec(root=root)
    text = format_spec(spec)
    again = parse(text)
    assert again == spec
    assert format_spec(again, text) == text


@settings(max_examples=300, deadline=None)
@given(hs.text(max_size=200))
def test_arbitrary_text_never_crashes_the_parser(text: str):
    spec, diagnostics = parse_spec(SourceFile("t.cmp", text))
    assert (spec is None) == bool(diagnostics)


@settings(max_examples=200, deadline=None)
@given(hs.data())
def test_mutated_real_specs_never_crash(data):
    path = data.draw(hs.sampled_from(SPEC_FILES))
    text = path.read_text(encoding="utf-8")
    start = data.draw(hs.integers(0, len(text)))
    end = data.draw(hs.integers(start, min(len(text), start + 20)))
    insert = data.draw(hs.text(alphabet='{}|;+,"#\n x9%', max_size=5))
    mutated = text[:start] + insert + text[end:]
    compile_source(SourceFile("t.cmp", mutated))  # the checker never raises either
    spec, _ = parse_spec(SourceFile("t.cmp", mutated))
    assume(spec is not None)
    once = format_spec(spec, mutated)
    assert parse(once) == spec


@pytest.mark.parametrize(
    "path",
    [*sorted(REPO.glob("specs/*.cmp")), REPO / "compiler" / "cmpc" / "verbs" / "starter.cmp"],
    ids=lambda p: p.name,
)
def test_shipped_specs_are_in_canonical_form(path: Path):
    """`cmpc fmt --check specs/*.cmp` passes: what users copy is what `cmpc fmt` writes."""
    text = path.read_text(encoding="utf-8")
    assert fmt(text) == text
