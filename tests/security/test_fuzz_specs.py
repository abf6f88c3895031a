"""Fuzzed specs: real specs mutated token by token and line by line, specs generated from the
grammar, random `--set` overrides. `cmpc check`, `fmt` and `build` exit 0, 1 or 2 with
diagnostics, never a traceback, and every case ends within a deadline."""

from __future__ import annotations

import functools
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from cmpc.language import vocabulary as V
from cmpc.language.units import UNITS

from .helpers import REPO, SPECS, fuzz, run_cli

TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|\n|[ \t]+|\d{4}-\d{2}-\d{2}'
    r"|[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?:[ \t]*(?:%|[A-Za-z]+(?:/[A-Za-z]+)*))?"
    r"|[A-Za-z_][A-Za-z0-9_.\-]*|."
)


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


TEXTS = {p.name: p.read_text(encoding="utf-8") for p in SPECS}
TOKENS = {name: tokens(text) for name, text in TEXTS.items()}
WORDS = sorted(
    w
    for k, v in vars(V).items()
    if k.isupper() and isinstance(v, dict | tuple)
    for w in v
    if isinstance(w, str)
)
CORPUS = sorted({t for ts in TOKENS.values() for t in ts if t.strip() and not t.startswith("#")})
EDGES = [
    "0", "-1", "-0", "0.0", "1e308", "1e-320", "1e999", "-1e999", "99999999999999999999999", ".5",
    "1e", "0 %", "100%", "101%", "-5%", "1e308 USD/gpu/h", "0 USD/gpu/h", "0 tok/s/user",
    "1e-300 tok/s/user", "1e300 tok/s/user", "0 GB", "1e30 GB", "0 kW", "0 W", "0 ms", "-3 ms",
    "2026-02-30", "0000-00-00", "9999-12-31", "2026-13-01", '""', '"\\u00e9"', '"x\\q"',
    '"' + "x" * 5000 + '"', '"{{ 7*7 }}"', "\"{% include 'x' %}\"", '"<script>"', '"|"', '"\\n"',
    '"<script>alert(1)</script>"', '"javascript:alert(1)"', '"<img src=x onerror=alert(1)>"',
    '"](javascript:alert(1))"', '"<svg onload=alert(1)>"', "x 0", "x 100000", "x -1", "p0",
    "p100", "p99.999", "p-1", "mean", "median", "p", "conc 0",
    "unknown", "|", "+", ",", ";", "{", "}", "{}", "\n", "\\\n", "\u00e9", "\u202e", "\x00",
]  # fmt: skip
UNIT_WORDS = sorted(u for u in UNITS if u.isascii())
# Names that begin like another token: a unit, a number, a date (the lexer must keep them whole).
LOOKALIKES = hs.builds(
    lambda head, tail: head + tail,
    hs.sampled_from(
        [
            "ms",
            "s",
            "B",
            "GB",
            "W",
            "kW",
            "h",
            "min",
            "tok",
            "tokens",
            "gpu",
            "p90",
            "x",
            "e",
            "E",
            "_",
            "2026-01-01",
            "1",
        ]
    ),
    hs.sampled_from([".", ".v2", "-x", "_1", ".5", "-", "e5", "/x", "%", ""]),
)


@hs.composite
def spec_edits(draw) -> tuple[str, list[tuple]]:
    """A real spec and token edits to it: small to print when a case fails."""
    name = draw(hs.sampled_from(sorted(TEXTS)))
    size = len(TOKENS[name])
    pool = hs.sampled_from(CORPUS) | hs.sampled_from(WORDS) | hs.sampled_from(EDGES) | LOOKALIKES
    pool |= hs.builds(
        lambda n, u: f"{n} {u}", hs.sampled_from(["1", "0", "2.5", "-1", "1e9"]),
        hs.sampled_from(UNIT_WORDS),
    )  # fmt: skip
    edits = []
    for _ in range(draw(hs.integers(1, 5))):
        op = draw(hs.sampled_from(["replace", "replace", "replace", "insert", "delete", "lines",
                                   "splice", "swap", "name"]))  # fmt: skip
        at = draw(hs.integers(0, size))
        if op == "name" and SLOTS[name][0]:  # a value that begins like another token
            edits.append((op, draw(hs.sampled_from(SLOTS[name][0])), draw(LOOKALIKES)))
        elif op in ("replace", "insert"):
            edits.append((op, at, draw(pool)))
        elif op == "splice":
            other = draw(hs.sampled_from(sorted(TEXTS)))
            lo = draw(hs.integers(0, len(TOKENS[other])))
            edits.append((op, at, other, lo, draw(hs.integers(1, 40))))
        else:
            edits.append((op, at, draw(hs.integers(1, 30))))
    return name, edits


