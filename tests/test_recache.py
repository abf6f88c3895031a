"""`cmpc._recache`: a module body's kept regex program builds the Pattern re would compile,
or is not used; nothing compiled at run time (a spec's glob) is kept; the file stays bounded."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from cmpc import _recache

REPO = Path(__file__).resolve().parents[1]
# the kept file is written as pycs are: not under PYTHONDONTWRITEBYTECODE (this shell may set it)
WRITING = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
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
# a build in a child process, its kept file redirected: prints hits and misses to stderr last
BUILD = """
import os, sys, cmpc._recache as r
r._FILE = os.environ["KEPT"]
r._FOLDER = os.path.dirname(r._FILE)
from cmpc.cli import main
try:
    code = main(sys.argv[1:])
finally:
    sys.stderr.write(f"\\nkept {r.hits} {r.misses}\\n")
sys.exit(code)
"""


def _build(spec: Path, kept: Path) -> tuple[int, int, int]:
    """A `cmpc build` in a new process with `kept` as its file: exit code, hits, misses."""
    env = dict(WRITING, KEPT=str(kept))
    argv = [sys.executable, "-c", BUILD, "build", str(spec), "-o", str(spec.parent / "out")]
    run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    last = run.stderr.strip().splitlines()[-1].split()
    assert last[0] == "kept", run.stderr
    return run.returncode, int(last[1]), int(last[2])


def _in_module(pattern: str | bytes, flags: int) -> re.Pattern:
    """`_recache.compile` called from a module body, as an import does."""
    namespace = {"__name__": "probe_module", "r": _recache, "p": pattern, "f": flags}
    exec("made = r.compile(p, f)", namespace)
    return namespace["made"]


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setattr(_recache, "_FILE", str(tmp_path / "regex-code.marshal"))
    monkeypatch.setattr(_recache, "_FOLDER", str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _fresh_start(monkeypatch)
    monkeypatch.setattr(_recache, "hits", 0)
    return tmp_path / "regex-code.marshal"


def _fresh_start(monkeypatch) -> None:
    """What a new process sees: nothing in memory, the file not read yet."""
    monkeypatch.setattr(_recache, "_kept", {})
    monkeypatch.setattr(_recache, "_added", [])
    monkeypatch.setattr(_recache, "_read", False)
    monkeypatch.setattr(_recache, "misses", 0)
    monkeypatch.setattr(_recache, "hits", 0)


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
        _same(_in_module(pattern, flags), pattern, flags)
    assert _recache.misses == len(PATTERNS) and _recache.hits == 0
    _recache._save()
    _fresh_start(monkeypatch)
    for pattern, flags in PATTERNS:
        _same(_in_module(pattern, flags), pattern, flags)
    assert _recache.hits == len(PATTERNS) and _recache.misses == 0


def test_a_pattern_compiled_inside_a_function_is_never_kept(kept):
    def glob(text: str) -> re.Pattern:
        return _recache.compile(text, 0)

    for pattern, flags in PATTERNS:
        _same(_recache.compile(pattern, flags), pattern, flags)  # a test function's, too
    glob("spec-glob-[ab]*")
    fnmatch_pattern = __import__("fnmatch").translate("SPEC_TEXT_[ab]*")
    _recache._compiler.compile = _recache.compile
    try:
        re.compile(fnmatch_pattern)
    finally:
        _recache._compiler.compile = _recache._original
    assert _recache._kept == {} and _recache.misses == 0
    _recache._save()
    assert not kept.exists()


def test_a_spec_with_a_huge_glob_builds_and_leaves_the_kept_file_as_it_was(sweep_copy, tmp_path):
    kept = tmp_path / "kept" / "regex-code.marshal"
    assert _build(sweep_copy, kept)[0] == 0  # the first start keeps cmpc's own patterns
    before = kept.read_bytes()
    text = sweep_copy.read_text()
    marked = "~SPEC_TEXT" * 4000  # 40 KB of bracket set: the glob still matches conc-*.jsonl
    huge = text.replace("alpha/*.jsonl", f"alpha/conc-[!{marked}]*.jsonl", 1)
    assert huge != text and len(huge) > 40_000
    sweep_copy.write_text(huge)
    code, hits, misses = _build(sweep_copy, kept)
    assert code == 0 and hits >= 40 and misses == 0
    after = kept.read_bytes()
    assert after == before and b"SPEC_TEXT" not in after and len(after) < 64 << 10


def test_a_damaged_or_foreign_file_is_no_file(kept, monkeypatch):
    pattern, flags = PATTERNS[1]
    for content in (b"not marshal", marshal.dumps(("another python", {})), b""):
        kept.write_bytes(content)
        _fresh_start(monkeypatch)
        _same(_in_module(pattern, flags), pattern, flags)
        assert _recache.misses == 1 and _recache.hits == 0


def _flipped(kept: Path, *, digest_too: bool) -> None:
    """Change one opcode of every record in the file; recompute its digest or not."""
    data = kept.read_bytes()
    stamp, records = marshal.loads(data[_recache._DIGEST :])
    for key, record in records.items():
        final, code, groups, index, names = marshal.loads(record)
        code[len(code) // 2] ^= 1  # one opcode or argument off by one bit, as bit rot does
        records[key] = marshal.dumps((final, code, groups, index, names))
    body = marshal.dumps((stamp, records))
    digest = _recache.blake2b(body, digest_size=_recache._DIGEST).digest()
    kept.write_bytes((digest if digest_too else data[: _recache._DIGEST]) + body)


def test_a_record_changed_on_disk_is_detected_and_never_handed_to_sre(kept, monkeypatch):
    for pattern, flags in PATTERNS:
        _in_module(pattern, flags)
    _recache._save()
    _flipped(kept, digest_too=True)  # the control: a matching digest, the records are read
    _fresh_start(monkeypatch)
    _recache._load()
    assert len(_recache._kept) == len(PATTERNS)
    _flipped(kept, digest_too=False)
    _fresh_start(monkeypatch)
    handed = []
    monkeypatch.setattr(_recache, "_sre", type("Sre", (), {"compile": handed.append}))
    _recache._load()
    assert _recache._kept == {}
    monkeypatch.undo()


def test_a_build_with_a_flipped_opcode_in_its_kept_file_runs(sweep_copy, tmp_path):
    kept = tmp_path / "kept" / "regex-code.marshal"
    assert _build(sweep_copy, kept)[0] == 0
    data = kept.read_bytes()
    stamp, records = marshal.loads(data[_recache._DIGEST :])
    key = next(k for k in records if k[1] == r"\S")  # the reviewer's: SIGSEGV on .search()
    final, code, groups, index, names = marshal.loads(records[key])
    code[9] = 0  # the charset's jump zeroed (4 -> 0): the program _sre takes and crashes on
    crash = f"import _sre; _sre.compile(r'\\S', {final}, {code}, 0, {{}}, (None,)).search('a b')"
    assert subprocess.run([sys.executable, "-c", crash], capture_output=True).returncode != 0
    records[key] = marshal.dumps((final, code, groups, index, names))
    kept.write_bytes(data[: _recache._DIGEST] + marshal.dumps((stamp, records)))
    code, hits, misses = _build(sweep_copy, kept)
    assert code == 0 and hits == 0 and misses >= 40  # rc 0, not -11: the file was not used


def test_records_are_bounded_in_bytes_and_a_run_never_drops_what_it_read(kept, monkeypatch):
    monkeypatch.setattr(_recache, "_MOST", 4)
    for n in range(3):
        _in_module(f"first{n}", 0)
    _in_module("x" * 5000, 0)  # a 40 KB program: above the 16 KB a record may take
    _recache._save()
    _fresh_start(monkeypatch)
    _recache._load()
    assert [k[1] for k in _recache._kept] == ["first0", "first1", "first2"]
    _fresh_start(monkeypatch)
    for n in range(6):  # more new patterns than the file has room for
        _in_module(f"later{n}", 0)
    _recache._save()
    _fresh_start(monkeypatch)
    _recache._load()
    assert [k[1] for k in _recache._kept] == ["first0", "first1", "first2", "later0"]
    _fresh_start(monkeypatch)
    monkeypatch.setattr(_recache, "_MOST", 1000)
    monkeypatch.setattr(_recache, "_FILE_BYTES", 2000)
    for n in range(100):
        _in_module(f"more{n}", 0)
    _recache._save()
    assert len(kept.read_bytes()) <= 2000 + _recache._DIGEST
    _fresh_start(monkeypatch)
    _recache._load()
    kept_now = [k[1] for k in _recache._kept]
    assert kept_now[:4] == ["first0", "first1", "first2", "later0"] and 4 < len(kept_now) < 100


def test_the_byte_bound_counts_what_marshal_writes_for_non_ascii_patterns(kept, monkeypatch):
    monkeypatch.setattr(_recache, "_FILE_BYTES", 6000)
    for n in range(20):  # a comment of 300 characters, 900 bytes in UTF-8; a tiny program
        _in_module("(?#" + "\u2028" * 300 + f"){n}", 0)
    _recache._save()
    assert kept.exists() and len(kept.read_bytes()) <= 6000 + _recache._DIGEST
    _fresh_start(monkeypatch)
    _recache._load()
    assert 2 < len(_recache._kept) < 20


def test_nothing_is_written_under_dont_write_bytecode(kept, monkeypatch):
    _in_module("written?", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _recache._save()
    assert not kept.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _recache._save()
    assert kept.exists()  # the control


def test_a_stale_temporary_file_does_not_block_a_save(kept):
    stale = kept.parent / f"{kept.name}.{os.getpid()}.tmp"  # a killed start's, same pid
    stale.write_bytes(b"half")
    _in_module("after a kill", 0)
    _recache._save()
    assert kept.exists() and sorted(p.name for p in kept.parent.iterdir()) == [
        kept.name,
        stale.name,
    ]


def test_a_pattern_whose_parse_warns_warns_at_every_start_and_is_not_kept(kept, monkeypatch):
    for _start in range(2):
        _fresh_start(monkeypatch)
        with pytest.warns(FutureWarning, match="Possible nested set"):
            made = _in_module("[[a]", 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            assert made == _recache._original("[[a]", 0) and made.match("[")
        assert _recache.misses == 0 and _recache._kept == {}
        _recache._save()
        assert not kept.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        with pytest.raises(FutureWarning):  # an error filter applies as it does to re's own
            _in_module("[[b]", 0)


def test_errors_and_debug_compiles_are_re_s_own(kept):
    with pytest.raises(re.error):
        _in_module("(unclosed", 0)
    with pytest.raises(ValueError):
        _in_module("a", re.LOCALE)  # LOCALE needs a bytes pattern, as re says
    assert _recache.misses == 0


def test_every_pattern_the_command_line_kept_builds_what_re_compiles():
    code = (
        "import re, cmpc._recache as r\n"
        "r._load()\n"
        "def compiled(k):\n"
        "    ns = {'__name__': 'probe', 'r': r, 'k': k}\n"
        "    exec('made = r.compile(k[1], k[2])', ns)\n"
        "    return ns['made']\n"
        "bad = [k for k in r._kept if compiled(k) != r._original(k[1], k[2])]\n"
        "print(len(r._kept), r.hits, len(bad))"
    )
    spec = REPO / "specs" / "synthetic-sweep.cmp"
    main = "import sys; from cmpc.cli import main; sys.exit(main(sys.argv[1:]))"
    cmpc = [sys.executable, "-c", main, "check", str(spec)]
    subprocess.run(cmpc, check=True, env=WRITING, capture_output=True)
    count, hits, bad = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert int(count) >= 5 and int(hits) >= int(count) and bad == "0"  # check keeps 5


def test_the_api_and_an_import_of_the_command_line_leave_re_alone():
    probe = "import re, cmpc, cmpc.api, cmpc.cli; print(re._compiler.compile.__module__)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "re._compiler"


# a build that records each pattern compiled afresh, outside a module body, by cmpc's rendering
RENDER_COMPILES = """
import os, sys, cmpc._recache as r
r._FILE = os.environ["KEPT"]
r._FOLDER = os.path.dirname(r._FILE)
fresh = []
original = r._original

def recorded(p, flags=0):
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(("re", "cmpc._re")):
        frame = frame.f_back  # re's own frames and the keeper's
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    if name.startswith(("cmpc.report", "cmpc.safe_text")):
        fresh.append(f"{name}: {p!r}")
    return original(p, flags)

r._original = recorded
from cmpc.cli import main
code = main(sys.argv[1:])
sys.stderr.write("\\nfresh " + repr(fresh) + "\\n")
sys.exit(code)
"""


def test_a_build_s_rendering_compiles_no_pattern_afresh_once_the_kept_file_is_written(
    sweep_copy, tmp_path
):
    """The report's patterns are compiled by module bodies, whose programs the file keeps: a
    pattern compiled in a rendering function was parsed anew by every build (2 ms a build)."""
    kept = tmp_path / "kept" / "regex-code.marshal"
    env = dict(WRITING, KEPT=str(kept))
    out = str(tmp_path / "out")
    argv = [
        sys.executable,
        "-c",
        RENDER_COMPILES,
        "build",
        str(sweep_copy),
        "-o",
        out,
        "--no-cache",
    ]
    for _ in range(2):  # the first start writes the kept file; the second reads it
        run = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last == "fresh []"
