"""The registry of `cmpc build --export NAME`: each name turns results into extra output files."""

from __future__ import annotations

from collections.abc import Callable

from cmpc.build import export_benchmark
from cmpc.jsontypes import JsonObject

Exporter = Callable[[JsonObject], dict[str, str | bytes]]

# One line per export; the files land in the build folder beside results.json.
EXPORTS: dict[str, Exporter] = {
    "github-benchmark": export_benchmark.files,
}
