"""`cmpc.build`: a spec built in memory into a Results object; files written only on request."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any

from cmpc.api.errors import CmpcError, PolicyFailed
from cmpc.build import tables
from cmpc.build.gates import check_policy, parse_all
from cmpc.build.model import Built, Options
from cmpc.build.outputs import check_target, write_atomically
from cmpc.build.pipeline import compute_build
from cmpc.diagnostics import Diagnostic, has_errors
from cmpc.ingest.remote import is_url

TABLES = ("figures", "runs")


@dataclass(frozen=True)
class Results:
    """A built comparison: `results.json` as `document`, and the files a build would write."""

    document: Mapping[str, Any]
    files: Mapping[str, str | bytes] = field(repr=False)
    diagnostics: tuple[Diagnostic, ...] = ()
    spec: Path = field(default=Path(), repr=False)
    built: Built | None = field(default=None, repr=False, compare=False)
    policy_failures: tuple[Diagnostic, ...] = ()  # E810: the `require=` policies not met

    @property
    def policies_met(self) -> bool:
        """Every `require=` policy holds (True when none was given)."""
        return not self.policy_failures

    @property
    def exit_code(self) -> int:
        """What `cmpc build --require ...` would exit with: 0, or 3 when a policy failed."""
        return 0 if self.policies_met else PolicyFailed.exit_code

    def raise_for_policies(self) -> Results:
        """Raise PolicyFailed when a `require=` policy failed; else return the results."""
        if self.policy_failures:
            raise PolicyFailed(self.policy_failures, self)
        return self

    @property
    def headline(self) -> Mapping[str, Any] | None:
        """The headline comparison (system, baseline, throughput and cost ratios), or None."""
        value: Mapping[str, Any] | None = self.document.get("headline")
        return value

    @property
    def systems(self) -> Mapping[str, Any]:
        """Each system's results by name: label, points, frontier, read at the target, cost."""
        value: Mapping[str, Any] = self.document.get("systems") or {}
        return value

    @property
    def reads(self) -> dict[str, Any]:
        """Each system's read at the target (`at_target`: throughput, knots, reachable)."""
        return {name: s.get("at_target") for name, s in self.systems.items()}

    @property
    def costs(self) -> dict[str, Any]:
        """Each system's cost ($/GPU-hour, $ per million tokens, price scenarios)."""
        return {name: s.get("cost") for name, s in self.systems.items()}

    @property
    def comparisons(self) -> Any:
        """Each system against the baseline (ratios), as results.json has them."""
        return self.document.get("comparisons")

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    @property
    def report(self) -> str:
        """report.md's text ('' when built with `render=False`)."""
        text = self.files.get("report.md", "")
        return text if isinstance(text, str) else text.decode("utf-8")

    def rows(self, table: str = "figures") -> list[dict[str, object]]:
        """`figures`: the rows of figures.csv, typed; `runs`: one row per run (runs.parquet)."""
        if table not in TABLES:
            raise ValueError(f"unknown table `{table}`; tables: {', '.join(TABLES)}")
        if self.built is None:
            return []
        if table == "runs":
            return tables.run_rows(self.built)
        return tables.result_figure_rows(self.built)

    def to_pandas(self, table: str = "figures") -> Any:
        """A pandas.DataFrame of `rows(table)` (needs the `dataframe` extra)."""
        return tables.to_pandas(self.rows(table))

    def to_arrow(self, table: str = "figures") -> Any:
        """A pyarrow.Table of `rows(table)` (needs the `dataframe` extra)."""
        return tables.to_arrow(self.rows(table))

    def write(self, output: str | PathLike[str]) -> Path:
        """Write the build's files to `output` atomically, as `cmpc build -o` does."""
        target = Path(output)
        keep = [self.spec, *self._inputs()]
        problems = [*check_target(target, keep)]
        if not has_errors(problems):
            problems += write_atomically(target, dict(self.files), keep)
        if has_errors(problems):
            raise CmpcError(problems)
        return target

    def _inputs(self) -> list[Path]:
        inputs = self.built.inputs if self.built else ()
        folder = self.spec.resolve().parent
        return [folder / i.path for i in inputs if not is_url(i.path)]


def build(
    spec: str | PathLike[str],
    *,
    overrides: Mapping[str, object] | Sequence[str] = (),
    unsets: Sequence[str] | str = (),
    require: Sequence[str] | str = (),
    output: str | PathLike[str] | None = None,
    render: bool = True,
    html: bool = False,
    template: str | PathLike[str] | None = None,
    cache: bool = False,
    cache_dir: str | PathLike[str] | None = None,
    exports: Sequence[str] = (),
    scheduler: str | None = None,
    executor: Executor | None = None,
    allow_remote: bool = False,
    sketch: float | None = None,
) -> Results:
    """Build a spec: check it, read its runs (confined to its folder) and compute every figure.

    `overrides` are `--set` edits (`{"cost.utilization": "40%"}` or `["cost.utilization=40%"]`),
    `unsets` `--unset` paths (removed after every override). Nothing is written unless `output`
    names a folder (or `cache=True`: the cache of reduced runs). Raises CmpcError with the
    diagnostics when the spec or its data have errors, or a `require` policy is not valid
    (E800) or names a path results.json lacks (E801). A policy that is valid and fails (E810,
    the CLI's exit 3) does not raise: see `policy_failures`, `exit_code`, `raise_for_policies()`.
    """
    policies, problems = parse_all(_texts(require), "--require")  # a typo fails before any work
    if problems:
        raise CmpcError(problems)
    sets = _sets(overrides)
    options = Options(
        render=render,
        html=html,
        template_dir=str(template) if template is not None else None,
        use_cache=cache,
        cache_dir=str(cache_dir) if cache_dir is not None else None,
        executor=executor,
        scheduler=scheduler,
        remote=allow_remote,
        sketch=sketch,
        exports=tuple(exports),
    )
    spec_path = Path(spec)
    before = None
    if output is not None:
        target = Path(output)
        keep = [spec_path, *([Path(template)] if template is not None else [])]
        before = lambda: check_target(target, keep)  # noqa: E731
    built = compute_build(str(spec_path), sets, options, before_load=before, unsets=_texts(unsets))
    if built.results is None or has_errors(built.diagnostics):
        raise CmpcError(built.diagnostics, built.sources)
    document: Any = built.results
    results = Results(document, built.files, built.diagnostics, spec_path, built)
    if output is not None:  # written before the policies are checked, as `cmpc build` does
        results.write(output)
    verdicts = [d for p in policies for d in check_policy(p, document)]
    if has_errors([d for d in verdicts if d.code != "E810"]):
        raise CmpcError(verdicts)
    return dataclasses.replace(results, policy_failures=tuple(verdicts)) if verdicts else results


def _texts(value: Sequence[str] | str) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _sets(overrides: Mapping[str, object] | Sequence[str]) -> list[str]:
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{path}={value}" for path, value in overrides.items()]
    return list(overrides)
