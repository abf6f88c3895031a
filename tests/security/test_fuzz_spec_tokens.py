"""Token-level spec mutants, checked and built in a scratch tree that is compared before and
after: every numeric slot of every showcase spec gets extreme, negative, NaN-like, huge and
malformed numbers (unit kept, or dropped), and tokens are swapped, duplicated and deleted.
Whatever the spec says, cmpc exits 0, 1 or 2 with a diagnostic, never a traceback, and writes
nothing outside its output and cache folders; a failed build leaves the previous outputs."""

from __future__ import annotations

import random
import re
import shutil

import pytest

from cmpc.language.units import UNITS

from .helpers import REPO, SCALE, SPECS
from .tree import assert_no_links, make_sandbox

_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*"?)|(?P<comment>#[^\n]*)|(?P<space>[ \t]+|\n)'
    r"|(?P<date>\d{4}-\d{2}-\d{2})"
    r"|(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    rf"(?P<unit>[ \t]*(?:{_UNIT})(?![\w/]))?"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_.\-]*)|(?P<other>.)"
)


def tokens(text: str) -> list[re.Match]:
    found = list(TOKEN.finditer(text))
    assert "".join(m.group() for m in found) == text  # the tokens are the whole text
    return found


TEXTS = {p.stem: p.read_text(encoding="utf-8") for p in SPECS}
TOKENS = {name: tokens(text) for name, text in TEXTS.items()}
NUMBERS = [
    "0", "-1", "-0", "1e309", "1e-320", "4.9e-324", "1e300", "9" * 5000, "NaN", "nan", "inf",
    "-inf", "1_000", "0x10", "1e", ".5", "5.", "%",
]  # fmt: skip
# Each number with the slot's unit kept, then each with it dropped.
VARIANTS = [(n, True) for n in NUMBERS] + [(n, False) for n in NUMBERS]
SLOTS = [(name, i) for name in TOKENS for i, m in enumerate(TOKENS[name]) if m.group("number")]
# Every slot meets SCALE variants; across the 100-odd slots every variant meets many kinds.
NUMERIC_CASES = [
    (name, i, *VARIANTS[(k + j) % len(VARIANTS)])
    for k, (name, i) in enumerate(SLOTS)
    for j in range(min(SCALE, len(VARIANTS)))
]


def _with_number(name: str, index: int, number: str, keep_unit: bool) -> str:
    toks = [m.group() for m in TOKENS[name]]
    unit = TOKENS[name][index].group("unit") or ""
    toks[index] = number + (unit if keep_unit else "")
    return "".join(toks)


def _case_id(case: tuple) -> str:
    name, index, number, keep_unit = case
    line = TEXTS[name][: TOKENS[name][index].start()].count("\n") + 1
    shown = "9x5000" if len(number) > 20 else number
    return f"{name}:{line}:{TOKENS[name][index].group()}->{shown}{'+unit' if keep_unit else ''}"


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    """The showcase specs and their data copied (no links), each built once into `out/`."""
    root = tmp_path_factory.mktemp("token-mutants")
    shutil.copytree(REPO / "specs", root / "specs", symlinks=False)
    assert_no_links(root / "specs")
    with pytest.MonkeyPatch.context() as patch:
        sandbox = make_sandbox(root, patch)
        from cmpc.cli import main

        for name in TEXTS:  # warm the cache, so a case times its own work
            assert main(["build", str(sandbox.specs / f"{name}.cmp"), "-o", str(sandbox.out),
                         "--quiet"]) == 0  # fmt: skip
        yield sandbox


def _check_and_build(capsys, box, name: str, text: str, fresh: bool) -> None:
    """`check` then `build` of one mutant; a spec `check` refuses never builds."""
    spec = box.specs / f"{name}.cmp"
    spec.write_text(text, encoding="utf-8")
    if fresh:
        shutil.rmtree(box.out, ignore_errors=True)
    checked = box.run(capsys, ["check", str(spec)])[0]
    built = box.run(capsys, ["build", str(spec), "-o", str(box.out), "--quiet"])[0]
    if checked:
        assert built, f"`check` exits {checked} yet the build succeeds"


