"""The jinja2 environment of report templates: sandboxed, strict, Markdown-escaping by default.

It is the reference: report/compiled_templates.py is its code for the package templates, which a
build runs without jinja2 while they are current (report/precompiled.py); `--template DIR`, an
edited package template or anything the precompiled runtime does not cover render here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable

import jinja2
from jinja2.loaders import split_template_path
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from cmpc.report import precompiled, template_filters
from cmpc.report import text as T


@jinja2.pass_context
def _footnote(context: jinja2.runtime.Context, key: str) -> T.Md:
    """A footnote mark `[^key]`; the key must be one the report defines."""
    notes = context["report"]["footnotes"]
    mark = template_filters.footnote_mark(notes, key)
    if mark is None:
        raise jinja2.UndefinedError(template_filters.unknown_footnote(notes, key))
    return mark


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
    # an entry checks its template's source only: the code also follows the filters' pass_*
    # marks and the options, so the modules that shape it name the entries too
    try:
        shape = "".join(precompiled.source_digests(precompiled.SHAPED_BY).values())
    except OSError:
        return None
    tag = f"{sys.implementation.cache_tag}-{hashlib.sha256(shape.encode()).hexdigest()[:16]}"
    return _PackageBytecodeCache(folder, f"jinja2-{tag}-%s.cache")


def make_environment(template_dir: str | None = None) -> ImmutableSandboxedEnvironment:
    """Package templates, overridden file by file by `template_dir` when given."""
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(FolderLoader(template_dir))
    # the folder precompiled.py checks, so a test can point both at an edited copy
    loaders.append(jinja2.FileSystemLoader(precompiled.PACKAGE_TEMPLATES))
    env = ImmutableSandboxedEnvironment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=template_filters.finalize,
        bytecode_cache=_bytecode_cache(),
    )
    env.filters.update(template_filters.FILTERS)
    env.globals["fn"] = _footnote
    return env
