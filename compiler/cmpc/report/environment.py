"""The jinja2 environment of report templates: sandboxed, strict, Markdown-escaping by default."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable

import jinja2
from jinja2.loaders import split_template_path
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from cmpc.report import text as T


def _finalize(value: object) -> str:
    """Every `{{ ... }}` output: cmpc's Markdown passes, numbers are formatted, text escaped."""
    if isinstance(value, T.Md):
        return value
    if value is None:
        return T.DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return T.number(value)
    return T.escape(value)


@jinja2.pass_context
def _footnote(context: jinja2.runtime.Context, key: str) -> T.Md:
    """A footnote mark `[^key]`; the key must be one the report defines."""
    notes = context["report"]["footnotes"]
    if key not in notes:
        raise jinja2.UndefinedError(f"no footnote `{key}`; defined: {', '.join(notes)}")
    return T.Md("[^{}]").format(key)


def _join(items: Iterable[object], separator: str = ", ") -> T.Md:
    """`join` that keeps cmpc's Markdown and escapes everything else (jinja's `join` would
    return plain text, which the output then escapes a second time)."""
    sep = T.SPECIAL.sub(r"\\\1", " ".join(str(separator).splitlines()))
    return T.Md(sep).join(items)


FILTERS = {
    "mdjoin": _join,
    "pct": T.percent,
    "num": T.number,
    "ratio": T.ratio,
    "usd": T.usd,
    "gb": T.gigabytes,
    "md": T.escape,
    "code": T.code,
    "link": T.link,
}


class FolderLoader(jinja2.FileSystemLoader):
    """Templates from one folder; a name that resolves outside it (a symbolic link) is refused
    before it is read. jinja2's own loader already refuses `..` and absolute names."""

    def __init__(self, folder: str):
        super().__init__(folder)
        self.root = os.path.realpath(folder)

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        path = os.path.join(self.root, *split_template_path(template))
        real = os.path.realpath(path)
        if os.path.lexists(path) and os.path.commonpath([real, self.root]) != self.root:
            raise SecurityError(f"template `{template}` resolves outside the template folder")
        return super().get_source(environment, template)


class _PackageBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates beside the package's own byte code (`cmpc/report/__pycache__`), not in
    a shared or a spec's folder: jinja2 compiled every template at every build (54 ms). Each
    entry is checked against its template's source; an unwritable folder only means no saving."""

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    folder = os.path.join(os.path.dirname(__file__), "__pycache__")
    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
    if not os.path.isdir(folder):
        return None
    return _PackageBytecodeCache(folder, f"jinja2-{sys.implementation.cache_tag}-%s.cache")


def make_environment(template_dir: str | None = None) -> ImmutableSandboxedEnvironment:
    """Package templates, overridden file by file by `template_dir` when given."""
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(FolderLoader(template_dir))
    loaders.append(jinja2.PackageLoader("cmpc.report", "templates"))
    env = ImmutableSandboxedEnvironment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=_finalize,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters.update(FILTERS)
    env.globals["fn"] = _footnote
    return env