@pytest.mark.parametrize("case", NUMERIC_CASES, ids=map(_case_id, NUMERIC_CASES))
def test_every_numeric_slot_takes_any_number(capsys, box, case):
    name, index, number, keep_unit = case
    fresh = index % 2 == 0  # half the builds have no previous outputs
    _check_and_build(capsys, box, name, _with_number(name, index, number, keep_unit), fresh)


KINDS = ("swap", "duplicate", "delete")


def _significant(name: str) -> list[int]:
    return [i for i, m in enumerate(TOKENS[name]) if m.lastgroup not in ("space", "comment")]


def token_edits(case: int) -> tuple[str, list[tuple]]:
    """Case `case`: a spec and one to three token edits, the first of kind `case % 3`."""
    rng = random.Random(f"spec-tokens-{case}")
    name = sorted(TEXTS)[case // len(KINDS) % len(TEXTS)]
    where = _significant(name)
    edits = []
    for n in range(rng.choice((1, 1, 2, 3))):
        kind = KINDS[case % len(KINDS)] if n == 0 else rng.choice(KINDS)
        at = rng.choice(where)
        if kind == "swap":
            edits.append((kind, at, rng.choice(where)))
        elif kind == "duplicate":  # beside itself, or somewhere else
            edits.append((kind, at, rng.choice([at, at, rng.choice(where)])))
        else:
            edits.append((kind, at, rng.choice((1, 1, 1, 2, 3))))
    return name, edits


def apply_token_edits(name: str, edits: list[tuple]) -> str:
    toks = [m.group() for m in TOKENS[name]]
    for kind, at, arg in edits:  # indices of the original text, so edits stay independent
        if kind == "swap":
            toks[at], toks[arg] = toks[arg], toks[at]
        elif kind == "duplicate":
            toks[arg] = f"{toks[arg]} {TOKENS[name][at].group()}"
        else:
            kept = [i for i in _significant(name) if i >= at][:arg]
            for i in kept:
                toks[i] = ""
    return "".join(toks)


@pytest.mark.parametrize("case", range(45 * SCALE))
def test_swapped_duplicated_and_deleted_tokens(capsys, box, case):
    name, edits = token_edits(case)
    text = apply_token_edits(name, edits)
    try:
        _check_and_build(capsys, box, name, text, fresh=case % 4 == 0)
    except AssertionError as failure:
        raise AssertionError(f"{name} {edits}: {failure}") from None


def test_the_net_sees_every_write_outside_the_output_folder(capsys, box):
    """What the cases rely on: a spec rewritten in place (`cmpc fmt`), a data file rewritten at
    its size and time, outputs changed by a failing build and litter beside them are caught."""
    import os
    import sys

    spec = box.specs / "synthetic-sweep.cmp"
    spec.write_text(TEXTS["synthetic-sweep"].replace("baseline beta", "baseline  beta"))
    with pytest.raises(AssertionError, match=re.escape(repr("specs/synthetic-sweep.cmp"))):
        box.run(capsys, ["fmt", str(spec)])
    data = next((box.specs / "data" / "synthetic").rglob("*.jsonl"))
    cmpc = box.specs / "cmpc.cmp"  # nothing reads it
    cmpc.write_text("", encoding="utf-8")
    box.out.mkdir(exist_ok=True)
    writes = {
        str(data.relative_to(box.root)): lambda: _same_size_rewrite(data),
        "out/report.md": lambda: (box.out / "report.md").write_text("half", encoding="utf-8"),
        ".out.x1y2z3": lambda: (box.root / ".out.x1y2z3").mkdir(),
    }
    for stray, write in writes.items():
        code = 1 if stray.startswith("out") else 0

        def main(argv, write=write, code=code):
            write()
            print("error[E000]: said" if code else "", file=sys.stderr)
            return code

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("cmpc.cli.main", main)
            with pytest.raises(AssertionError, match=re.escape(repr(stray))):
                box.run(capsys, ["build", str(cmpc), "-o", str(box.out)])
    _same_size_rewrite(data)  # back as it was, for the cases that may follow
    os.rmdir(box.root / ".out.x1y2z3")
    shutil.rmtree(box.out)


def _same_size_rewrite(path) -> None:
    """One byte changed, size and modification time put back as they were."""
    import os

    info = path.stat()
    body = bytearray(path.read_bytes())
    body[-2] ^= 1
    path.write_bytes(bytes(body))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
