"""Confinement: a spec reads only its own folder tree, templates only theirs, and neither reaches
Python internals, runs code or opens a connection."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from cmpc.report import precompiled

from .helpers import REPO, copy_spec, run_cli

SWEEP = REPO / "specs" / "synthetic-sweep.cmp"
CLAIMS = REPO / "specs" / "deepinfer-claims.cmp"
SECRET = "TOP-SECRET-7f3a"


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder beside the spec's, holding a secret and a valid run file a spec must not read."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    run = next((REPO / "specs" / "data" / "synthetic" / "alpha").glob("*.jsonl"))
    (folder / "conc-99.jsonl").write_bytes(run.read_bytes())
    return folder


@pytest.fixture
def sweep(tmp_path) -> Path:
    return copy_spec(SWEEP, tmp_path / "spec")


def _with_glob(spec: Path, glob: str) -> Path:
    """The spec with system alpha's run glob replaced."""
    text = spec.read_text(encoding="utf-8")
    text = re.sub(r'runs "[^"]*"', lambda _: f"runs {json.dumps(glob)}", text, count=1)
    spec.write_text(text, encoding="utf-8")
    return spec


def _build(capsys, spec: Path, *more: str) -> tuple[int, str, str]:
    out = spec.parent.parent / "out"
    return run_cli(capsys, ["build", str(spec), "-o", str(out), "--no-cache", *more])


# -- run globs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "glob",
    [
        "../outside/*.jsonl",
        "data/../../outside/*.jsonl",
        "data/synthetic/../../../outside/conc-99.jsonl",
        "**/../../outside/*.jsonl",
        "..",
        "/etc/passwd",
        "//etc/*",
        "~/.ssh/*",
        "\\\\server\\share\\*.jsonl",
        "C:/Windows/*.jsonl",
        "c:relative.jsonl",
        "**/../*",
        "data/../data/synthetic/alpha/*.jsonl",
        "data\\..\\data/synthetic/alpha/*.jsonl",
    ],
)
def test_run_globs_that_leave_the_folder_are_E119(sweep, outside, capsys, glob):
    spec = _with_glob(sweep, glob)
    for verb in ("check", "build"):
        argv = [verb, str(spec)] + (["-o", str(spec.parent / "out")] if verb == "build" else [])
        code, _, err = run_cli(capsys, argv)
        assert code == 1 and "error[E119]" in err, (verb, err)
        assert SECRET not in err


def test_an_override_cannot_move_a_glob_outside(sweep, outside, capsys):
    code, _, err = _build(
        capsys, sweep, "--set", 'system.alpha.runs="../outside/*.jsonl" format cmpc'
    )
    assert code == 1 and "error[E119]" in err


def test_a_symlinked_file_pointing_outside_is_E503(sweep, outside, capsys):
    os.symlink(outside / "conc-99.jsonl", sweep.parent / "data/synthetic/alpha/conc-99.jsonl")
    code, _, err = _build(capsys, sweep)
    assert code == 1 and "error[E503]" in err and "conc-99.jsonl" in err


def test_a_symlinked_file_pointing_at_a_secret_is_never_read(sweep, outside, capsys):
    os.symlink(outside / "secret.txt", sweep.parent / "data/synthetic/alpha/conc-00.jsonl")
    code, out, err = _build(capsys, sweep)
    assert code == 1 and "error[E503]" in err and SECRET not in out + err


def test_a_symlinked_folder_named_literally_is_checked_file_by_file(sweep, outside, capsys):
    os.symlink(outside, sweep.parent / "data" / "elsewhere")
    spec = _with_glob(sweep, "data/elsewhere/*.jsonl")
    code, _, err = _build(capsys, spec)
    assert code == 1 and "error[E503]" in err


def test_wildcards_do_not_enter_symlinked_folders(sweep, outside, capsys):
    os.symlink(outside, sweep.parent / "data" / "synthetic" / "linked")
    spec = _with_glob(sweep, "data/synthetic/*/*.jsonl")
    code, _, err = _build(capsys, spec)
    assert "conc-99" not in err and "E503" not in err
    spec = _with_glob(copy_spec(SWEEP, spec.parent.parent / "again"), "data/**/conc-99.jsonl")
    os.symlink(outside, spec.parent / "data" / "linked")
    code, _, err = _build(capsys, spec)
    assert code == 1 and "error[E502]" in err


