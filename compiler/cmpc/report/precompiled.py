"""The package templates as precompiled Python, used only while they match the files on disk.

report/compiled_templates.py holds jinja2's own code for every file of report/templates/, with
the SHA-256 of each (and of report/environment.py, text.py and template_filters.py, whose
options and filters' pass_* marks shape the code);
`current_environment()` hands out its environment only when the folder still holds exactly
those files, so an edited template is rendered by jinja2 (the reference), never stale.
Regenerate with `python scripts/compile_templates.py`.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

from cmpc.digests import sha256  # hashlib's import loads OpenSSL: 2.6 ms of a warm rebuild
from cmpc.report import compiled_templates as compiled
from cmpc.report import template_runtime as runtime

PACKAGE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_TEMPLATES = os.path.join(PACKAGE, "templates")
# the modules under report/ whose options and filters' pass_* marks shape jinja2's code
SHAPED_BY = ("environment.py", "text.py", "template_filters.py")


def template_digests(folder: str) -> dict[str, str]:
    """{file name: SHA-256} of every file in a template folder."""
    digests = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                digests[name] = sha256(handle.read()).hexdigest()
    return digests


def source_digests(paths: tuple[str, ...]) -> dict[str, str]:
    """{path under report/: SHA-256} of the modules the compiled code depends on."""
    digests = {}
    for relative in paths:
        with open(os.path.join(PACKAGE, relative), "rb") as handle:
            digests[relative] = sha256(handle.read()).hexdigest()
    return digests


def is_current(folder: str | None = None) -> bool:
    """Whether the compiled module was made from exactly the templates in `folder`."""
    try:
        if template_digests(folder or PACKAGE_TEMPLATES) != compiled.DIGESTS:
            return False
        return source_digests(tuple(compiled.MODULES)) == compiled.MODULES
    except OSError:
        return False


def template_file(name: str) -> str:
    """The path jinja2's loader gives a package template, for diagnostics."""
    return os.path.normpath(os.path.join(PACKAGE_TEMPLATES, name))


def current_environment() -> runtime.Environment | None:
    """The precompiled templates' environment, or None when the package templates changed."""
    if not is_current(PACKAGE_TEMPLATES):
        return None
    factories = {name: entry[0] for name, entry in compiled.TEMPLATES.items()}
    return runtime.Environment(factories, template_file)


def render(environment: runtime.Environment, name: str, **variables: Any) -> str:
    """A template rendered with the precompiled code (raises what the template raises)."""
    return environment.get_template(name).render(**variables)


def error_position(tb: TracebackType | None) -> tuple[str, int] | None:
    """The template file and line of the innermost compiled-template frame of a traceback,
    mapped as jinja2 maps its own frames (the last template line at or before the code line)."""
    found = None
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") == compiled.__name__:
            found = tb.tb_lineno
        tb = tb.tb_next
    if found is None:
        return None
    for name, (_, first, last, debug_info) in compiled.TEMPLATES.items():
        if first <= found <= last:
            return template_file(name), _template_line(debug_info, found - first + 1)
    return None


def _template_line(debug_info: str, code_line: int) -> int:
    """jinja2's Template.get_corresponding_lineno over its `debug_info` string."""
    pairs = (
        [tuple(map(int, pair.split("="))) for pair in debug_info.split("&")] if debug_info else []
    )
    for template_line, line in reversed(pairs):
        if line <= code_line:
            return template_line
    return 1
