"""What the systems were asked to serve: warnings when models, precisions or workloads differ."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.analysis.reads import measured_runs
from cmpc.analysis.stage import recall
from cmpc.diagnostics import Diagnostic, warning
from cmpc.ingest.points import SystemData
from cmpc.ir import model as ir

if TYPE_CHECKING:
    import datetime
else:  # 2 ms of imports: only runs that state a date, or prices that do, need it
    datetime = lazy.module("datetime")

# the fields a run file may state that fix what was served: a comparison across different
# values of one of them compares different work
WORKLOAD_FIELDS = ("model", "precision", "isl", "osl", "dataset", "dataset_name")
_DATE = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")


def workload_differences(
    comparison: ir.Comparison, data: Mapping[str, SystemData]
) -> list[Diagnostic]:
    """W516 for each declared or file-stated workload field whose values differ across systems."""
    found = []
    declared = {s.name: _declared(s) for s in comparison.systems}
    for key in ("model", "precision"):
        values = {name: {d[key]} for name, d in declared.items() if key in d}
        found += _differs(comparison, key, values, "the spec declares")
    stated: dict[str, dict[str, set[str]]] = {}
    for system in comparison.systems:
        runs = measured_runs(comparison, data, system) or ()
        for rp in runs:
            for key in WORKLOAD_FIELDS:
                value = rp.fields.get(key)
                if value not in (None, ""):
                    stated.setdefault(key, {}).setdefault(system.name, set()).add(str(value))
    for key in WORKLOAD_FIELDS:
        found += _differs(comparison, key, stated.get(key, {}), "the run files state")
    return found


def _declared(system: ir.System) -> dict[str, str]:
    out = {}
    if system.model:
        out["model"] = system.model
    if system.precision:
        out["precision"] = ", ".join(f"{k} {v}" for k, v in system.precision)
    return out


def _differs(
    comparison: ir.Comparison, key: str, values: Mapping[str, set[str]], who: str
) -> list[Diagnostic]:
    """One warning when the systems that state `key` do not all state the same values."""
    if len(values) < 2 or len({frozenset(v) for v in values.values()}) == 1:
        return []
    names = [s.name for s in comparison.systems if s.name in values]
    first = values[names[0]]
    other = next(n for n in names if values[n] != first)
    shown = "; ".join(f"`{n}`: " + ", ".join(f"`{v}`" for v in sorted(values[n])) for n in names)
    return [
        warning(
            "W516",
            f"the systems serve different work: {who} different `{key}` ({shown})",
            file=comparison.file,
            help="compare systems serving the same model, precision and workload, or say in "
            "the question why they differ",
            origin=f"/systems/{comparison.systems.index(comparison.system(other))}/name",
        )
    ]


def run_date(fields: Mapping[str, object]) -> datetime.date | None:
    """The date a run file states (`date`: `2025-04-14`, vLLM's `20250414-141621`), if any."""
    match = _DATE.match(str(fields.get("date") or ""))
    if match is None:
        return None
    try:
        return datetime.date(*(int(g) for g in match.groups()))
    except ValueError:
        return None


def stale_prices(comparison: ir.Comparison, data: Mapping[str, SystemData]) -> list[Diagnostic]:
    """W130 from the run dates the files state, for runs whose source gives no date."""
    found = []
    for index, system in enumerate(comparison.systems):
        if system.runs is None:
            continue
        source = comparison.source(system.runs.source) if system.runs.source else None
        if source is not None and (source.snapshot or source.run_date):
            continue  # the check compared the price with the source's date
        earliest = recall(
            "earliest-run",
            comparison,
            system.name,
            partial(_earliest, comparison, data, system),
            lambda d: d and d.isoformat(),
            lambda text: text and datetime.date.fromisoformat(text),
        )
        if earliest is None:
            continue
        for j, price in enumerate(system.prices):
            if price.as_of is None:
                continue
            age = (earliest - datetime.date.fromisoformat(price.as_of)).days
            if age > comparison.cost.max_price_age_days:
                found.append(
                    warning(
                        "W130",
                        f"`{system.name}`'s {price.scenario} price ({price.as_of}) is {age} days "
                        f"older than its data (the run files state {earliest.isoformat()})",
                        file=comparison.file,
                        help="use a price from the data's time, or raise `cost { max_price_age }`",
                        origin=f"/systems/{index}/prices/{j}",
                    )
                )
    return found


def _earliest(
    comparison: ir.Comparison, data: Mapping[str, SystemData], system: ir.System
) -> datetime.date | None:
    """The earliest run date a system's files state (None: no run, or none states one)."""
    runs = measured_runs(comparison, data, system) or ()
    return min((d for rp in runs if (d := run_date(rp.fields)) is not None), default=None)