def test_symlink_loops_do_not_hang_a_build(sweep, capsys):
    """Two links to `..` made glob's `**` walk 2^40 paths: a hang planted by a pull request."""
    data = sweep.parent / "data"
    for name in ("a", "b", "c"):
        (data / name).mkdir()
        os.symlink("..", data / name / "up")
    os.symlink(".", data / "self")
    spec = _with_glob(sweep, "data/**/alpha/*.jsonl")
    started = time.perf_counter()
    code, _, err = _build(capsys, spec)
    assert code == 0, err
    spec = _with_glob(sweep, "data/*/*/*/*/*/*/*/*/*/*/*/*/*/*.jsonl")
    code, _, err = _build(capsys, spec)
    assert code == 1 and "error[E502]" in err
    assert time.perf_counter() - started < 20


def test_a_glob_that_climbs_and_comes_back_is_refused_fast(sweep, capsys):
    """`**/..` normalizes away, yet each `**/..` multiplied the walk: past 60 s and 1.3 GB."""
    spec = _with_glob(sweep, "data/**/../**/../**/../**/../v.json")
    started = time.perf_counter()
    for verb in (["check"], ["build", "-o", str(sweep.parent.parent / "out")]):
        code, _, err = run_cli(capsys, [*verb, str(spec)], seconds=10)
        assert code == 1 and "error[E119]" in err, (verb, err)
    assert time.perf_counter() - started < 5


def test_a_file_matched_twice_counts_once(sweep, tmp_path, capsys):
    """A link beside a run file, to it, is the same run: it must not weigh twice."""
    assert _build(capsys, sweep)[0] == 0
    once = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")
    os.symlink("conc-01.jsonl", sweep.parent / "data/synthetic/alpha/dup.jsonl")
    (sweep.parent / "data/synthetic/alpha/sub").mkdir()
    os.symlink("../conc-02.jsonl", sweep.parent / "data/synthetic/alpha/sub/conc-02.jsonl")
    spec = _with_glob(sweep, "data/synthetic/alpha/**/*.jsonl")
    assert _build(capsys, spec)[0] == 0
    twice = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")
    assert json.loads(twice)["inputs"] == json.loads(once)["inputs"]
    strip = lambda text: re.sub(r'"(glob|sha256)": "[^"]*"', "", text)  # noqa: E731
    assert strip(twice) == strip(once)


def test_a_glob_walk_is_bounded(sweep, capsys, monkeypatch):
    for i in range(30):
        (sweep.parent / "data" / f"f{i:02d}").mkdir()
    monkeypatch.setenv("CMPC_MAX_WALK_ENTRIES", "25")
    spec = _with_glob(sweep, "**/alpha/*.jsonl")
    code, _, err = _build(capsys, spec)
    walk_too_large = "E507"
    assert code == 1 and f"error[{walk_too_large}]" in err and "CMPC_MAX_WALK_ENTRIES" in err
    monkeypatch.setenv("CMPC_MAX_WALK_ENTRIES", "1000")
    assert _build(capsys, spec)[0] == 0


