"""Fuzzed traces: real benchmark outputs of every format, mutated byte-wise and value-wise, read
by `cmpc stats` and `cmpc sweep` with detected and forced formats. Whatever the bytes, cmpc
exits 0, 1 or 2 with diagnostics, never a traceback, within a deadline."""

from __future__ import annotations

import functools
import json
import math
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as hs

from cmpc.traces import FORMATS

from .helpers import TRACES, fuzz, run_cli

FUZZ = fuzz(100)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    """Every real trace, plus an SGLang result line made from a vLLM result (none is shipped)."""
    folder = tmp_path_factory.mktemp("corpus")
    vllm = next((p for p in TRACES if p.suffix == ".json" and "llama70b" in str(p)), None)
    files = list(TRACES)
    if vllm is not None:
        doc = json.loads(vllm.read_text(encoding="utf-8"))
        doc["total_output_tokens_retokenized"] = doc.get("total_output_tokens", 0)
        sglang = folder / "sglang.jsonl"
        sglang.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n", encoding="utf-8")
        files.append(sglang)
    assert files and vllm is not None, "no real traces found: the repo needs ../shared beside it"
    return files


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mutants")


@functools.cache
def _bytes(path: Path) -> bytes:
    return path.read_bytes()


SNIPPETS = [b"NaN", b"Infinity", b"-1", b"1e999", b"-0", b"null", b"true", b"[]", b"{}", b'""',
            b'"x"', b"[[[[[[[[", b"]]]]", b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\n", b"\r\n",
            b",", b":", b'"', b"\\", b"1" * 400, b"[" * 5000, b'{"a":' * 3000, b"\"\\ud800\"",
            b'"cmpc_trace": 1', b'"itls": [[1,2],[3]]', b'"completed": 0', b'"duration": 0',
            b'"request_throughput": 1', b'"experiments": []', b'"benchmarks": [{}]']  # fmt: skip


@hs.composite
def byte_edits(draw, corpus) -> tuple[Path, list[tuple]]:
    """A trace and byte edits to it: small to print when a case fails, applied by `_edit`."""
    source = draw(hs.sampled_from(corpus))
    size = len(_bytes(source))
    edits = []
    for _ in range(draw(hs.integers(1, 4))):
        op = draw(hs.sampled_from(["flip", "truncate", "insert", "delete", "splice", "dup"]))
        at = draw(hs.integers(0, size))
        if op == "flip":
            edits.append((op, at, draw(hs.integers(0, 7))))
        elif op == "insert":
            edits.append((op, at, draw(hs.sampled_from(SNIPPETS) | hs.binary(max_size=16))))
        elif op == "splice":
            other = draw(hs.sampled_from(corpus))
            lo = draw(hs.integers(0, len(_bytes(other))))
            edits.append((op, at, other, lo, draw(hs.integers(0, 4096))))
        else:
            edits.append((op, at, draw(hs.integers(1, 200))))
    return source, edits


def _edit(source: Path, edits: list[tuple]) -> bytes:
    data = bytearray(_bytes(source))
    for op, at, *args in edits:
        at = min(at, len(data))
        if op == "flip" and data:
            data[min(at, len(data) - 1)] ^= 1 << args[0]
        elif op == "truncate":
            del data[at:]
        elif op == "insert":
            data[at:at] = args[0]
        elif op == "delete":
            del data[at : at + args[0]]
        elif op == "splice":
            other, lo, n = args
            data[at:at] = _bytes(other)[lo : lo + n]
        elif op == "dup":
            data[at:at] = data[max(0, at - args[0]) : at]
    return bytes(data)


def _documents(path: Path) -> tuple[bool, list]:
    """(is JSONL, the documents) of a corpus file."""
    text = _bytes(path).decode("utf-8")
    try:
        return False, [json.loads(text)]
    except ValueError:
        return True, [json.loads(line) for line in text.splitlines() if line.strip()]


_documents = functools.cache(_documents)

REPLACEMENTS = [None, True, 0, -1, -1e300, 1e308, 2**70, 1.5, "", "x", "1", [], [None], [[]],
                {}, {"value": "x"}, [1, "a"], [-1.0, 0.0], [[-1, 2], []], float("nan"),
                float("inf")]  # fmt: skip


