"""Field-level trace mutants: the real benchmark outputs of every format with numeric fields set
to extreme values, keys renamed or dropped, arrays truncated and types changed, read by `cmpc
stats`, `cmpc sweep` and a build of a spec that reads them, in a scratch tree compared before
and after. Whatever the file says, cmpc exits 0, 1 or 2 with a diagnostic, never a traceback,
and writes nothing outside its output and cache folders; a failed build leaves the previous
outputs."""

from __future__ import annotations

import functools
import json
import math
import random
import shutil
from pathlib import Path

import pytest

from cmpc.traces import detect

from .helpers import SCALE, TRACES
from .tree import assert_no_links, make_sandbox


def _format(path: Path) -> str | None:
    with open(path, "rb") as handle:
        found = detect.candidates(handle.read(detect.HEAD_BYTES))
    return found[0] if len(found) == 1 else None


# Every real trace whose format is detected (summary-only files are no run), by format.
BY_FORMAT: dict[str, list[Path]] = {}
for _path in TRACES:
    if (_fmt := _format(_path)) is not None:
        BY_FORMAT.setdefault(_fmt, []).append(_path)
FORMATS = sorted(BY_FORMAT)

SPEC = """comparison "fuzzed {fmt} runs" {{
  question "Does a mutated file build cleanly?"
  baseline b
  latency {{
    metric tpot
    statistic median
  }}
  normalize per gpu
  system a {{
    accelerator "A" x 8
    parallel tp 8
    runs "data/a/*" format {fmt}
  }}
  system b {{
    accelerator "B" x 8
    parallel tp 8
    runs "data/b/*" format {fmt}
  }}
}}
"""