def apply_edits(name: str, edits: list[tuple]) -> str:
    toks = list(TOKENS[name])
    for op, at, *args in edits:
        at = min(at, len(toks))
        if op == "replace" and toks:
            real = [i for i in range(at, len(toks)) if toks[i].strip()] or [len(toks) - 1]
            toks[real[0]] = args[0]
        elif op == "insert":
            toks[at:at] = [" ", args[0], " "]
        elif op == "delete":
            del toks[at : at + args[0]]
        elif op == "lines":  # delete whole lines: entries and block ends disappear together
            ends = [i for i, t in enumerate(toks) if t == "\n" and i >= at][: args[0]]
            if ends:
                del toks[at : ends[-1] + 1]
        elif op == "splice":
            other, lo, n = args
            toks[at:at] = TOKENS[other][lo : lo + n]
        elif op == "name" and at < len(toks):
            toks[at] = args[0]
        elif op == "swap" and toks:
            j = min(len(toks) - 1, at + args[0])
            toks[at % len(toks)], toks[j] = toks[j], toks[at % len(toks)]
    return "".join(toks)


def _value_slots(toks: list[str]) -> tuple[list[int], list[tuple[int, int]]]:
    """Token indices of values (not keys, punctuation or comments), and the token spans of lines
    that hold no brace: edits there keep a spec parseable, so builds get past the parser."""
    values, lines, start, first = [], [], 0, True
    for i, tok in enumerate(toks):
        if tok == "\n":
            if not any(t in ("{", "}") for t in toks[start:i]):
                lines.append((start, i + 1))
            start, first = i + 1, True
        elif tok.strip() and not tok.startswith("#"):
            if not first and tok not in ("{", "}", "|", "+", ",", ";"):
                values.append(i)
            first = False
    return values, lines


SLOTS = {name: _value_slots(toks) for name, toks in TOKENS.items()}
VALUES = [t for t in CORPUS if t not in ("{", "}", "|", "+", ",", ";")]
VALUE_EDGES = [e for e in EDGES if e.strip() and e not in ("{", "}", "{}", "|", ";", "\\\n")]


@hs.composite
def value_edits(draw) -> tuple[str, list[tuple]]:
    """A real spec with values replaced or entry lines dropped: parseable, often checkable."""
    name = draw(hs.sampled_from(sorted(TEXTS)))
    values, lines = SLOTS[name]
    pool = hs.sampled_from(VALUES) | hs.sampled_from(WORDS) | hs.sampled_from(VALUE_EDGES)
    pool |= LOOKALIKES
    edits = []
    for _ in range(draw(hs.integers(1, 3))):
        if lines and draw(hs.integers(0, 4)) == 0:
            edits.append(("drop", draw(hs.sampled_from(lines))))
        elif values:
            edits.append(("set", draw(hs.sampled_from(values)), draw(pool)))
    return name, edits