def _paths(value, prefix=()):
    """Paths to every value of a document, depth-first (lists: first, middle and last items)."""
    yield prefix
    if isinstance(value, dict):
        for key in list(value)[:64]:
            yield from _paths(value[key], (*prefix, key))
    elif isinstance(value, list) and value:
        for i in sorted({0, len(value) // 2, len(value) - 1}):
            yield from _paths(value[i], (*prefix, i))


@functools.cache
def _all_paths(path: Path, index: int) -> tuple:
    return tuple(_paths(_documents(path)[1][index]))


def _replaced(value, path, new):
    """`value` with the item at `path` replaced; only the containers on the path are copied."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], rest, new)
    return copy


def _removed(value, path):
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    if rest:
        copy[head] = _removed(value[head], rest)
    else:
        del copy[head]
    return copy


@hs.composite
def value_edits(draw, corpus) -> tuple[Path, list[tuple], int | None]:
    """A JSON trace and value edits: (document index, path, replacement or REMOVE)."""
    source = draw(hs.sampled_from([p for p in corpus if p.stat().st_size < 5_000_000]))
    _, docs = _documents(source)
    edits = []
    for _ in range(draw(hs.integers(1, 3))):
        index = draw(hs.integers(0, len(docs) - 1))
        path = draw(hs.sampled_from(_all_paths(source, index)))
        remove = bool(path) and draw(hs.integers(0, 3)) == 0
        edits.append((index, path, REMOVE if remove else draw(hs.sampled_from(REPLACEMENTS))))
    return source, edits, draw(hs.sampled_from([None, 1]))


REMOVE = "<remove>"


def _apply(source: Path, edits: list[tuple], indent: int | None) -> bytes:
    lines, docs = _documents(source)
    docs = list(docs)
    for index, path, new in edits:
        try:
            if new == REMOVE:
                docs[index] = _removed(docs[index], path)
            else:
                docs[index] = _replaced(docs[index], path, new)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit changed the shape under this path
    if lines:
        return ("\n".join(json.dumps(d) for d in docs) + "\n").encode()
    return json.dumps(docs[0], indent=indent).encode()


formats = hs.sampled_from([None, None, None, *FORMATS, "nope"])


def _run(capsys, scratch: Path, source: Path, data: bytes, fmt, verb: str, extra=()) -> None:
    target = scratch / f"mutant{source.suffix}"
    target.write_bytes(data)
    argv = [verb, str(target), *(["--format", fmt] if fmt else []), *extra]
    code, out, err = run_cli(capsys, argv, seconds=10)
    if code == 1:
        assert "error[" in err, err[-2000:]
    if code == 0 and verb == "stats" and "--json" in extra:
        for doc in json.loads(out) if out.lstrip().startswith("[") else [json.loads(out)]:
            _finite_or_null(doc)


def _finite_or_null(value) -> None:
    """--json output is strict JSON: no NaN or Infinity smuggled in from a trace."""
    if isinstance(value, float):
        assert math.isfinite(value)
    elif isinstance(value, dict):
        for item in value.values():
            _finite_or_null(item)
    elif isinstance(value, list):
        for item in value:
            _finite_or_null(item)


@FUZZ
@given(data=hs.data())
def test_byte_mutated_traces_give_diagnostics(capsys, corpus, scratch, data):
    source, edits = data.draw(byte_edits(corpus))
    mutant = _edit(source, edits)
    verb = data.draw(hs.sampled_from(["stats", "sweep"]))
    extra = data.draw(hs.sampled_from([(), ("--json",)]))
    _run(capsys, scratch, source, mutant, data.draw(formats), verb, extra)


@FUZZ
@given(data=hs.data())
def test_value_mutated_traces_give_diagnostics(capsys, corpus, scratch, data):
    source, edits, indent = data.draw(value_edits(corpus))
    mutant = _apply(source, edits, indent)
    verb = data.draw(hs.sampled_from(["stats", "sweep"]))
    extra = data.draw(hs.sampled_from([(), ("--json",), ("--percentiles", "1,99.9")]))
    _run(capsys, scratch, source, mutant, data.draw(formats), verb, extra)


@fuzz(40)
@given(data=hs.data())
def test_sweep_options_on_real_traces(capsys, corpus, data):
    files = data.draw(hs.lists(hs.sampled_from(corpus), min_size=1, max_size=3))
    argv = ["sweep", *map(str, files)]
    for _ in range(data.draw(hs.integers(0, 3))):
        argv += data.draw(
            hs.sampled_from(
                [
                    ["--where", "conc=8"],
                    ["--where", "x"],
                    ["--where", "=1"],
                    ["--statistic", "p0"],
                    ["--statistic", "p100"],
                    ["--statistic", "p99.99"],
                    ["--statistic", "mean"],
                    ["--statistic", "bogus"],
                    ["--at", "0"],
                    ["--at", "-5"],
                    ["--at", "1e308"],
                    ["--at", "nan"],
                    ["--at", "inf"],
                    ["--method", "linear"],
                    ["--method", "nearest"],
                    ["--json"],
                ]
            )
        )
    run_cli(capsys, argv, seconds=10)


@pytest.mark.parametrize("content", [b"", b"\n\n", b"{", b"[]", b"null", b"\xff" * 10, b"{}\n{}"])
@pytest.mark.parametrize("fmt", [None, *FORMATS])
def test_degenerate_files_in_every_format(capsys, tmp_path, content, fmt):
    target = tmp_path / "t.json"
    target.write_bytes(content)
    for verb in ("stats", "sweep"):
        code, _, err = run_cli(capsys, [verb, str(target), *(["--format", fmt] if fmt else [])])
        assert code in (1, 2) and "error[" in err


def test_unreadable_inputs_are_io_errors(capsys, tmp_path):
    folder = tmp_path / "folder.json"
    folder.mkdir()
    for target in (folder, tmp_path / "missing.json"):
        for verb in ("stats", "sweep"):
            code, _, err = run_cli(capsys, [verb, str(target)])
            assert code == 2 and "error[E300]" in err
    # An endless file: detection reads the head only, then gives up.
    os.symlink("/dev/zero", tmp_path / "zero.json")
    code, _, err = run_cli(capsys, ["stats", str(tmp_path / "zero.json")], seconds=20)
    assert code in (1, 2)


def test_runs_whose_tokens_all_arrive_at_once_build_without_crashing(tmp_path, capsys):
    """Found by fuzzing: every chunk at one timestamp gives tpot 0 and interactivity 1/0, which
    crashed `cmpc build` (ZeroDivisionError) instead of leaving the run off the frontier."""
    from .helpers import REPO, copy_spec

    spec = copy_spec(REPO / "specs" / "synthetic-sweep.cmp", tmp_path / "spec")
    for path in sorted((spec.parent / "data" / "synthetic" / "alpha").glob("*.jsonl")):
        rows = [{"cmpc_trace": 1, "fields": {"conc": int(path.stem.split("-")[1]), "tp": 8}}]
        rows += [{"start": i, "first_token": i + 0.1, "end": i + 0.1, "input_tokens": 100,
                  "output_tokens": 5, "chunk_times": [i + 0.1] * 5} for i in range(20)]  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = ["build", str(spec), "-o", str(tmp_path / "out"), "--no-cache", "--quiet"]
    code, _, err = run_cli(capsys, argv)
    assert (code == 0 and "W411" in err) or (code == 1 and "error[" in err)


@pytest.mark.parametrize(
    "unit",
    ['"benchmark_version" ', '"cmd" ', '"time_to_first_token": {', '"metadata": ',
     '"records": {', '"experiments": ', '"benchmarks": ', '"tput_per_gpu": ', '"cmpc_trace": ',
     '"request_throughput": ', '"itls": [', '{"a": '],
)  # fmt: skip
def test_format_detection_is_linear_in_the_head(tmp_path, capsys, unit):
    """Found by review: `[\\s\\S]*` and `[^}]*` after a key made the summary hints backtrack
    quadratically; a 1 MiB head of one repeated key took minutes."""
    import time

    trace = tmp_path / "keys.json"
    trace.write_text("{" + unit * (1_100_000 // len(unit)), encoding="utf-8")
    started = time.perf_counter()
    code, _, err = run_cli(capsys, ["stats", str(trace)], seconds=30)
    assert code in (1, 2) and "error[" in err
    assert time.perf_counter() - started < 5
