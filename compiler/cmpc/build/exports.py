"""`cmpc build --export NAME`: extra output files, one registry entry per export format."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cmpc.build import tables
from cmpc.build.model import Built
from cmpc.diagnostics import Diagnostic, error

Export = Callable[[Built], Mapping[str, str | bytes]]


def _parquet(built: Built) -> Mapping[str, str | bytes]:
    return {
        "runs.parquet": tables.parquet_bytes(tables.run_rows(built)),
        "figures.parquet": tables.parquet_bytes(tables.result_figure_rows(built)),
    }


def _requests(built: Built) -> Mapping[str, str | bytes]:
    return {"requests.parquet": tables.parquet_bytes(tables.request_table(built))}


# Adding an export is one entry: its name (the `--export` value) and what it writes.
EXPORTS: dict[str, Export] = {
    "parquet": _parquet,
    "requests": _requests,
}


def unknown_exports(names: Sequence[str]) -> list[Diagnostic]:
    """E511 for each name no export registers (the CLI's choices catch them first)."""
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
