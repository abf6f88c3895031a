"""Syntax tree to IR: the entry point; each block is read by its own module (see __init__)."""

from __future__ import annotations

from cmpc.check.comparison import read_comparison
from cmpc.check.context import Context
from cmpc.diagnostics import Diagnostic
from cmpc.ir import model as ir
from cmpc.source import Span
from cmpc.syntax import tree as st


def check_spec(spec: st.Spec) -> tuple[ir.Comparison | None, list[Diagnostic], dict[str, Span]]:
    """Check a parsed spec; returns the IR (None on errors), diagnostics and IR-path origins.

    `origins` maps JSON pointers into the IR (`/systems/0/prices/1`) to the source span the
    value came from, so schema errors can point at the spec.
    """
    ctx = Context()
    comparison = read_comparison(ctx, spec.root)
    errors = any(d.severity == "error" for d in ctx.diagnostics)
    return (None if errors else comparison), ctx.diagnostics, ctx.origins