def apply_value_edits(name: str, edits: list[tuple]) -> str:
    toks = list(TOKENS[name])
    for edit in edits:
        if edit[0] == "set":
            toks[edit[1]] = edit[2]
    for edit in sorted((e for e in edits if e[0] == "drop"), reverse=True):
        lo, hi = edit[1]
        toks[lo:hi] = ["\n"] * (hi - lo)
    return "".join(toks)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The real specs with their data in a scratch folder, a private cache, serial reductions."""
    root = tmp_path_factory.mktemp("specs")
    shutil.copytree(REPO / "specs", root / "specs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CMPC_CACHE_DIR", str(root / "cache"))
        patch.setattr("cmpc.ingest.reduce._workers", lambda: 1)
        from cmpc.build.pipeline import build_spec

        for spec in sorted((root / "specs").glob("*.cmp")):  # warm the cache: cases time builds
            build_spec(str(spec), out_dir=str(root / "warm"), render=False, use_cache=True)
        yield root


def _write(workspace: Path, text: str) -> Path:
    spec = workspace / "specs" / "mutant.cmp"
    spec.write_text(text, encoding="utf-8")
    return spec


@fuzz(120)
@given(case=spec_edits(), diagnostics=hs.sampled_from(["human", "short", "json", "github"]))
def test_mutated_specs_check_and_format_cleanly(capsys, workspace, case, diagnostics):
    spec = _write(workspace, apply_edits(*case))
    code, out, err = run_cli(capsys, ["check", str(spec), "--format", diagnostics])
    if diagnostics == "json":
        envelope = json.loads(out)
        assert envelope["valid"] == (code == 0)
    elif code == 1:
        assert "E" in err
    code, _, _ = run_cli(capsys, ["fmt", "--check", str(spec)])
    assert code in (0, 1)


def _active_html(page: str) -> list[str]:
    """Scripts, event handlers and javascript: URLs in a page (escaped text does not count),
    other than cmpc's own vendored script, byte for byte."""
    from html.parser import HTMLParser

    from cmpc.report.html import script

    ours = f"<script>{script()}</script>"
    assert page.count(ours) == 1
    page = page.replace(ours, "")
    found: list[str] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag in ("script", "iframe", "object", "embed"):
                found.append(tag)
            for name, value in attrs:
                if name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                    found.append(f"{tag} {name}={value}")

    Parser().feed(page)
    return found


@fuzz(40, deadline_ms=10_000)
@given(case=value_edits())
def test_mutated_specs_build_cleanly(capsys, workspace, case):
    spec = _write(workspace, apply_value_edits(*case))
    out = workspace / "out"
    shutil.rmtree(out, ignore_errors=True)
    argv = ["build", str(spec), "-o", str(out), "--quiet", "--format", "html"]
    code, _, err = run_cli(capsys, argv, seconds=30)
    if code == 0:
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        assert results["spec"]["file"].endswith("mutant.cmp")
        assert (out / "report.md").read_text(encoding="utf-8").strip()
        assert _active_html((out / "report.html").read_text(encoding="utf-8")) == []

    else:
        assert "error[" in err and not out.exists()


OVERRIDE_PATHS = [
    "cost.utilization", "latency.target", "latency.statistic", "latency.metric", "latency.read",
    "tokens.count", "tokens.reused", "normalize", "baseline", "system.mi355x.price",
    "system.b300.accelerator", "system.mi355x.reported.ratio", "system.alpha.runs",
    "system.beta.parallel", "sensitivity.statistic", "claim.daily_tokens.value", "question",
    "system", "system.nope.price", "", ".", "a..b", "latency.target.extra", "cost",
]  # fmt: skip
OVERRIDE_VALUES = [
    "40%", "0%", "100%", "250%", "-1", "0", "1e308", "p90", "p0", "median", "gpu", "dollar",
    "input", "input + output", "b300", "alpha", "nope", '"text"', '"{{ 7 * 7 }}"', "{", "}",
    "a { b }", "1 | 2", "30 tok/s/user", "0 tok/s/user", "1.5 USD/gpu/h", "x 0", "linear",
    '"../outside/*.jsonl" format cmpc', '"/etc/*" format vllm', "2026-01-01", "#", "\n",
]  # fmt: skip


