"""Regenerate compiler/cmpc/report/compiled_templates.py: the package templates as jinja2's code.

python scripts/compile_templates.py          # rewrite the module
python scripts/compile_templates.py --check  # exit 1 if it is not for the templates on disk

jinja2's own code generator compiles each template of cmpc/report/templates with the environment
report/environment.py builds (the reference); this script rewrites its `from jinja2.runtime
import` to cmpc.report.template_runtime and wraps each template's module code in a factory
function, so a build renders without importing jinja2. It refuses (exit 1) a template whose code
needs a part of jinja2 the runtime does not reproduce. `--check` regenerates the module and
compares it byte for byte with the shipped one when the installed jinja2 is the one that made it
(JINJA2); under another jinja2 it compares only the SHA-256 of the templates and of
report/environment.py, text.py and template_filters.py (whose options and pass_* marks shape the
code), so a new jinja2 release does not make a current module look stale.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "compiler" / "cmpc" / "report" / "compiled_templates.py"
HEADER = '''"""cmpc's report templates compiled by jinja2 {jinja2} (scripts/compile_templates.py).

Do not edit: change a template in cmpc/report/templates and run
`python scripts/compile_templates.py`. Each factory holds jinja2's code for one template, run by
cmpc.report.template_runtime instead of jinja2.runtime; report/precompiled.py uses it only while
DIGESTS and MODULES match the files, and renders with jinja2 otherwise.
"""
# ruff: noqa
# fmt: off
# mypy: ignore-errors

'''
IMPORT = re.compile(r"^from jinja2\.runtime import (.*)$")

# What the runtime reproduces; anything else in the generated code is refused.
ENVIRONMENT_ATTRIBUTES = {"getattr", "getitem", "call", "finalize", "undefined", "concat"}
ENVIRONMENT_ATTRIBUTES |= {"filters", "get_template"}
CONTEXT_ATTRIBUTES = {"resolve_or_missing", "vars", "exported_vars", "get_all", "call"}
TEMPLATE_ATTRIBUTES = {"root_render_func", "new_context"}


class Refused(Exception):
    """The templates need something the runtime does not cover."""


def _environment():
    sys.path.insert(0, str(ROOT / "compiler"))
    from cmpc.report import environment

    return environment.make_environment()


def _recording(function, calls: list[str], name: str):
    @functools.wraps(function)  # keeps jinja2's pass_* mark, which shapes the generated call
    def recorded(*args, **kwargs):
        calls.append(name)
        return function(*args, **kwargs)

    return recorded


def _check_surface(name: str, code: str, env, runtime, compiled_names: set[str]) -> list[str]:
    """The names the code imports from jinja2.runtime; Refused if it needs more than the runtime."""
    body = code.split("\n", 1)[1]
    imported = [n.strip() for n in IMPORT.match(code.split("\n", 1)[0]).group(1).split(",")]
    used = [n for n in imported if re.search(rf"\b{n}\b", body)]
    problems = [f"`{n}`" for n in used if not hasattr(runtime, n)]
    for pattern, allowed in (
        (r"\benvironment\.(\w+)", ENVIRONMENT_ATTRIBUTES),
        (r"\bcontext\.(\w+)", CONTEXT_ATTRIBUTES),
        (r"\btemplate\.(\w+)", TEMPLATE_ATTRIBUTES),
    ):
        problems += [f"`{m}`" for m in sorted(set(re.findall(pattern, body)) - allowed)]
    for filter_name in sorted(set(re.findall(r"environment\.filters\['(\w+)'\]", body))):
        if filter_name not in runtime.FILTERS:
            problems.append(f"the filter `{filter_name}`")
    for global_name in sorted(set(re.findall(r"resolve\('(\w+)'\)", body)) & set(env.globals)):
        if global_name not in runtime.GLOBALS:
            problems.append(f"the global `{global_name}`")
    for included in re.findall(r"environment\.get_template\(([^,)]*)", body):
        if included.strip("'") not in compiled_names:
            problems.append(f"the include of {included}")
    if "\nblocks = {}\n" not in code:
        problems.append("blocks")
    if problems:
        raise Refused(f"{name} needs {', '.join(problems)}, which template_runtime lacks")
    return used


def _check_filters(env, runtime, template_filters) -> None:
    """The jinja2 environment's filters are the functions the runtime calls (or jinja2's builtins
    the runtime reimplements, unchanged)."""
    import jinja2.filters

    for name in runtime.FILTERS:
        if name in template_filters.FILTERS:
            same = env.filters[name] is template_filters.FILTERS[name]
        else:
            same = env.filters[name] is jinja2.filters.FILTERS[name]
        if not same:
            raise Refused(f"the filter `{name}` differs between jinja2 and template_runtime")


def generate() -> str:
    """The module's text for the templates on disk and the installed jinja2."""
    from cmpc.report import precompiled

    digests = precompiled.template_digests(precompiled.PACKAGE_TEMPLATES)
    sources = {
        name: (Path(precompiled.PACKAGE_TEMPLATES) / name).read_text(encoding="utf-8")
        for name in digests
    }
    return module_text(_environment(), sources, precompiled.template_file, digests)


