"""Spec text to validated IR: parse, `--set`, check, schema; the front end every verb shares."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cmpc.check.checker import check_spec
from cmpc.check.hidden import hidden_characters
from cmpc.diagnostics import Diagnostic, error, has_errors
from cmpc.ir import model as ir
from cmpc.ir.schema import validate_ir
from cmpc.source import SourceFile, Span
from cmpc.syntax.overrides import Override, apply_overrides, parse_override, parse_unset
from cmpc.syntax.parser import parse_spec


def compile_source(source: SourceFile) -> tuple[ir.Comparison | None, list[Diagnostic]]:
    """Parse, check and schema-validate one spec: (IR or None, diagnostics)."""
    comparison, diagnostics, _, _ = compile_with_overrides(source, ())
    return comparison, diagnostics


def compile_with_overrides(
    source: SourceFile, sets: Sequence[str]
) -> tuple[ir.Comparison | None, list[Diagnostic], dict[str, SourceFile], list[Override]]:
    """Parse, apply `--set` overrides to the syntax tree, check and validate.

    Returns (IR or None, diagnostics, the sources of the overrides, the overrides).
    """
    compiled = compile_spec(source, sets)
    return compiled.comparison, compiled.diagnostics, compiled.sources, compiled.overrides


@dataclass(frozen=True)
class Compiled:
    """A compiled spec: its IR (None on errors), diagnostics, `--set` sources and origins."""

    comparison: ir.Comparison | None
    diagnostics: list[Diagnostic]
    sources: dict[str, SourceFile]
    overrides: list[Override]
    origins: dict[str, Span] = field(default_factory=dict)  # IR pointer -> spec text


def compile_spec(source: SourceFile, sets: Sequence[str], unsets: Sequence[str] = ()) -> Compiled:
    """`compile_with_overrides`, keeping where each IR value came from (for build diagnostics).

    `unsets` are `--unset PATH`s: keys removed from the spec, after every `--set` is applied.
    """
    spec, diagnostics = parse_spec(source)
    diagnostics += hidden_characters(source)
    if spec is None:
        return Compiled(None, diagnostics, {}, [])
    overrides: list[Override] = []
    bad: dict[str, SourceFile] = {}
    for flag, texts, parse, example in (
        ("--set", sets, parse_override, "`--set cost.utilization=40%`"),
        ("--unset", unsets, parse_unset, "`--unset system.b300.price.as_of`"),
    ):
        for text in texts:
            parsed = parse(text)
            if parsed is not None:
                overrides.append(parsed)
                continue
            name = f"{flag} {text}"
            bad[name] = SourceFile(name, name)
            diagnostics.append(
                error(
                    "E501",
                    f"`{name}` is not {'PATH=VALUE' if flag == '--set' else 'a PATH'}",
                    Span(name, len(flag) + 1, len(name)),
                    label="expected PATH=VALUE" if flag == "--set" else "expected a PATH",
                    help=f"e.g. {example}"
                    + ("; to remove a key, `--unset PATH`" if flag == "--set" else ""),
                )
            )
    spec, problems, sources, overrides = apply_overrides(spec, overrides)
    sources |= bad
    diagnostics += problems
    comparison, more, origins = check_spec(spec)
    diagnostics += more
    if comparison is not None and not has_errors(diagnostics):
        diagnostics += validate_ir(comparison, origins)
    return Compiled(comparison, diagnostics, sources, overrides, origins)
