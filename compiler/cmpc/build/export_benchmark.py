"""github-action-benchmark's `customBiggerIsBetter` / `customSmallerIsBetter` JSON of a build."""

from __future__ import annotations

import json
import math
from typing import Any

from cmpc.jsontypes import JsonObject
from cmpc.safe_text import json_text

BIGGER = "github-benchmark-bigger.json"  # tool: customBiggerIsBetter
SMALLER = "github-benchmark-smaller.json"  # tool: customSmallerIsBetter


def files(results: JsonObject) -> dict[str, str | bytes]:
    """Two files, one per direction: each a list of {name, unit, value[, range, extra]}."""
    doc: Any = results
    bigger: list[dict[str, Any]] = []
    smaller: list[dict[str, Any]] = []
    head = doc.get("headline") or {}
    if head:
        pair = f"{head.get('system')} vs {head.get('baseline')}"
        _add(
            bigger,
            f"throughput ratio, {pair}",
            "x",
            head.get("throughput_ratio"),
            head.get("throughput_ratio_ci"),
        )
        _add(
            smaller,
            f"cost-per-token ratio, {pair}",
            "x",
            head.get("cost_ratio"),
            head.get("cost_ratio_ci"),
        )
    unit = ((doc.get("conditions") or {}).get("normalize") or {}).get("unit") or "per unit"
    for name, system in sorted((doc.get("systems") or {}).items()):
        at = system.get("at_target") or {}
        _add(bigger, f"{name}: throughput per GPU", "tok/s/gpu", at.get("throughput_per_gpu"))
        if at.get("unit") and at.get("unit") != "tok/s/gpu":
            _add(
                bigger, f"{name}: throughput", at.get("unit") or unit, at.get("throughput_per_unit")
            )
        cost = system.get("cost") or {}
        _add(
            smaller,
            f"{name}: cost per million tokens",
            "USD/M tokens",
            cost.get("usd_per_million_tokens"),
        )
    return {BIGGER: _dump(bigger), SMALLER: _dump(smaller)}


def _add(
    rows: list[dict[str, Any]], name: str, unit: str, value: object, interval: object = None
) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return  # github-action-benchmark needs a number: an n/a figure is left out, not zeroed
    row: dict[str, Any] = {"name": name, "unit": unit, "value": value}
    bounds = _bounds(interval)
    if bounds:
        row["range"] = f"{bounds[0]:.4g} to {bounds[1]:.4g}"
        row["extra"] = "interval from the build's repetitions (headline.*_ci)"
    rows.append(row)


def _bounds(interval: object) -> tuple[float, float] | None:
    if isinstance(interval, list | tuple) and len(interval) == 2:
        low, high = interval
    elif isinstance(interval, dict):
        low, high = interval.get("low"), interval.get("high")
    else:
        return None
    if all(isinstance(x, int | float) and not isinstance(x, bool) for x in (low, high)):
        return float(low), float(high)
    return None


def _dump(rows: list[dict[str, Any]]) -> str:
    return json_text(json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
