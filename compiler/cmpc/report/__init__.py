"""Results to report files: Markdown, figures, figures.csv (and HTML on request)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.diagnostics import Diagnostic, error
from cmpc.jsontypes import JsonObject
from cmpc.report import figures as F
from cmpc.report import precompiled
from cmpc.report import template_runtime as runtime
from cmpc.report.model import View
from cmpc.report.text import Md, number

if TYPE_CHECKING:
    import traceback

    import jinja2

    from cmpc.report import environment, raster
    from cmpc.report import html as html_page
else:  # only `--format html`, `--png` and a failing template need them
    html_page = lazy.module("cmpc.report.html")
    raster = lazy.module("cmpc.report.raster")
    traceback = lazy.module("traceback")
    # jinja2 renders `--template DIR`, an edited package template, what the runtime lacks
    environment = lazy.module("cmpc.report.environment")
    jinja2 = lazy.module("jinja2")

REPORT_TEMPLATE = "report.md.j2"
# a footnote definition line (the body compiles it: cmpc/_recache.py keeps its program)
_DEFINITION = re.compile(r"^\[\^([A-Za-z0-9_-]+)\]: ")


def render_outputs(
    results: JsonObject,
    *,
    html: bool = False,
    template_dir: str | None = None,
    png: bool = False,
) -> tuple[dict[str, str | bytes], list[Diagnostic]]:
    """Every report file as {relative path: content}, and diagnostics.

    Nothing is written here: build.write_atomically moves the files into place only when the
    whole build succeeded.
    """
    if template_dir is not None and not os.path.isdir(template_dir):
        return {}, [
            error(
                "E600",
                f"template folder `{template_dir}` does not exist",
                file=template_dir,
                help="`--template DIR` names a folder that holds "
                f"`{REPORT_TEMPLATE}` (and any templates it includes)",
            )
        ]
    view_model = View(results)
    report = view_model.build()
    order = view_model.order
    labels = {n: str(results["systems"][n].get("label") or n) for n in order}
    files: dict[str, str | bytes] = {}
    figures = []
    try:
        if F.has_sweep(results) and F.one_run_each(results):
            files["figures/runs.svg"] = F.runs_svg(results, order, labels)
            figures.append(
                {
                    "path": "figures/runs.svg",
                    "kind": "runs",
                    "axis": F.runs_axis(results),
                    "alt": Md("Throughput at the one measured run of each system"),
                }
            )
        elif F.has_sweep(results):
            files["figures/frontier.svg"] = F.frontier_svg(results, order, labels)
            axis, caption = F.frontier_caption(results)
            figures.append(
                {
                    "path": "figures/frontier.svg",
                    "kind": "frontier",
                    "axis": axis,
                    "caption": caption,
                    "alt": Md(
                        "Throughput against {}: measured points, frontier as read, target and reads"
                    ).format(F.read_axis_word(results)),
                }
            )
        elif order:
            files["figures/summary.svg"] = F.summary_svg(report, results, order, labels)
            figures.append(
                {
                    "path": "figures/summary.svg",
                    "kind": "summary",
                    "alt": Md(
                        "Throughput and cost per token relative to the baseline "
                        "under each price scenario"
                    ),
                }
            )
        if F.has_latency_cdf(results):
            files["figures/latency.svg"] = F.latency_svg(results, order, labels)
            figures.append(
                {
                    "path": "figures/latency.svg",
                    "kind": "latency",
                    "alt": Md("Distributions of per-request TTFT and TPOT, target and SLOs marked"),
                }
            )
            _register_latency_cdf(view_model, results)
    except Exception as exc:  # a plotting failure must not leave a half-written build
        return {}, [
            error("E605", f"cannot draw the figures: {type(exc).__name__}: {exc}", file="figures/")
        ]
    report["figures"] = figures
    markdown, problems = render_markdown(results, report, template_dir)
    if markdown is None:
        return {}, problems
    files["report.md"] = markdown
    files["figures.csv"] = F.figures_csv(view_model.fig.rows)
    if html:
        files["report.html"] = html_page.to_html(markdown, report["title"], files)
    if png:
        rasters, missing = raster.png_figures(files)
        files |= rasters
        problems = problems + missing
    return files, problems


def figure_rows(results: JsonObject) -> list[JsonObject]:
    """The rows of figures.csv (id, quantity, system, value, unit, displayed, source), untyped."""
    view_model = View(results)
    view_model.build()
    _register_latency_cdf(view_model, results)
    return list(view_model.fig.rows)


def _register_latency_cdf(view_model: View, results: JsonObject) -> None:
    """Every plotted point of the latency CDFs, for figures.csv (drawn after the report's)."""
    for name, metric, q, value, unit in F.latency_cdf_points(results, view_model.order):
        view_model.fig.add(
            f"{name}.{metric}.cdf.p{q:g}",
            f"{metric.upper()} percentile {q:g} of the run nearest the target",
            value,
            unit,
            number(value),
            system=name,
            source=str(results["systems"][name]["latency_cdf"]["label"]),
        )


def render_markdown(
    results: JsonObject, report: JsonObject, template_dir: str | None
) -> tuple[str | None, list[Diagnostic]]:
    """report.md from the package templates, or from `template_dir` first (sandboxed)."""
    compiled = None if template_dir is not None else precompiled.current_environment()
    if compiled is not None:
        try:
            text = precompiled.render(compiled, REPORT_TEMPLATE, results=results, report=report)
        except runtime.NotCovered:
            pass  # jinja2 renders it, below
        except Exception as exc:
            return None, [_compiled_template_error(exc)]
        else:
            return _finish(text), []
    return _render_with_jinja2(results, report, template_dir)


def _compiled_template_error(exc: Exception) -> Diagnostic:
    """The diagnostic jinja2's rendering gives for the same failure."""
    where = "cmpc/report/templates"
    position = precompiled.error_position(exc.__traceback__)
    at: JsonObject = {"file": where}
    if position is not None:
        at = {"file": _template_file(position[0], where), "record": f"line {position[1]}"}
    if isinstance(exc, runtime.UndefinedError):
        return error(
            "E602",
            f"template uses an undefined variable: {exc.message}",
            **at,
            help="see docs/templates.md for every variable",
        )
    if isinstance(exc, runtime.SecurityError):
        return error(
            "E603",
            f"template tried an unsafe operation: {exc}",
            **at,
            help="templates run in a sandbox and cannot reach Python internals",
        )
    return error("E604", f"template failed: {type(exc).__name__}: {exc}", **at)


def _render_with_jinja2(
    results: JsonObject, report: JsonObject, template_dir: str | None
) -> tuple[str | None, list[Diagnostic]]:
    """report.md rendered by jinja2 itself, the reference."""
    env = environment.make_environment(template_dir)
    where = template_dir or "cmpc/report/templates"
    try:
        template = env.get_template(REPORT_TEMPLATE)
        text = template.render(results=results, report=report)
    except jinja2.TemplateSyntaxError as exc:
        return None, [
            error(
                "E601",
                f"template syntax error: {exc.message}",
                file=_template_file(exc.filename or exc.name, where),
                record=f"line {exc.lineno}",
            )
        ]
    except jinja2.TemplateNotFound as exc:
        return None, [
            error(
                "E600",
                f"template `{exc.name}` not found in {where}",
                file=where,
                help=f"a template folder holds `{REPORT_TEMPLATE}`",
            )
        ]
    except jinja2.UndefinedError as exc:
        return None, [
            error(
                "E602",
                f"template uses an undefined variable: {exc.message}",
                **_template_position(exc, where),
                help="see docs/templates.md for every variable",
            )
        ]
    except environment.SecurityError as exc:
        return None, [
            error(
                "E603",
                f"template tried an unsafe operation: {exc}",
                **_template_position(exc, where),
                help="templates run in a sandbox and cannot reach Python internals",
            )
        ]
    except Exception as exc:
        return None, [
            error(
                "E604",
                f"template failed: {type(exc).__name__}: {exc}",
                **_template_position(exc, where),
            )
        ]
    return _finish(text), []


def _finish(text: str) -> str:
    return _drop_unreferenced_footnotes(text).rstrip("\n") + "\n"


def _drop_unreferenced_footnotes(text: str) -> str:
    """Footnote definitions nothing in the report points at (e.g. a claims-only spec's)."""
    lines = text.split("\n")
    body = "\n".join(line for line in lines if not _DEFINITION.match(line))
    return "\n".join(
        line for line in lines if not (m := _DEFINITION.match(line)) or f"[^{m.group(1)}]" in body
    )


def _template_position(exc: BaseException, where: str) -> JsonObject:
    """`file` and `record` of the innermost template line in a rendering traceback."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith(".j2")]
    if not frames:
        return {"file": where}
    last = frames[-1]
    return {"file": _template_file(last.filename, where), "record": f"line {last.lineno}"}


def _template_file(name: str | None, where: str) -> str:
    if not name:
        return where
    return name if os.path.isabs(name) or name.startswith(where) else f"{where}/{name}"
