"""The sensitivity section: each alternative's ratios and where the winner flips."""

from __future__ import annotations

from typing import Any

from cmpc.analysis.sensitivity import is_tie
from cmpc.ir.model import DEFAULT_TIE_BAND
from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, get_in, is_number
from cmpc.report.text import (
    DASH,
    Md,
    escape,
    escape_prose,
    number,
    ratio,
    usd,
)
from cmpc.report.words import (
    PARAMETERS,
)


def _utilization_value(text: object) -> float | None:
    """`40%` -> 0.4 (the alternative's display text; None if it is not a percentage)."""
    try:
        value = float(str(text).strip().rstrip("%")) / 100
    except ValueError:
        return None
    return value if value > 0 else None


def sensitivity(ctx: Context) -> JsonObject | None:
    sens = ctx.results.get("sensitivity")
    if not isinstance(sens, dict):
        return None
    head = ctx.results.get("headline") or {}
    band = tie_band(ctx)
    rows: list[dict[str, Any]] = [
        {
            "parameter": Md("as specified"),
            "alternative": Md("(the spec)"),
            "available": True,
            "throughput_ratio": ratio(head.get("throughput_ratio")),
            "cost_ratio": ratio(head.get("cost_ratio")),
            "winner": _winner(ctx, head.get("winner"), is_tie(head.get("throughput_ratio"), band)),
            "cost_winner": _winner(
                ctx, head.get("cost_winner"), is_tie(head.get("cost_ratio"), band)
            ),
            "noise": False,
            "cost_noise": False,
            "flips": False,
            "cost_flips": False,
            "reason": None,
        }
    ]
    for i, row in enumerate(sens.get("rows") or []):
        param = row.get("parameter") or "?"
        alt = row.get("alternative")
        fid = f"sensitivity.{i}"
        tr, cr = row.get("throughput_ratio"), row.get("cost_ratio")
        rows.append(
            {
                "parameter": escape(PARAMETERS.get(param, param)),
                "alternative": escape(alt if alt is not None else DASH),
                "available": bool(row.get("available", True)),
                "reason": escape_prose(row["reason"]) if row.get("reason") else None,
                "throughput_ratio": ctx.fig.add(
                    f"{fid}.throughput_ratio",
                    f"throughput ratio, {param} {alt}",
                    tr,
                    "x",
                    ratio(tr),
                    source="cmpc",
                )
                if is_number(tr)
                else Md(DASH),
                "cost_ratio": ctx.fig.add(
                    f"{fid}.cost_ratio",
                    f"cost ratio, {param} {alt}",
                    cr,
                    "x",
                    ratio(cr),
                    source="cmpc",
                )
                if is_number(cr)
                else Md(DASH),
                "winner": _winner(ctx, row.get("winner"), bool(row.get("tie")))
                if row.get("winner") or not row.get("bound") or not is_number(tr)
                else _unnamed(row.get("bound")),
                "cost_winner": _winner(ctx, row.get("cost_winner"), bool(row.get("cost_tie")))
                if row.get("cost_winner") or not row.get("bound") or not is_number(cr)
                else _unnamed(row.get("bound")),
                "noise": _noise(head, row, "winner", "within_noise", "tie"),
                "cost_noise": _noise(head, row, "cost_winner", "cost_within_noise", "cost_tie"),
                "flips": bool(row.get("flips")),
                "cost_flips": bool(row.get("cost_flips")),
            }
        )
    flips = sum(r["flips"] or r["cost_flips"] for r in rows)
    alternatives = sens.get("rows") or []
    readable = sum(bool(r.get("available")) for r in alternatives)
    utilization_note = _utilization_note(ctx, sens.get("rows") or [])
    explained = {"utilization"} if utilization_note else set()
    rows, folded = _fold(rows, sens.get("rows") or [], explained)
    return {
        "declared": bool(sens.get("declared")),
        "rows": rows,
        "folded": folded,
        "flips": flips,
        "summary": _summary(flips, readable, len(alternatives), head),
        "tie_band": Md("{}%").format(number(band * 100)),
        "utilization_note": utilization_note,
    }


def _summary(flips: int, readable: int, total: int, head: JsonObject) -> Md:
    """Whether the winner flips, counting only the alternatives that could be read."""
    unread = total - readable
    missing = (
        Md(" ({} of the {} could not be read)").format(number(unread), number(total))
        if unread
        else Md("")
    )
    if flips:
        return Md(
            "**The winner flips under {} of the {} alternatives that could be read.**{}"
        ).format(number(flips), number(readable), missing)
    if not readable:
        return Md(
            "None of the {} alternatives could be read, so they say nothing about whether the "
            "winner flips."
        ).format(number(total))
    if not head.get("winner") and not head.get("cost_winner"):
        return Md(
            "The spec's own comparison names no winner, so there is none to flip; {} of the {} "
            "alternatives could be read."
        ).format(number(readable), number(total))
    return Md(
        "The winner does not flip under any of the {} alternatives that could be read{}."
    ).format(number(readable), missing)


