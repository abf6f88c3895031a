"""What a build computes in memory, and the options that change how it reads and renders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cmpc.analysis import types as T
from cmpc.diagnostics import Diagnostic
from cmpc.ingest.load import Input
from cmpc.ingest.points import SystemData
from cmpc.ingest.reduce import Progress
from cmpc.source import SourceFile

if TYPE_CHECKING:
    from concurrent.futures import Executor  # logging and more: 5 ms, for a type


@dataclass(frozen=True)
class Built:
    """A build computed in memory: results, the files it would write, and what it read."""

    results: T.Results | None
    files: Mapping[str, str | bytes]
    diagnostics: tuple[Diagnostic, ...]
    sources: Mapping[str, SourceFile]
    data: Mapping[str, SystemData] = field(default_factory=dict)
    inputs: tuple[Input, ...] = ()
    folder: Path | None = None  # the spec's folder, which input paths are relative to


@dataclass(frozen=True)
class Options:
    """How a build reads its runs and what it renders, beside the spec and its overrides."""

    render: bool = True
    html: bool = False
    template_dir: str | None = None
    use_cache: bool = False
    cache_dir: str | None = None
    progress: Progress | None = None
    executor: Executor | None = None  # any concurrent.futures executor; default: local cores
    scheduler: str | None = None  # a Dask scheduler's address (`--scheduler`, $CMPC_SCHEDULER)
    remote: bool = False  # fsspec URLs in run globs (`--allow-remote`)
    sketch: float | None = None  # DDSketch relative accuracy for percentiles (`--sketch`)
    exports: tuple[str, ...] = ()  # names in cmpc.build.exports.EXPORTS
    png: bool = False  # a PNG beside each SVG figure (`--png`, the png extra)
