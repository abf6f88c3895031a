"""`cmpc._recache`: a kept regex program builds the Pattern re would compile, or is not used."""

from __future__ import annotations

import marshal
import re
import subprocess
import sys

import pytest

from cmpc import _recache

PATTERNS = [
    (r"(?P<DATE>\d{4}-\d{2}-\d{2}(?![\w.]))|(?P<NAME>[A-Za-z_][\w.\-]*)", 0),
    (r"^(mean|median|p\d+(?:\.\d+)?)_([a-z0-9_]+?)(_ms)?$", 0),
    (r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]", 0),
    (r"\bconcurrenc(?:y|ies) \s* (?:of|at|=)? \s* (\d+)", re.IGNORECASE | re.VERBOSE),
    (rb'"(request_throughput|mean_ttft_ms)"\s*:', 0),
    (rb"[a-z]+", re.LOCALE | re.IGNORECASE),
    ("^line$", re.MULTILINE | re.DOTALL),
]
SAMPLES = [
    "2026-12-02 x",
    "p99_ttft_ms",
    "a\u200bb",
    "Concurrency of 64",
    "caf\u00e9",
    "line\nline",
]


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setattr(_recache, "_FILE", str(tmp_path / "regex-code.marshal"))
    monkeypatch.setattr(_recache, "_FOLDER", str(tmp_path))
    monkeypatch.setattr(_recache, "_kept", {})
    monkeypatch.setattr(_recache, "_used", [])
    monkeypatch.setattr(_recache, "_read", False)
    monkeypatch.setattr(_recache, "misses", 0)
    monkeypatch.setattr(_recache, "hits", 0)
    return tmp_path / "regex-code.marshal"


def _fresh_start(monkeypatch) -> None:
    """What a new process sees: nothing in memory, the file not read yet."""
    monkeypatch.setattr(_recache, "_kept", {})
    monkeypatch.setattr(_recache, "_used", [])
    monkeypatch.setattr(_recache, "_read", False)
    monkeypatch.setattr(_recache, "misses", 0)


def _same(made: re.Pattern, pattern: str | bytes, flags: int) -> None:
    expected = _recache._original(pattern, flags)
    assert made == expected  # _sre compares flags, text and the whole program
    assert made.groupindex == expected.groupindex and made.groups == expected.groups
    for sample in SAMPLES:
        text = sample.encode("latin-1", "replace") if isinstance(pattern, bytes) else sample
        assert [m.span() for m in made.finditer(text)] == [
            m.span() for m in expected.finditer(text)
        ]
        found, wanted = made.search(text), expected.search(text)
        assert (found and found.groupdict()) == (wanted and wanted.groupdict())


def test_a_later_start_builds_each_pattern_from_its_kept_program(kept, monkeypatch):
    for pattern, flags in PATTERNS:
        _same(_recache.compile(pattern, flags), pattern, flags)
    assert _recache.misses == len(PATTERNS) and _recache.hits == 0
    _recache._save()
    _fresh_start(monkeypatch)
    for pattern, flags in PATTERNS:
        _same(_recache.compile(pattern, flags), pattern, flags)
    assert _recache.hits == len(PATTERNS) and _recache.misses == 0


def test_a_damaged_foreign_or_refused_record_is_compiled_afresh(kept, monkeypatch):
    pattern, flags = PATTERNS[1]
    for content in (b"not marshal", marshal.dumps(("another python", {}))):
        kept.write_bytes(content)
        _fresh_start(monkeypatch)
        _same(_recache.compile(pattern, flags), pattern, flags)
        assert _recache.misses == 1 and _recache.hits == 0
    _recache._save()
    _fresh_start(monkeypatch)
    _recache._load()
    key = (True, pattern, flags)
    final, code, groups, index, names = marshal.loads(_recache._kept[key])
    refused = (final, [99999, *code], groups, index, names)  # a program _sre refuses
    _recache._kept[key] = marshal.dumps(refused)
    _same(_recache.compile(pattern, flags), pattern, flags)
    assert _recache.hits == 0 and _recache.misses == 1


def test_the_file_keeps_this_runs_patterns_first_and_at_most_a_bound(kept, monkeypatch):
    monkeypatch.setattr(_recache, "_MOST", 4)
    for n in range(6):
        _recache.compile(f"first{n}", 0)
    _recache._save()
    _fresh_start(monkeypatch)
    _recache._load()
    assert [k[1] for k in _recache._kept] == ["first0", "first1", "first2", "first3"]
    _fresh_start(monkeypatch)
    _recache.compile("first3", 0)
    _recache.compile("later", 0)
    _recache._save()
    _fresh_start(monkeypatch)
    _recache._load()
    assert [k[1] for k in _recache._kept] == ["first3", "later", "first0", "first1"]


def test_errors_and_debug_compiles_are_re_s_own(kept):
    with pytest.raises(re.error):
        _recache.compile("(unclosed", 0)
    with pytest.raises(ValueError):
        _recache.compile("a", re.LOCALE)  # LOCALE needs a bytes pattern, as re says
    assert _recache.misses == 0


def test_every_pattern_the_command_line_kept_builds_what_re_compiles():
    code = (
        "import re, cmpc.cli, cmpc._recache as r\n"
        "r._load()\n"
        "bad = [k for k in r._kept if r.compile(k[1], k[2]) != r._original(k[1], k[2])]\n"
        "print(len(r._kept), r.hits, len(bad))"
    )
    subprocess.run([sys.executable, "-c", "import cmpc.cli, cmpc.verbs.check"], check=True)
    count, hits, bad = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(count) >= 8 and int(hits) >= int(count) and bad == "0"  # check imports: 11


def test_the_api_leaves_re_alone():
    probe = "import re, cmpc, cmpc.api; print(re._compiler.compile.__module__)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "re._compiler"
