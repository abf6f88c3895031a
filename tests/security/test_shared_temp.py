"""No code runs from a shared temporary folder: another local user can write there, so nothing
cmpc loads from it may be a pickle (lark's `cache=True` kept one at a predictable name)."""

from __future__ import annotations

import getpass
import hashlib
import os
import pickle
import subprocess
import sys
import tempfile

from .helpers import REPO

SPEC = REPO / "specs" / "mi355x-vs-b300.cmp"
# The option sets cmpc has passed to lark (lark hashes them into the cache file's name).
OPTION_SETS = (
    {
        "parser": "lalr",
        "lexer": "contextual",
        "propagate_positions": True,
        "maybe_placeholders": False,
        "cache": True,
    },
    {"parser": "lalr", "lexer": "contextual", "propagate_positions": True,
     "maybe_placeholders": False},
)  # fmt: skip


class _Planted:
    """Unpickling this creates the marker file: the stand-in for `id` run as someone else."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def lark_cache_paths(tmpdir: str, env: dict) -> list[str]:
    """Every file lark's `cache=True` would load for cmpc's grammar, computed as lark does."""
    import lark

    from cmpc.syntax.grammar import grammar_text

    old = {k: os.environ.get(k) for k in ("LOGNAME", "USER", "LNAME", "USERNAME")}
    try:
        for k in old:
            os.environ.pop(k, None)
            if k in env:
                os.environ[k] = env[k]
        user = getpass.getuser()
    finally:
        for k, v in old.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v
    paths = []
    for options in OPTION_SETS:
        text = "".join(k + str(v) for k, v in options.items())
        s = grammar_text() + text + lark.__version__ + str(sys.version_info[:2])
        sha = hashlib.sha256(s.encode("utf8")).hexdigest()
        for kind in ("cache", "cache_grammar"):
            paths.append(f"{tmpdir}/.lark_{kind}_{user}_{sha}_{sys.version_info[0]}_"
                         f"{sys.version_info[1]}.tmp")  # fmt: skip
    return paths


def test_a_pickle_planted_where_lark_caches_never_runs(tmp_path):
    shared = tmp_path / "tmp"  # stands in for /tmp, writable by every local user
    shared.mkdir()
    marker = tmp_path / "PWNED"
    env = {**os.environ, "TMPDIR": str(shared)}
    assert tempfile.gettempdir() != str(shared)
    payload = pickle.dumps(_Planted(str(marker)))
    planted = lark_cache_paths(str(shared), env)
    for path in planted:
        with open(path, "wb") as handle:  # lark reads a line, then unpickles what follows
            handle.write(b"x\n" + payload + payload)
    for argv in (["check", str(SPEC)], ["fmt", "--check", str(SPEC)]):
        proc = subprocess.run(
            [sys.executable, "-m", "cmpc.cli", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert not marker.exists(), f"`cmpc {argv[0]}` unpickled a planted lark cache"
    lark_files = sorted(n for n in os.listdir(shared) if n.startswith(".lark"))
    assert lark_files == sorted(os.path.basename(p) for p in planted), "lark wrote a cache"


def test_the_parser_unpickles_nothing(tmp_path):
    """Whatever the temporary folder holds, starting the parser calls no unpickler."""
    code = (
        "import pickle\n"
        "calls = []\n"
        "def refuse(*args, **kwargs):\n"
        "    calls.append(args)\n"
        "    raise pickle.UnpicklingError('cmpc must not unpickle')\n"
        "pickle.load = pickle.loads = refuse\n"
        "from cmpc.syntax.parser import parse_spec\n"
        "from cmpc.source import SourceFile\n"
        "_, d = parse_spec(SourceFile('t.cmp', 'comparison \"x\" { baseline a }\\n'))\n"
        "assert d == [] and calls == [], (d, calls)\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    for _ in range(2):  # the second start would find anything the first one left
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
