"""The package templates precompiled: rendered without jinja2, byte for byte as jinja2 does."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from cmpc.report import environment, precompiled, render_markdown, render_outputs
from cmpc.report import template_runtime as runtime
from cmpc.report.model import View
from tests.loaded import modules_loaded, script_module
from tests.properties.specs import Builder, GeneratedSpec, copy_specs
from tests.properties.test_metamorphic import generated_specs

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "compile_templates.py"
COMPILER = script_module(SCRIPT)
MAIN = "specs/mi355x-vs-b300.cmp"
SWEEP = "tests/report/specs/sweep.cmp"
SPECS = [f"specs/{p.name}" for p in sorted((REPO / "specs").glob("*.cmp"))]
SPECS += [f"tests/report/specs/{p.name}" for p in sorted(Path(__file__).parent.glob("specs/*.cmp"))]
# a spec built with a change from the command line, and a target no system reaches
SET_BUILDS = [
    (MAIN, ("system.b300.price=2.40 USD/gpu/h", "cost.utilization=40%")),
    (SWEEP, ("latency.target=85 tok/s/user",)),
]
JINJA2_MODULES = ("jinja2", "markupsafe")


@pytest.fixture
def spy(monkeypatch):
    """Which renderer each render used: "compiled", or "jinja2" (also after a NotCovered)."""
    used: list[str] = []
    render, make = precompiled.render, environment.make_environment

    def compiled(*args, **kwargs):
        text = render(*args, **kwargs)
        used.append("compiled")
        return text

    def reference(*args, **kwargs):
        used.append("jinja2")
        return make(*args, **kwargs)

    monkeypatch.setattr(precompiled, "render", compiled)
    monkeypatch.setattr(environment, "make_environment", reference)
    return used


def _results(build, spec: str, sets: tuple[str, ...] = ()) -> dict[str, Any]:
    out, _ = build(spec, sets=list(sets), render=False)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def _both_ways(results: dict[str, Any], monkeypatch, spy: list[str]) -> tuple[Any, Any]:
    """render_outputs of the same results with the compiled templates and with jinja2."""
    assert precompiled.is_current(), "stale: run `python scripts/compile_templates.py`"
    del spy[:]
    compiled = render_outputs(copy.deepcopy(results))
    assert spy == ["compiled"], "the precompiled templates did not render"
    with monkeypatch.context() as patch:
        patch.setattr(precompiled, "current_environment", lambda: None)
        reference = render_outputs(copy.deepcopy(results))
    assert spy == ["compiled", "jinja2"]
    return compiled, reference


# --- the same bytes ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: Path(s).stem)
def test_every_spec_renders_the_same_bytes_without_jinja2(build, spec, monkeypatch, spy):
    compiled, reference = _both_ways(_results(build, spec), monkeypatch, spy)
    assert compiled[1] == reference[1] == []
    assert compiled[0]["report.md"] == reference[0]["report.md"]
    assert compiled[0] == reference[0]


@pytest.mark.parametrize(("spec", "sets"), SET_BUILDS, ids=["set-price", "unreached-target"])
def test_a_build_with_changes_renders_the_same_bytes(build, spec, sets, monkeypatch, spy):
    compiled, reference = _both_ways(_results(build, spec, sets), monkeypatch, spy)
    assert compiled == reference and compiled[1] == []


@pytest.mark.parametrize("spec", [MAIN, SWEEP])
def test_results_with_any_field_absent_or_null_render_the_same(build, spec, monkeypatch, spy):
    """The shapes test_render.py renders: each results field dropped or null, one at a time."""
    results = _results(build, spec)
    variants = []
    for key in results:
        variants.append({k: v for k, v in results.items() if k != key})
        variants.append({**results, key: None})
    for part in ("headline", "conditions", "disclosure", "sensitivity"):
        for field in results[part]:
            variant = copy.deepcopy(results)
            variant[part][field] = None
            variants.append(variant)
    for name, system in results["systems"].items():
        for field in system:
            variant = copy.deepcopy(results)
            variant["systems"][name][field] = None
            variants.append(variant)
    assert len(variants) > 50
    for variant in variants:
        compiled, reference = _both_ways(variant, monkeypatch, spy)
        assert compiled == reference


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory) -> Builder:
    root = tmp_path_factory.mktemp("precompiled")
    return Builder(copy_specs(root), root / "cache")


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(spec=generated_specs())
def test_generated_specs_render_the_same_bytes(builder, spec: GeneratedSpec, monkeypatch, spy):
    compiled, reference = _both_ways(builder.results(spec.text()), monkeypatch, spy)
    assert compiled == reference and compiled[1] == []


# --- the same errors ---------------------------------------------------------------------------


def _render_both(results: dict[str, Any], report: dict[str, Any], monkeypatch, spy):
    del spy[:]
    compiled = render_markdown(results, copy.deepcopy(report), None)
    with monkeypatch.context() as patch:
        patch.setattr(precompiled, "current_environment", lambda: None)
        reference = render_markdown(results, copy.deepcopy(report), None)
    return compiled, reference


def test_a_template_error_gives_the_same_diagnostic_on_both_paths(build, monkeypatch, spy):
    """A report model missing a value each template reads: E602 at the same file and line."""
    results = _results(build, MAIN)
    report = View(results).build()
    report["figures"] = []
    broken = [{k: v for k, v in report.items() if k != key} for key in report]
    for part in ("headline", "disclosure", "provenance"):
        for field in report[part] if isinstance(report[part], dict) else ():
            variant = copy.deepcopy(report)
            del variant[part][field]
            broken.append(variant)
    failed = set()
    for variant in broken:
        compiled, reference = _render_both(results, variant, monkeypatch, spy)
        assert compiled == reference
        for diagnostic in compiled[1]:
            assert diagnostic.code in {"E602", "E604"}
            failed.add((diagnostic.code, diagnostic.file, diagnostic.record))
    files = {Path(file).name for _, file, _ in failed}
    assert len(failed) > 10 and {"report.md.j2", "headline.md.j2", "provenance.md.j2"} <= files
    assert all(record and record.startswith("line ") for _, _, record in failed)


def _harness(tmp_path: Path, sources: dict[str, str]):
    """Templates compiled by the script's own code into a module run by template_runtime, and
    the jinja2 environment that renders the same files."""
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    for name, text in sources.items():
        (folder / name).write_text(text, encoding="utf-8")
    filename = lambda name: str(folder / name)  # noqa: E731
    text = COMPILER.module_text(environment.make_environment(str(folder)), sources, filename, {})
    module = types.ModuleType("harness_templates")
    exec(compile(text, "harness_templates.py", "exec"), module.__dict__)
    compiled = runtime.Environment({n: e[0] for n, e in module.TEMPLATES.items()}, filename)
    return compiled, environment.make_environment(str(folder))


def _outcome(env, name: str, **variables: Any) -> tuple[str, str]:
    try:
        return "ok", env.get_template(name).render(**variables)
    except Exception as exc:
        return type(exc).__name__, str(exc)


CASES = {
    "footnote.j2": "{{ fn('latency') }} then {{ fn('nope') }}\n",
    "unknown.j2": "{{ nothing }}\n",
    "no_key.j2": "{{ d.nokey }}\n",
    "no_element.j2": "{{ l[7] }}\n",
    "dunder.j2": "{{ d.__class__ }}\n",
    "mro.j2": "{{ t.mro }}\n",
    "code.j2": "{{ f.__code__ }}\n",
    "mutate.j2": "{{ l.append(1) }}\n",
    "pop.j2": "{{ d.pop }}\n",
    "method_not_key.j2": (
        "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {{ d.items() | length }}\n"
    ),
    "key_as_item.j2": "{{ d['items'] }} {{ d.keys }}\n",
    "loop.j2": (
        "{% for x in l %}{{ loop.index }}/{{ loop.length }} {{ loop.first }} {{ loop.last }} "
        "{{ loop.revindex }}{% if not loop.first %} {{ loop.previtem }}{% endif %}"
        "{% if not loop.last %} {{ loop.nextitem }}{% endif %} {{ loop.cycle('a', 'b') }}\n"
        "{% endfor %}"
    ),
    "strict_compare.j2": "{% if nothing == 1 %}x{% endif %}\n",
    "strict_bool.j2": "{{ d.nokey or 'fallback' }}\n",
    "strict_iter.j2": "{% for x in d.nokey %}{{ x }}{% endfor %}\n",
    "cond_no_else.j2": "[{{ 'shown' if l | length > 10 }}]\n",
    "filters.j2": (
        "{{ '42' | int }} {{ '4.5' | int }} {{ 'x' | int }} {{ 3.9 | int }} {{ l | count }} "
        "{{ l | mdjoin(' * ') }} {{ 0.1234 | pct }} {{ 'a*b' | md }} {{ 1234567.0 | num }}\n"
    ),
    "values.j2": "{{ none }} {{ yes }} {{ 3 }} {{ 2.5 }} {{ '<b>|*' }} {{ d.a ~ l[0] ~ 'z' }}\n",
    "set_include.j2": "{% set y = d.a %}{% include 'inc.j2' %}after {{ y }}\n",
    "inc.j2": "inc sees {{ y }} and {{ l | length }}{% set z = 5 %}\n",
    "range.j2": "{% for i in range(3) %}{{ i }}{% endfor %} {{ dict(a=1).a }}\n",
}


def test_the_runtime_follows_jinja2_on_values_errors_and_the_sandbox(tmp_path):
    compiled, reference = _harness(tmp_path, CASES)
    variables = {
        "report": {"footnotes": {"latency": "a note"}},
        "d": {"a": "A*", "items": "the key", "keys": "another key"},
        "l": [1, 2.5, "x|y"],
        "t": dict,
        "f": _outcome,
        "none": None,
        "yes": True,
    }
    outcomes = {}
    for name in CASES:
        outcomes[name] = _outcome(compiled, name, **variables)
        assert outcomes[name] == _outcome(reference, name, **variables), name
    assert outcomes["footnote.j2"] == (
        "UndefinedError",
        "no footnote `nope`; defined: latency",
    )
    for name in ("dunder.j2", "mro.j2", "code.j2", "mutate.j2", "pop.j2"):
        assert outcomes[name][0] == "SecurityError", name
    assert outcomes["method_not_key.j2"] == ("ok", "a=A\\*;items=the key;keys=another key; 3\n")
    assert outcomes["no_key.j2"] == ("UndefinedError", "'dict object' has no attribute 'nokey'")
    assert outcomes["no_element.j2"] == ("UndefinedError", "list object has no element 7")
    assert outcomes["cond_no_else.j2"] == ("ok", "[]\n")


@pytest.mark.parametrize(
    "source",
    [
        "{{ x | upper }}",  # a jinja2 filter the runtime does not reproduce
        "{% macro m() %}x{% endmacro %}{{ m() }}",
        "{% block b %}x{% endblock %}",
        "{{ x is defined }}",
        "{% include 'elsewhere.j2' %}",
    ],
)
def test_the_script_refuses_what_the_runtime_does_not_cover(tmp_path, source):
    with pytest.raises(COMPILER.Refused):
        _harness(tmp_path, {"t.j2": source})


def test_what_the_runtime_does_not_cover_is_rendered_by_jinja2(tmp_path, build, monkeypatch, spy):
    compiled, reference = _harness(tmp_path, {"t.j2": "{{ '{}!'.format(d.a) }}\n"})
    with pytest.raises(runtime.NotCovered):
        compiled.get_template("t.j2").render(d={"a": 1})
    assert reference.get_template("t.j2").render(d={"a": 1}) == "1\\!\n"
    results = _results(build, MAIN)

    def not_covered(*args, **kwargs):
        raise runtime.NotCovered("for this test")

    expected = render_outputs(copy.deepcopy(results))
    monkeypatch.setattr(precompiled, "render", not_covered)
    del spy[:]
    assert render_outputs(copy.deepcopy(results)) == expected
    assert spy == ["jinja2"]


# --- no jinja2 on a build, the sandbox with --template -----------------------------------------


def test_a_cold_a_warm_and_an_html_build_import_no_jinja2(sweep_copy, tmp_path):
    spec = sweep_copy
    out = str(tmp_path / "out")
    code, cold = modules_loaded("build", str(spec), "-o", out, "--quiet", cwd=tmp_path)
    assert code == 0 and "cmpc.report.compiled_templates" in cold
    price = "system.beta.price=2.40 USD/gpu/h"
    args = ("build", str(spec), "-o", out, "--quiet", "--set", price)
    code, warm = modules_loaded(*args, cwd=tmp_path, settled=True)
    assert code == 0 and "cmpc.report.compiled_templates" in warm
    code, html = modules_loaded(*args, "--format", "html", cwd=tmp_path, settled=True)
    assert code == 0 and "cmpc.report.html" in html  # the HTML page needs no jinja2 either
    for modules in (cold, warm, html):
        assert sorted(m for m in modules if m.split(".")[0] in JINJA2_MODULES) == []
    assert (tmp_path / "out" / "report.md").read_text().startswith("# ")


def test_a_template_folder_is_rendered_by_jinja2_in_its_sandbox(sweep_copy, tmp_path):
    spec = sweep_copy
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "report.md.j2").write_text("{{ report.title.__class__.__mro__ }}\n")
    args = ("build", str(spec), "-o", str(tmp_path / "out"), "--template", str(folder))
    code, modules = modules_loaded(*args, "--quiet", cwd=tmp_path)
    assert code == 1 and "jinja2.sandbox" in modules
    run = subprocess.run(
        [sys.executable, "-m", "cmpc.cli", *args], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 1 and "E603" in run.stderr and "unsafe" in run.stderr


# --- never stale -------------------------------------------------------------------------------


def test_the_compiled_module_is_what_the_script_generates_now():
    """Regenerated from the files on disk, byte for byte (the shipped module is never stale)."""
    import jinja2

    from cmpc.report import compiled_templates

    run = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    if jinja2.__version__ == compiled_templates.JINJA2:  # another jinja2 may generate other code
        assert COMPILER.generate() == COMPILER.TARGET.read_text(encoding="utf-8")


def test_a_filter_marked_pass_eval_context_makes_the_check_fail(monkeypatch):
    """jinja2's code follows the filters' pass_* marks, which no template digest shows."""
    import jinja2

    from cmpc.report import compiled_templates, template_filters

    if jinja2.__version__ != compiled_templates.JINJA2:
        pytest.fail(f"regenerate the module under jinja2 {jinja2.__version__}")
    plain = template_filters.mdjoin
    marked = jinja2.pass_eval_context(lambda eval_ctx, items, sep=", ": plain(items, sep))
    monkeypatch.setitem(template_filters.FILTERS, "mdjoin", marked)
    monkeypatch.setattr(template_filters, "mdjoin", marked)
    assert COMPILER.main(["--check"]) == 1


def test_an_edited_filters_or_text_module_makes_the_module_stale(tmp_path, monkeypatch):
    package = tmp_path / "report"
    shutil.copytree(precompiled.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(precompiled, "PACKAGE", str(package))
    for name in ("template_filters.py", "text.py"):
        module = package / name
        original = module.read_text()
        assert precompiled.is_current()
        module.write_text(original + "\n# edited\n")
        assert not precompiled.is_current() and precompiled.current_environment() is None
        module.write_text(original)


@pytest.fixture
def template_copy(tmp_path, monkeypatch) -> Path:
    """The package templates copied, and both renderers pointed at the copy."""
    folder = tmp_path / "templates"
    shutil.copytree(precompiled.PACKAGE_TEMPLATES, folder)
    monkeypatch.setattr(precompiled, "PACKAGE_TEMPLATES", str(folder))
    return folder


def test_an_edited_template_is_rendered_by_jinja2_never_stale(build, template_copy, spy):
    results = _results(build, MAIN)
    assert precompiled.is_current() and precompiled.current_environment() is not None
    expected = render_outputs(copy.deepcopy(results))
    assert spy == ["compiled"]

    report = template_copy / "report.md.j2"
    report.write_text(report.read_text() + "\n")  # no change to report.md: the end is trimmed
    assert not precompiled.is_current() and precompiled.current_environment() is None
    assert COMPILER.main(["--check"]) == 1
    del spy[:]
    assert render_outputs(copy.deepcopy(results)) == expected
    assert spy == ["jinja2"]

    part = template_copy / "assumptions.md.j2"
    part.write_text(part.read_text().replace("## Assumptions", "## Assumptions, edited"))
    files, _ = render_outputs(copy.deepcopy(results))
    assert "## Assumptions, edited" in files["report.md"]
    assert files["report.md"].replace(", edited", "") == expected[0]["report.md"]


def test_a_template_added_to_the_folder_makes_the_module_stale(template_copy):
    (template_copy / "extra.md.j2").write_text("new\n")
    assert not precompiled.is_current()
    (template_copy / "extra.md.j2").unlink()
    assert precompiled.is_current()


def test_an_edited_environment_makes_the_module_stale(tmp_path, monkeypatch):
    """Its options (trim_blocks, finalize, ...) shape the generated code as much as a template."""
    package = tmp_path / "report"
    shutil.copytree(precompiled.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(precompiled, "PACKAGE", str(package))
    assert precompiled.is_current()
    options = package / "environment.py"
    options.write_text(options.read_text().replace("trim_blocks=True", "trim_blocks=False"))
    assert not precompiled.is_current() and precompiled.current_environment() is None


def test_jinja2s_cached_code_is_not_reused_once_the_filters_module_changes(tmp_path, monkeypatch):
    """jinja2's bytecode cache checks a template's source only; a pass_* mark added to a filter
    changes the code, so the modules that shape it name the cache entries."""
    package = tmp_path / "report"
    shutil.copytree(precompiled.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(precompiled, "PACKAGE", str(package))
    before = environment.make_environment().bytecode_cache
    assert before is not None
    filters = package / "template_filters.py"
    filters.write_text(filters.read_text() + "\n# edited\n")
    after = environment.make_environment().bytecode_cache
    assert after is not None and after.pattern != before.pattern
