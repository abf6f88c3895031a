"""Results to report files: Markdown, figures, figures.csv (and HTML on request)."""

from __future__ import annotations


def render_outputs(results: dict, *, html: bool = False, template_dir: str | None = None):
    """Every report file as {relative path: content}, and diagnostics."""
    return {}, []
