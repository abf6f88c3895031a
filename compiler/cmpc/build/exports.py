"""The registry of `cmpc build --export NAME`: each name turns a build into extra output files."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from cmpc import lazy
from cmpc.build.model import Built
from cmpc.diagnostics import Diagnostic, error
from cmpc.jsontypes import JsonObject

if TYPE_CHECKING:
    from cmpc.build import export_benchmark, tables
else:  # only `--export` needs them; tables import the report's model and its templates
    export_benchmark = lazy.module("cmpc.build.export_benchmark")
    tables = lazy.module("cmpc.build.tables")

Export = Callable[[Built], Mapping[str, str | bytes]]


def _results(built: Built) -> JsonObject:
    return cast(JsonObject, built.results)


def _parquet(built: Built) -> Mapping[str, str | bytes]:
    return {
        "runs.parquet": tables.parquet_bytes(tables.run_rows(built)),
        "figures.parquet": tables.parquet_bytes(tables.result_figure_rows(built)),
    }


def _requests(built: Built) -> Mapping[str, str | bytes]:
    return {"requests.parquet": tables.parquet_bytes(tables.request_table(built))}


# One line per export; the files land in the build folder beside results.json.
EXPORTS: dict[str, Export] = {
    "github-benchmark": lambda built: export_benchmark.files(_results(built)),
    "parquet": _parquet,
    "requests": _requests,
}


def unknown_exports(names: Sequence[str]) -> list[Diagnostic]:
    """E511 for each name no export registers (the CLI's argument check catches them first)."""
    return [
        error(
            "E511",
            f"unknown export `{name}`",
            notes=("exports: " + ", ".join(f"`{n}`" for n in EXPORTS),),
            help="pass one of the exports to `--export`",
        )
        for name in dict.fromkeys(names)
        if name not in EXPORTS
    ]


def export_files(
    built: Built, names: Sequence[str]
) -> tuple[dict[str, str | bytes], list[Diagnostic]]:
    """Every file the named exports write, or E509 when one's library is not installed."""
    files: dict[str, str | bytes] = {}
    for name in dict.fromkeys(names):
        try:
            files |= EXPORTS[name](built)
        except tables.MissingExtra as exc:
            return {}, [
                error("E509", f"`--export {name}`: {exc}", help="pip install 'cmpc[parquet]'")
            ]
    return files, []
