"""The claims section: published claims, what they support, and the memory capacity check."""

from __future__ import annotations

from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, is_number
from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    escape_prose,
    gigabytes,
    number,
    percent,
)


def claims(ctx: Context) -> list[JsonObject]:
    out = []
    for c in ctx.results.get("claims") or []:
        name = c.get("name") or "?"
        value = ctx.fig.add(
            f"claim.{name}",
            f"claim {name}",
            c.get("value"),
            c.get("unit") or "",
            number(c.get("value")),
            source=str(c.get("source_title") or c.get("source") or ""),
        )
        derived = []
        for i, d in enumerate(c.get("derived") or []):
            shown = ctx.fig.add(
                f"claim.{name}.derived{i}",
                str(d.get("quantity") or ""),
                d.get("value"),
                d.get("unit") or "",
                number(d.get("value")),
                source="cmpc, from the claim",
            )
            unit = escape(d.get("unit") or "")
            line = Md("{}: {}").format(d.get("quantity"), shown)
            derived.append(line + Md(" ") + unit if unit else line)
        cannot = [
            Md("{}: needs {}").format(d.get("quantity"), escape_prose(d.get("missing")))
            for d in c.get("cannot_derive") or []
        ]
        facts = [escape(c.get("kind") or DASH), Md("scope {}").format(c.get("scope") or DASH)]
        if c.get("source_title") or c.get("source"):
            facts.append(Md("source {}").format(c.get("source_title") or c.get("source")))
        out.append(
            {
                "name": code(name),
                "value": Md("{} {}").format(value, c.get("unit") or ""),
                "about": escape(c["about"]) if c.get("about") else None,
                "facts": Md(", ").join(facts),
                "derived": derived,
                "cannot": cannot,
                "notes": [escape_prose(n) for n in c.get("notes") or []],
            }
        )
    return out


def claim_combinations(ctx: Context) -> list[JsonObject]:
    out = []
    for i, c in enumerate(ctx.results.get("claim_combinations") or []):
        value = c.get("value")
        shown = (
            ctx.fig.add(
                f"claims.combination{i}",
                str(c.get("quantity") or ""),
                value,
                "",
                number(value),
                source="cmpc, from the claims",
            )
            if is_number(value)
            else None
        )
        out.append(
            {
                "claims": Md(", ").join(code(n) for n in c.get("claims") or []),
                "quantity": escape_prose(c.get("quantity") or DASH),
                "formula": escape_prose(c.get("formula") or DASH),
                "value": shown,
                "missing": escape_prose(c["missing"]) if c.get("missing") else None,
                "note": escape_prose(c["note"]) if c.get("note") else None,
            }
        )
    return out


def capacity(ctx: Context) -> JsonObject | None:
    cap = ctx.results.get("capacity")
    if not isinstance(cap, dict):
        return None
    rows = []
    for s in cap.get("systems") or []:
        name = s.get("system")
        usable = s.get("usable_bytes_per_card")
        rows.append(
            {
                "system": ctx.label(name),
                "usable": ctx.n(
                    f"{name}.usable_bytes",
                    "usable memory per card",
                    usable,
                    "B",
                    gigabytes,
                    system=name,
                    source="spec",
                )
                + (Md(" (nominal)") if s.get("usable_is_nominal") else Md("")),
                "needed": ctx.n(
                    f"{name}.cards_needed",
                    "cards needed",
                    s.get("cards_needed"),
                    "cards",
                    system=name,
                ),
                "declared": ctx.n(
                    f"{name}.cards_declared",
                    "cards in the system",
                    s.get("cards_declared"),
                    "cards",
                    system=name,
                    source="spec",
                ),
                "fits": s.get("fits"),
            }
        )
    return {
        "weights": ctx.n("capacity.weights", "weights", cap.get("weight_bytes"), "B", gigabytes),
        "kv_per_token": ctx.n(
            "capacity.kv_per_token", "KV cache per token", cap.get("kv_bytes_per_token"), "B"
        )
        + Md(" bytes"),
        "kv": ctx.n("capacity.kv", "KV cache", cap.get("kv_bytes"), "B", gigabytes),
        "needed": ctx.n(
            "capacity.needed", "memory needed", cap.get("bytes_needed"), "B", gigabytes
        ),
        "context": ctx.n(
            "capacity.context", "context", cap.get("context_tokens"), "tokens", source="spec"
        ),
        "concurrency": ctx.n(
            "capacity.concurrency",
            "concurrency",
            cap.get("concurrency"),
            "requests",
            source="spec",
        ),
        "reserve": ctx.n(
            "capacity.reserve",
            "memory reserve",
            cap.get("reserve"),
            "fraction",
            percent,
            source="spec",
        ),
        "rows": rows,
        "not_fitting": [row["system"] for row in rows if row["fits"] is False],
    }