def _unnamed(bound: object) -> Md:
    """Why a row with a ratio names no winner: its ratio is a bound that does not settle it."""
    if bound == "neither":
        return Md("none named: a ratio of two lower bounds")
    return Md("none named: the ratio is a bound on the other side of 1")


def _noise(head: dict, row: dict, winner: str, noise: str, tie: str) -> bool:
    """A winner other than the spec's that is no flip because a lead is within noise."""
    if row.get(tie) or not row.get(winner) or row.get(winner) == head.get(winner):
        return bool(winner == "winner" and row.get("within_noise"))
    return bool(head.get(noise) or (winner == "winner" and row.get("within_noise")))


# Why a parameter whose alternatives all leave the ratios as specified cannot move them.
_NO_EFFECT = {
    "utilization": "it scales every system's cost per token by the same factor",
}
_SAME = ("throughput_ratio", "cost_ratio", "winner", "cost_winner")


def _fold(
    rows: list[dict[str, Any]], raw: list[JsonObject], explained: set[str]
) -> tuple[list[dict[str, Any]], Md]:
    """Rows kept, and one line for the parameters none of whose alternatives moves a ratio.

    A parameter is folded only when every alternative of it is available and shows the spec's
    ratios and winners as displayed, so nothing a reader could see is hidden.
    """
    spec, alts = rows[0], rows[1:]
    by_param: dict[str, list[int]] = {}
    for i, row in enumerate(raw):
        by_param.setdefault(str(row.get("parameter") or "?"), []).append(i)
    dropped: set[int] = set()
    lines: list[Md] = []
    for param, index in by_param.items():
        group = [alts[i] for i in index]
        if not all(r["available"] and all(r[k] == spec[k] for k in _SAME) for r in group):
            continue
        dropped.update(index)
        why = None if param in explained else _NO_EFFECT.get(param)
        lines.append(
            Md("{} ({}) leaves them at {} and {}{}").format(
                escape(PARAMETERS.get(param, param)),
                Md(", ").join(r["alternative"] for r in group),
                spec["throughput_ratio"],
                spec["cost_ratio"],
                Md(", because {}").format(why) if why else Md(""),
            )
        )
    if not lines:
        return rows, Md("")
    kept = [spec] + [r for i, r in enumerate(alts) if i not in dropped]
    note = Md("Folded out of the table, because no alternative of it changes a ratio: {}.")
    return kept, note.format(Md("; ").join(lines))


def tie_band(ctx: Context) -> float:
    """The share of 1 within which a ratio is a tie (results.json's, else the default)."""
    band = get_in(ctx.results, "sensitivity", "tie_band")
    return float(band) if is_number(band) else DEFAULT_TIE_BAND


def _winner(ctx: Context, name: str | None, tie: bool) -> Md:
    """The winner's label; `tie` when the ratio is within the tie band of 1."""
    if tie:
        return Md("tie")
    return ctx.label(name) if name else Md(DASH)


def _utilization_note(ctx: Context, rows: list[JsonObject]) -> Md | None:
    """Utilization moves no ratio; show what it does to each cost per million tokens."""
    base_u = get_in(ctx.conditions, "cost", "utilization")
    alts = [r for r in rows if r.get("parameter") == "utilization" and r.get("available")]
    names = [
        n for n in ctx.order if is_number(get_in(ctx.systems, n, "cost", "usd_per_million_tokens"))
    ]
    if not alts or not names or not is_number(base_u):
        return None
    parts = []
    for i, row in enumerate(alts):
        u = _utilization_value(row.get("alternative"))
        if u is None:
            continue
        costs = []
        for n in names:
            c = get_in(ctx.systems, n, "cost", "usd_per_million_tokens") * base_u / u
            shown = ctx.n(
                f"sensitivity.utilization{i}.{n}.usd_per_million_tokens",
                f"cost per million tokens at utilization {row.get('alternative')}",
                c,
                "USD/Mtok",
                usd,
                system=n,
            )
            costs.append(Md("{} {}").format(ctx.label(n), shown))
        parts.append(Md("at {}, {}").format(row.get("alternative"), Md(", ").join(costs)))
    if not parts:
        return None
    return Md(
        "Utilization scales every system's cost per token by the same factor, so it moves "
        "no ratio; it moves the absolute cost per million tokens: {}."
    ).format(Md("; ").join(parts))
