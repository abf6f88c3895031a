"""The disclosure section: the checklist, its score and the verdict."""

from __future__ import annotations

import math

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, is_number
from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    number,
)


def disclosure(ctx: Context) -> JsonObject | None:
    d = ctx.results.get("disclosure")
    if not isinstance(d, dict):
        return None
    items = []
    for item in d.get("items") or []:
        if item.get("answer"):
            status = Md("answered: {}").format(item["answer"])
        elif item.get("answered"):
            status = Md("stated in the spec's declarations")
        else:
            status = Md("**not disclosed**")
        items.append(
            {
                "key": code(item.get("key") or "?"),
                "question": escape(item.get("question") or ""),
                "answered": bool(item.get("answered")),
                "status": status,
                "five": bool(item.get("five_questions")),
            }
        )
    score, total = d.get("score"), d.get("total")
    half = math.ceil(total / 2) if is_number(total) else None
    return {
        "five": [i for i in items if i["five"]],
        "rest": [i for i in items if not i["five"]],
        "missing": [i for i in items if not i["answered"]],
        "score": ctx.fig.add(
            "disclosure.score",
            "disclosure items answered",
            score,
            "items",
            number(score),
            source="cmpc",
        ),
        "total": ctx.n("disclosure.total", "checklist items", total, "items"),
        "half": number(half),
        "five_answered": ctx.n(
            "disclosure.five_answered",
            "five questions answered",
            d.get("five_answered"),
            "items",
        ),
        "five_total": number(d.get("five_total")),
        "verdict": escape(d.get("verdict") or DASH),
    }