def test_run_glob_results_match_glob_without_links(tmp_path):
    """runfiles.expand finds what glob.glob(recursive=True) finds when there are no links."""
    import glob

    from cmpc.ingest.runfiles import expand

    for folder in ("data/a", "data/b/c", "data/.hidden", "x", "data/b/.g"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    names = "data/a/1.json data/a/2.jsonl data/b/c/3.json data/.hidden/4.json data/b/.g/5.json"
    names += " data/.6.json x/7.json 8.json data/b/[x].json"
    for name in names.split():
        (tmp_path / name).write_text("{}")
    patterns = ["data/*/*.json", "**/*.json", "data/**", "data/**/*.json*", "*.json", "data/.*",
                "data/.*/*.json", "**/.g/*", "data/a/1.json",
                "./data/*/*.json", "data//a/*", "**/**/*.json", "data/?/*.json", "data/[ab]/*",
                "data/b/[[]x].json", "nothing/*", "data/**/", "**", "data/a/"]  # fmt: skip
    for pattern in patterns:
        expected = {os.path.normpath(p) for p in glob.glob(f"{tmp_path}/{pattern}", recursive=True)}
        got = expand(str(tmp_path), pattern)
        assert {os.path.normpath(p) for p in got} == expected, pattern
        assert got == sorted(set(got))
    with pytest.raises(ValueError):  # the checker refuses `..` first (E119)
        expand(str(tmp_path), "data/a/../b/c/*.json")


# -- what a build opens, runs and connects to ---------------------------------------------------


_RECORDER: list = []  # the current test's (events list) while recording, else empty


def _audit_hook(name: str, args: tuple) -> None:
    if _RECORDER and name.startswith(_WATCHED):
        _RECORDER[0].append((name, args))


_WATCHED = ("open", "os.", "subprocess.", "socket.", "compile", "exec", "urllib.", "ctypes.")
_HOOKED: list[bool] = []


@pytest.fixture
def audit(monkeypatch):
    """Record the audit events (PEP 578) raised in this process inside `with audit as events`."""
    if not _HOOKED:
        sys.addaudithook(_audit_hook)  # hooks cannot be removed; it records only when asked
        _HOOKED.append(True)
    monkeypatch.setattr("cmpc.ingest.reduce._workers", lambda: 1)  # reductions in this process

    class Audit:
        def __enter__(self):
            events: list[tuple[str, tuple]] = []
            _RECORDER.append(events)
            return events

        def __exit__(self, *exc):
            _RECORDER.clear()

    return Audit()


def test_a_build_opens_nothing_outside_and_runs_nothing(sweep, outside, audit, capsys):
    os.symlink(outside / "secret.txt", sweep.parent / "data" / "synthetic" / "alpha" / "zz.jsonl")
    os.symlink(outside, sweep.parent / "data" / "synthetic" / "beta" / "more")
    text = sweep.read_text(encoding="utf-8").replace(
        'comparison "', "comparison \"{{ cycler.__init__.__globals__ }} {% include 'x' %} ", 1
    )
    sweep.write_text(text, encoding="utf-8")
    with audit as events:
        code, _, err = _build(capsys, sweep, "--format", "html")
    assert code == 1 and "error[E503]" in err
    opened = [str(a[0]) for name, a in events if name == "open" and isinstance(a[0], str | Path)]
    assert any(p.endswith("conc-01.jsonl") for p in opened)  # the hook sees the reads
    assert not [p for p in opened if os.path.realpath(p).startswith(str(outside))]
    forbidden = ("subprocess.", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "socket.",
                 "urllib.", "ctypes.")  # fmt: skip
    assert [e for e in events if e[0].startswith(forbidden)] == []
    compiled = [a[0] for name, a in events if name == "compile"]
    assert not [c for c in compiled if isinstance(c, str | bytes) and b"cycler" in _b(c)]


@pytest.mark.parametrize("templates", ["package", "folder"])
def test_a_successful_build_compiles_no_spec_text(sweep, audit, capsys, templates):
    marker = "{{ lipsum.__globals__['os'].system('touch pwned') }}"
    text = sweep.read_text(encoding="utf-8").replace('comparison "', f'comparison "{marker} ', 1)
    sweep.write_text(text, encoding="utf-8")
    more = ["--format", "html"]
    if templates == "folder":  # rendered by jinja2, which compiles the folder's templates
        folder = sweep.parent.parent / "templates"
        shutil.copytree(REPO / "compiler" / "cmpc" / "report" / "templates", folder)
        more += ["--template", str(folder)]
    with audit as events:
        code, _, err = _build(capsys, sweep, *more)
    assert code == 0, err
    assert not (sweep.parent / "pwned").exists() and not Path("pwned").exists()
    assert [e for e in events if e[0].startswith(("subprocess.", "os.system", "socket."))] == []
    if templates == "folder":
        # the folder's templates were compiled, or their kept code run (cmpc/report/__pycache__)
        assert any(name in ("compile", "exec") for name, _ in events)
    else:  # the package's run as shipped code (report/compiled_templates.py), nothing compiled
        assert precompiled.is_current()
    for name, args in events:
        if name in ("compile", "exec") and isinstance(args[0], str | bytes):
            assert b"lipsum" not in _b(args[0])
    report = (sweep.parent.parent / "out" / "report.md").read_text(encoding="utf-8")
    assert "lipsum" in report  # shown as text, escaped, never evaluated


def _b(value) -> bytes:
    return value.encode() if isinstance(value, str) else value


# -- templates ----------------------------------------------------------------------------------


def _template_build(capsys, tmp_path, **files) -> tuple[int, str, str, Path]:
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    spec = copy_spec(CLAIMS, tmp_path / "spec")
    out = tmp_path / "out"
    argv = ["build", str(spec), "-o", str(out), "--template", str(folder)]
    code, stdout, err = run_cli(capsys, argv)
    return code, stdout, err, out


@pytest.mark.parametrize(
    "expression",
    [
        "report.__class__",
        "results.__class__.__mro__[1].__subclasses__()",
        "''.__class__.__mro__[1].__subclasses__()",
        "fn.__globals__",
        "fn.__code__",
        "fn.__wrapped__",
        "cycler.__init__.__globals__",
        "joiner.__init__.__globals__",
        "lipsum.__globals__",
        "namespace.__init__.__globals__",
        "range.__self__",
        "self.__init__.__globals__",
        "self._TemplateReference__context",
        "loop.__class__",
        "'{0.__class__.__mro__}'.format(report)",
        "'{0.__globals__}'.format(fn)",
        "'{x.__class__.__mro__}'.format_map({'x': report})",
        "results.get.__self__.__class__",
        "report.systems.pop()",
        "results.update({'x': 1})",
        "results.clear()",
        "(report.headline | attr('__class__'))",
        "report['__class__']",
        "config",
        "request",
    ],
)
def test_templates_cannot_reach_python_internals(capsys, tmp_path, expression):
    template = f"{{% for _ in [1] %}}{{{{ {expression} }}}}{{% endfor %}}\n"
    code, out, err, folder = _template_build(capsys, tmp_path, **{"report.md.j2": template})
    assert code == 1, (expression, err)
    codes = {"error[E602]", "error[E603]", "error[E604]"}
    assert any(c in err for c in codes), (expression, err)
    assert "__builtins__" not in err and "<module" not in err and "function" not in out
    assert not folder.exists()


@pytest.mark.parametrize(
    "name",
    [
        "/etc/passwd",
        "../outside/secret.txt",
        "..\\outside\\secret.txt",
        "./../outside/secret.txt",
        "%2e%2e/outside/secret.txt",
        "templates/../../outside/secret.txt",
        "",
    ],
)
def test_template_includes_stay_in_the_template_folder(capsys, tmp_path, outside, name):
    code, out, err, _ = _template_build(
        capsys, tmp_path, **{"report.md.j2": "{% include " + json.dumps(name) + " %}\n"}
    )
    assert code == 1 and "error[E600]" in err and SECRET not in out + err


def test_a_template_symlinked_outside_is_refused_unread(capsys, tmp_path, outside):
    folder = tmp_path / "templates"
    folder.mkdir()
    os.symlink(outside / "secret.txt", folder / "leak.md.j2")
    os.symlink("/dev/zero", folder / "zero.md.j2")
    for name in ("leak.md.j2", "zero.md.j2"):
        code, out, err, _ = _template_build(
            capsys, tmp_path, **{"report.md.j2": "{% include '" + name + "' %}\n"}
        )
        assert code == 1 and "error[E603]" in err and SECRET not in out + err, err
        assert "outside the template folder" in err
    os.symlink(outside / "secret.txt", folder / "headline.md.j2")  # overrides a package partial
    code, out, err, _ = _template_build(capsys, tmp_path)
    assert code == 1 and "error[E603]" in err and SECRET not in out + err


def test_a_template_symlinked_inside_the_folder_is_allowed(capsys, tmp_path):
    folder = tmp_path / "templates"
    (folder / "parts").mkdir(parents=True)
    (folder / "parts" / "real.md.j2").write_text("INSIDE\n", encoding="utf-8")
    os.symlink("parts/real.md.j2", folder / "alias.md.j2")
    code, _, err, out = _template_build(
        capsys, tmp_path, **{"report.md.j2": "{% include 'alias.md.j2' %}\n"}
    )
    assert code == 0, err
    assert (out / "report.md").read_text(encoding="utf-8") == "INSIDE\n"


def test_a_template_folder_that_is_itself_a_link_is_its_own_root(capsys, tmp_path):
    real = tmp_path / "real-templates"
    real.mkdir()
    (real / "report.md.j2").write_text("LINKED ROOT\n", encoding="utf-8")
    os.symlink(real, tmp_path / "templates")
    code, _, err, out = _template_build(capsys, tmp_path)
    assert code == 0, err
    assert (out / "report.md").read_text(encoding="utf-8") == "LINKED ROOT\n"


def test_template_loops_are_bounded_by_the_sandbox_range(capsys, tmp_path):
    code, _, err, _ = _template_build(
        capsys, tmp_path, **{"report.md.j2": "{% for i in range(10**9) %}{% endfor %}\n"}
    )
    assert code == 1 and "error[E604]" in err


@pytest.mark.parametrize("link", [".cmpc-cache", ".cmpc-cache/entries", ".cmpc-cache/entries/ab"])
def test_a_committed_cache_link_cannot_make_a_build_write_outside(
    sweep, outside, capsys, monkeypatch, link
):
    """A pull request may commit `.cmpc-cache` (or a folder in it) as a link to anywhere."""
    monkeypatch.delenv("CMPC_CACHE_DIR", raising=False)
    (sweep.parent / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, sweep.parent / link)
    before = sorted(p.name for p in outside.rglob("*"))
    out = sweep.parent.parent / "out"
    code, _, err = run_cli(capsys, ["build", str(sweep), "-o", str(out), "--quiet"])
    assert code == 0 and "warning[W701]" in err and "links outside" in err
    assert sorted(p.name for p in outside.rglob("*")) == before
