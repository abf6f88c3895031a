"""Publishers' templates: sandboxed, strict, documented; a failed render writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmpc.report import render_outputs
from tests.report.conftest import read_tree

MAIN = "specs/mi355x-vs-b300.cmp"


def _templates(tmp_path: Path, **files: str) -> str:
    folder = tmp_path / "templates"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(text, encoding="utf-8")
    return str(folder)


def _codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics if d.severity.name == "ERROR"]


def test_custom_template_renders_the_documented_model(build, tmp_path):
    folder = _templates(
        tmp_path,
        report__md__j2=(
            "# {{ report.title }}\n\n"
            "{{ report.headline.system }}: {{ results.headline.throughput_change | pct }}"
            "{{ fn('latency') }}; cost at equal prices x"
            "{{ results.headline.cost_ratio_at_equal_price | ratio }}\n\n"
            "{% for key, text in report.footnotes.items() %}[^{{ key }}]: {{ text }}\n"
            "{% endfor %}"
        ),
    )
    out, _ = build(MAIN, template_dir=folder)
    report = (out / "report.md").read_text()
    assert report.startswith("# Kimi K3: 8x AMD Instinct MI355X vs NVIDIA HGX B300")
    assert "8x MI355X: 24.4%[^latency]; cost at equal prices x0.804" in report


def test_a_template_folder_may_override_one_partial(build, tmp_path):
    folder = _templates(tmp_path, headline__md__j2="HEADLINE FROM THE PUBLISHER\n")
    out, _ = build(MAIN, template_dir=folder)
    report = (out / "report.md").read_text()
    assert "HEADLINE FROM THE PUBLISHER" in report
    assert "## Sensitivity" in report


def test_template_values_from_results_are_escaped(build, tmp_path):
    folder = _templates(tmp_path, report__md__j2="{{ results.title }} {{ '<b>|' }}\n")
    out, _ = build("tests/report/specs/hostile.cmp", template_dir=folder)
    text = (out / "report.md").read_text()
    assert "<script>" not in text and "\\<b\\>\\|" in text


@pytest.mark.parametrize(
    ("template", "code"),
    [
        ("{% if report.title %}unclosed\n", "E601"),
        ("{{ report.headline.chnage }}\n", "E602"),
        ("{{ fn('cost') }}\n", "E602"),
        ("{{ report.__class__.__mro__ }}\n", "E603"),
        ("{{ report.systems.append(1) }}\n", "E603"),
        ("{{ ''.__class__ }}\n", "E603"),
        ("{{ results.headline.throughput_ratio / 0 }}\n", "E604"),
        ("{% include 'nowhere.md.j2' %}\n", "E600"),
        ("{% include '../../etc/passwd' %}\n", "E600"),
    ],
)
def test_template_errors_are_diagnostics(build, tmp_path, template, code):
    folder = _templates(tmp_path, report__md__j2=template)
    _, outcome = build(MAIN, template_dir=folder, expect_errors=True)
    assert _codes(outcome) == [code]


def test_missing_template_folder_is_E600(build, tmp_path):
    _, outcome = build(MAIN, template_dir=str(tmp_path / "nope"), expect_errors=True)
    assert _codes(outcome) == ["E600"]


def test_a_failed_render_leaves_the_previous_outputs_untouched(build, tmp_path):
    out, _ = build(MAIN, html=True)
    before = read_tree(out)
    folder = _templates(tmp_path, report__md__j2="{{ report.nothing }}\n")
    _, outcome = build(MAIN, out=out, template_dir=folder, html=True, expect_errors=True)
    assert _codes(outcome) == ["E602"]
    assert read_tree(out) == before
    assert sorted(p.name for p in out.parent.iterdir() if p.name.startswith(".")) == []


def test_a_failed_figure_is_E605_and_writes_nothing(build, monkeypatch):
    from cmpc.report import figures

    out, _ = build(MAIN)
    before = read_tree(out)

    def broken(*args, **kwargs):
        raise ValueError("no canvas")

    monkeypatch.setattr(figures, "summary_svg", broken)
    _, outcome = build(MAIN, out=out, expect_errors=True)
    assert _codes(outcome) == ["E605"]
    assert read_tree(out) == before


def test_render_outputs_reads_partial_results_defensively():
    files, problems = render_outputs({"title": "Only a title"})
    assert problems == []
    assert files["report.md"].startswith("# Only a title\n")


DOC = Path(__file__).resolve().parents[2] / "docs" / "templates.md"


def test_the_documented_example_renders(build, tmp_path):
    text = DOC.read_text(encoding="utf-8")
    example = text.split("```jinja\n", 1)[1].split("```", 1)[0]
    folder = _templates(tmp_path, report__md__j2=example)
    out, _ = build(MAIN, template_dir=folder)
    report = (out / "report.md").read_text()
    assert "8x MI355X: +24.4% total tokens per GPU[^tokens]" in report
    assert "cost per token x0.804" in report and "directional signal only" in report


def test_every_view_model_key_is_documented(build):
    import json

    from cmpc.report.model import View

    out, _ = build(MAIN)
    view = View(json.loads((out / "results.json").read_text())).build()
    doc = DOC.read_text(encoding="utf-8")
    for key in [*view, "figures"]:
        assert f"report.{key}" in doc, f"report.{key} is not in docs/templates.md"
    for key in view["headline"]:
        documented = f"`{key}`" in doc or f"`{key}[]`" in doc
        assert documented, f"report.headline.{key} is not documented"


def test_template_errors_name_the_template_line(build, tmp_path):
    folder = _templates(tmp_path, report__md__j2="fine\n\n{{ report.nope }}\n")
    _, outcome = build(MAIN, template_dir=folder, expect_errors=True)
    (problem,) = outcome.diagnostics
    assert problem.code == "E602"
    assert problem.file.endswith("report.md.j2") and problem.record == "line 3"
