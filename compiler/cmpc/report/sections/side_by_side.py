"""The systems side by side: one table, systems as columns, the rows that differ first."""

from __future__ import annotations

from cmpc.jsontypes import JsonObject
from cmpc.report.text import DASH, Md


def side_by_side(systems: list[JsonObject]) -> JsonObject | None:
    """Each system view's (quantity, value) rows merged into one table keyed by quantity.

    A quantity a system lacks shows `n/a`; a repeated quantity (several notes) keeps its
    occurrences apart. Rows whose values differ come first, in first-seen order, because they
    are what a reader compares; the rows every system shares follow.
    """
    if not systems:
        return None
    keys: list[tuple[str, int]] = []
    labels: dict[tuple[str, int], Md] = {}
    cells: list[dict[tuple[str, int], Md]] = []
    for view in systems:
        seen: dict[str, int] = {}
        mine: dict[tuple[str, int], Md] = {}
        for label, value in view.get("rows") or []:
            k = (str(label), seen.get(str(label), 0))
            seen[str(label)] = k[1] + 1
            if k not in labels:
                labels[k] = label
                keys.append(k)
            mine[k] = value
        cells.append(mine)
    rows = []
    for k in keys:
        values = [mine.get(k, Md(DASH)) for mine in cells]
        rows.append({"label": labels[k], "cells": values, "same": len(set(values)) == 1})
    differ = [r for r in rows if not r["same"]]
    shared = [r for r in rows if r["same"]]
    columns = [
        Md("{} (baseline)").format(v["label"]) if v.get("baseline") else v["label"] for v in systems
    ]
    return {
        "columns": columns,
        "rows": differ + shared,
        "differ": len(differ),
        "shared": len(shared) if len(systems) > 1 else 0,
    }