@functools.cache
def documents(path: Path) -> tuple[bool, tuple]:
    """(is JSONL, the documents) of a trace."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return True, tuple(json.loads(line) for line in text.splitlines() if line.strip())
    return False, (json.loads(text),)


def _walk(value, prefix=()):
    """Paths to the values of a document (lists: first, middle and last items only)."""
    yield prefix, value
    if isinstance(value, dict):
        for key in list(value)[:64]:
            yield from _walk(value[key], (*prefix, key))
    elif isinstance(value, list) and value:
        for i in sorted({0, len(value) // 2, len(value) - 1}):
            yield from _walk(value[i], (*prefix, i))


@functools.cache
def paths(path: Path, index: int) -> dict[str, tuple]:
    """The paths of document `index` a mutation of each kind can act on."""
    found = list(_walk(documents(path)[1][index]))
    numbers = [p for p, v in found if isinstance(v, int | float) and not isinstance(v, bool)]
    return {
        "extreme": tuple(numbers),
        "rename": tuple(p for p, _ in found if p and isinstance(p[-1], str)),
        "drop": tuple(p for p, _ in found if p),
        "truncate": tuple(p for p, v in found if isinstance(v, list) and v),
        "retype": tuple(p for p, _ in found),
    }


KINDS = ("extreme", "rename", "drop", "truncate", "retype")
EXTREMES = [0, -0.0, -1, 1e308, -1e308, 5e-324, 1e-320, 0.5, 2**53 + 1, 2**63, 2**64 + 1,
            10**400, -(10**400), float("nan"), float("inf"), float("-inf")]  # fmt: skip


def _renamed(key: str, siblings: list, rng: random.Random) -> str:
    others = [k for k in siblings if k != key]
    return rng.choice(
        [key.upper(), key + "_", "", key[:-1], f" {key}", key.replace("_", "-"), "x" * 3]
        + ([rng.choice(others)] if others else [])
    )


def _retyped(value, rng: random.Random):
    if isinstance(value, bool) or value is None:
        return rng.choice([1, "true", [], {}])
    if isinstance(value, int | float):
        return rng.choice([str(value), [value], {"value": value}, None, True])
    if isinstance(value, str):
        return rng.choice([1, -1.5, [value], {}, None, value.encode("utf-8", "replace").hex()])
    if isinstance(value, list):
        return rng.choice([{str(i): v for i, v in enumerate(value[:50])}, "[]", len(value), None])
    return rng.choice([list(value.values())[:50], "{}", 0, None])


def _change(value, path: tuple, kind: str, rng: random.Random):
    """`value` with the mutation applied at `path`; only the containers on the path copied."""
    if len(path) > 1:
        copy = dict(value) if isinstance(value, dict) else list(value)
        copy[path[0]] = _change(value[path[0]], path[1:], kind, rng)
        return copy
    if kind == "drop" and isinstance(value, list):
        return value[: path[0]] + value[path[0] + 1 :]
    if kind in ("rename", "drop"):
        new = _renamed(path[0], list(value), rng) if kind == "rename" else None
        copy = {}
        for key, item in value.items():
            if key != path[0]:
                copy.setdefault(key, item)
            elif new is not None:
                copy[new] = item
        return copy
    if not path:
        return _leaf(value, kind, rng)
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _leaf(value[path[0]], kind, rng)
    return copy


def _leaf(value, kind: str, rng: random.Random):
    if kind == "extreme":
        return rng.choice(EXTREMES)
    if kind == "truncate":
        return value[: rng.choice([0, 1, len(value) // 2, len(value) - 1])]
    return _retyped(value, rng)


def mutant(case: int) -> tuple[str, Path, list[tuple], bytes]:
    """Case `case`: a format (in turn), one of its traces, one to three field edits (the first
    of kind `case % 5`), and the mutated bytes."""
    rng = random.Random(f"trace-fields-{case}")
    fmt = FORMATS[case % len(FORMATS)]
    source = rng.choice(BY_FORMAT[fmt])
    lines, docs = documents(source)
    docs = list(docs)
    edits = []
    for n in range(rng.choice((1, 1, 2, 3))):
        kind = KINDS[case % len(KINDS)] if n == 0 else rng.choice(KINDS)
        if not docs:
            break
        index = rng.randrange(len(docs))
        if lines and kind == "truncate" and rng.random() < 0.3:  # lines of a JSONL file
            keep = rng.choice([0, 1, len(docs) // 2])
            docs, edits = docs[:keep], [*edits, ("lines", keep)]
            continue
        choices = [p for p in paths(source, index)[kind] if _holds(docs[index], p)]
        if not choices:
            continue
        path = rng.choice(choices)
        docs[index] = _change(docs[index], path, kind, rng)
        edits.append((kind, index, path))
    if lines:
        data = "".join(json.dumps(d) + "\n" for d in docs)
    else:
        data = json.dumps(docs[0], indent=rng.choice([None, 2])) if docs else ""
    return fmt, source, edits, data.encode("utf-8")


def _holds(doc, path: tuple) -> bool:
    """Whether `path` still leads to a value after earlier edits changed the document."""
    for step in path:
        try:
            doc = doc[step]
        except (KeyError, IndexError, TypeError):
            return False
    return True


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    root = tmp_path_factory.mktemp("trace-mutants")
    with pytest.MonkeyPatch.context() as patch:
        yield make_sandbox(root, patch)


def _place(box, fmt: str, source: Path, data: bytes) -> Path:
    """The spec, the mutant in `data/a/`, the original in `data/b/`: real files, no links."""
    for side in ("a", "b"):
        shutil.rmtree(box.specs / "data" / side, ignore_errors=True)
        (box.specs / "data" / side).mkdir(parents=True)
    shutil.copyfile(source, box.specs / "data" / "b" / source.name)
    target = box.specs / "data" / "a" / source.name
    target.write_bytes(data)
    (box.specs / "fuzz.cmp").write_text(SPEC.format(fmt=fmt), encoding="utf-8")
    assert_no_links(box.specs)
    return target


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_reads_back_unmutated(capsys, box, fmt):
    """The mutants are written as `json.dumps` writes them: unmutated, that reads and builds,
    so the mutants reach the readers and not only format detection."""
    source = BY_FORMAT[fmt][0]
    lines, docs = documents(source)
    data = "".join(json.dumps(d) + "\n" for d in docs) if lines else json.dumps(docs[0])
    target = _place(box, fmt, source, data.encode("utf-8"))
    assert box.run(capsys, ["stats", str(target)])[0] == 0
    argv = ["build", str(box.specs / "fuzz.cmp"), "-o", str(box.out), "--quiet"]
    assert box.run(capsys, argv)[0] == 0


@pytest.mark.parametrize("case", range(2 * len(FORMATS) * SCALE))
def test_field_mutated_traces_give_diagnostics(capsys, box, case):
    fmt, source, edits, data = mutant(case)
    target = _place(box, fmt, source, data)
    if case % 4 == 0:
        shutil.rmtree(box.out, ignore_errors=True)  # no previous outputs
    forced = ["--format", fmt] if case % 2 else []
    try:
        code, out, _ = box.run(capsys, ["stats", str(target), "--json", *forced])
        if code == 0:
            _finite_or_null(json.loads(out))
        box.run(capsys, ["sweep", str(target), *forced])
        box.run(capsys, ["build", str(box.specs / "fuzz.cmp"), "-o", str(box.out), "--quiet"])
    except AssertionError as failure:
        raise AssertionError(f"{source.name} {edits}: {failure}") from None


def _finite_or_null(value) -> None:
    """`--json` is strict JSON: no NaN or Infinity carried over from the file."""
    if isinstance(value, float):
        assert math.isfinite(value), value
    elif isinstance(value, dict):
        for item in value.values():
            _finite_or_null(item)
    elif isinstance(value, list):
        for item in value:
            _finite_or_null(item)