@fuzz(40, deadline_ms=10_000)
@given(
    spec=hs.sampled_from(sorted(TEXTS)),
    sets=hs.lists(
        hs.builds(
            lambda p, v: f"{p}={v}",
            hs.sampled_from(OVERRIDE_PATHS),
            hs.sampled_from(OVERRIDE_VALUES) | hs.text(max_size=12),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_random_overrides_build_cleanly(capsys, workspace, spec, sets):
    out = workspace / "out-set"
    argv = ["build", str(workspace / "specs" / spec), "-o", str(out), "--quiet"]
    for item in sets:
        argv += ["--set", item]
    code, _, err = run_cli(capsys, argv, seconds=30)
    if code:
        assert "error[" in err


@fuzz(80)
@given(
    name=hs.sampled_from(sorted(TEXTS)),
    data=hs.data(),
)
def test_values_that_begin_like_other_tokens_check_cleanly(capsys, workspace, name, data):
    slot = data.draw(hs.sampled_from(SLOTS[name][0]))
    toks = list(TOKENS[name])
    toks[slot] = data.draw(LOOKALIKES)
    spec = _write(workspace, "".join(toks))
    run_cli(capsys, ["check", str(spec)])
    run_cli(capsys, ["fmt", "--check", str(spec)])


@fuzz(80)
@given(text=hs.text(max_size=300))
def test_arbitrary_text_checks_cleanly(capsys, workspace, text):
    spec = _write(workspace, text)
    run_cli(capsys, ["check", str(spec)])
    run_cli(capsys, ["fmt", "--check", str(spec)])


@fuzz(50)
@given(data=hs.binary(max_size=200))
def test_arbitrary_bytes_check_cleanly(capsys, workspace, data):
    spec = workspace / "specs" / "bytes.cmp"
    spec.write_bytes(data)
    code, _, _ = run_cli(capsys, ["check", str(spec)])
    if code == 2:  # not UTF-8: an I/O error, named
        pass


@functools.cache
def _grammar_strategy():
    from hypothesis.extra.lark import from_lark
    from lark import Lark

    from cmpc.syntax.grammar import grammar_text

    grammar = grammar_text()
    names = hs.sampled_from(WORDS) | hs.from_regex(r"\A[a-z_][a-z0-9_]{0,6}\Z")
    return from_lark(
        Lark(grammar, parser="lalr", lexer="contextual"),
        explicit={
            "NAME": names,
            "STRING": hs.sampled_from(['"x"', '""', '"a\\"b"', '"{{ x }}"']),
            "UNIT": hs.sampled_from([*UNIT_WORDS, "%"]),
            "DATE": hs.sampled_from(["2026-10-09", "0000-00-00", "2026-02-30"]),
            "_NL": hs.just("\n"),
            "NUMBER": hs.sampled_from(["0", "1", "-2.5", "1e308", ".5", "8"]),
        },
    )


@fuzz(60)
@given(text=hs.deferred(lambda: _grammar_strategy()))
def test_grammar_generated_specs_check_cleanly(capsys, workspace, text):
    spec = _write(workspace, text)
    run_cli(capsys, ["check", str(spec)])
    run_cli(capsys, ["fmt", "--check", str(spec)])


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_prefix_of_a_real_spec_checks_cleanly(capsys, workspace, name):
    """Truncation at every line: what an interrupted editor or a cut-off paste leaves."""
    lines = TEXTS[name].splitlines(keepends=True)
    for n in range(0, len(lines), max(1, len(lines) // 25)):
        run_cli(capsys, ["check", str(_write(workspace, "".join(lines[:n])))])


def test_hostile_labels_stay_inert_in_the_frontier_figure_and_html(capsys, tmp_path):
    from .helpers import copy_spec

    spec = copy_spec(REPO / "specs" / "synthetic-sweep.cmp", tmp_path / "spec")
    text = spec.read_text(encoding="utf-8")
    hostile = '"</text><script>alert(1)</script><a href=\\"javascript:alert(2)\\">x</a>"'
    text = re.sub(r'label "[^"]*"', lambda _: f"label {hostile}", text)
    spec.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["build", str(spec), "-o", str(out), "--no-cache", "--quiet", "--format", "html"]
    code, _, err = run_cli(capsys, argv)
    assert code == 0, err
    assert "<script" not in (out / "figures" / "frontier.svg").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "alert(1)" in page  # shown, as text
    assert _active_html(page) == []


@pytest.mark.parametrize("value", ["ms.v2", "B.", "GB-x", "s.1", "tok.a # note", '"#" h.x  # c'])
def test_names_that_begin_with_a_unit_word_check_cleanly(capsys, workspace, value):
    """Found by fuzzing: comments were collected by lark's context-free lexer, which reads the
    `ms` of `ms.v2` as a unit and then fails on `.`: `cmpc check` raised on a valid spec."""
    spec = _write(workspace, f'comparison "x" {{\n  question "q"\n  model {value}\n}}\n')
    err = run_cli(capsys, ["check", str(spec)])[2]
    assert "E0" not in err
    assert run_cli(capsys, ["fmt", "--check", str(spec)])[0] in (0, 1)