def module_text(env, sources: dict[str, str], filename, digests: dict[str, str]) -> str:
    """A compiled-templates module of `sources` ({name: text}) compiled by `env` (which this
    changes: it records the cmpc code jinja2 runs while compiling)."""
    import jinja2

    from cmpc.report import precompiled, template_filters
    from cmpc.report import template_runtime as runtime

    _check_filters(env, runtime, template_filters)
    calls: list[str] = []  # cmpc code jinja2 runs at compile time (constant folding)
    env.finalize = _recording(env.finalize, calls, "finalize")
    for filter_name in template_filters.FILTERS:
        env.filters[filter_name] = _recording(env.filters[filter_name], calls, filter_name)
    chunks, imports, entries = [], set(), []
    for name in sorted(sources):
        code = env.compile(sources[name], name, filename(name), raw=True)
        imports.update(_check_surface(name, code, env, runtime, set(sources)))
        factory = "_" + re.sub(r"\W", "_", name)
        body = code.split("\n", 1)[1].rstrip("\n").split("\n")
        debug_info = re.search(r"^debug_info = '([^']*)'$", code, re.M).group(1)
        lines = [f"def {factory}(environment):", *(f"    {b}" if b else "" for b in body)]
        lines.append("    return root, blocks, debug_info")
        chunks.append(lines)
        entries.append((name, factory, len(lines), debug_info))
    # the code also follows the environment's options (trim_blocks, finalize, ...), the pass_*
    # marks of cmpc's finalizer and filters (text.py, template_filters.py) and, when jinja2
    # folded constants through them, their results
    modules = precompiled.source_digests(precompiled.SHAPED_BY)
    head = [
        f"from cmpc.report.template_runtime import {', '.join(sorted(imports))}",
        "",
        f"JINJA2 = {jinja2.__version__!r}",
        "DIGESTS = {",
        *(f"    {n!r}: {d!r}," for n, d in sorted(digests.items())),
        "}",
        "MODULES = {",
        *(f"    {n!r}: {d!r}," for n, d in modules.items()),
        "}",
        "",
        "",
    ]
    text = HEADER.format(jinja2=jinja2.__version__) + "\n".join(head)
    line = text.count("\n") + 1
    table = []
    for (name, factory, length, debug_info), lines in zip(entries, chunks, strict=True):
        text += "\n".join(lines) + "\n\n\n"
        table.append(f"    {name!r}: ({factory}, {line}, {line + length - 1}, {debug_info!r}),")
        line += length + 2
    text += "# name: (factory, its first and last line in this file, jinja2's debug_info)\n"
    text += "TEMPLATES = {\n" + "\n".join(table) + "\n}\n"
    return text


def _same_jinja2() -> bool:
    """Whether the installed jinja2 is the one the shipped module was compiled by."""
    import jinja2

    from cmpc.report import compiled_templates

    return jinja2.__version__ == compiled_templates.JINJA2


def _matches_shipped() -> bool:
    """Whether regenerating now gives the shipped module, byte for byte."""
    try:
        return generate() == TARGET.read_text(encoding="utf-8")
    except (Refused, OSError):
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the module is stale")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "compiler"))
    from cmpc.report import precompiled

    if args.check:
        if _matches_shipped() if _same_jinja2() else precompiled.is_current():
            return 0
        print(
            f"{TARGET.relative_to(ROOT)} is not for the templates on disk: "
            "run `python scripts/compile_templates.py`",
            file=sys.stderr,
        )
        return 1
    try:
        text = generate()
    except Refused as exc:
        print(f"cannot precompile: {exc}", file=sys.stderr)
        return 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
