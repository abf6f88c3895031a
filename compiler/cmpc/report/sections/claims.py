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
    ratio,
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
        compared = _compared(ctx, name, c.get("compared_with"))
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
                "compared": compared,
            }
        )
    return out


def _compared(ctx: Context, name: str, cw: object) -> Md | None:
    """`Beside tp8: ...`, the claim against `compare_to`'s figure at the same scope."""
    if not isinstance(cw, dict):
        return None
    system, unit = cw.get("system"), str(cw.get("unit") or "")
    per = "GPU" if cw.get("scope") == "gpu" else "node"
    claim_value, own = cw.get("claim_value"), cw.get("system_value")
    head = Md("Beside {} (`compare_to`), per {}: ").format(ctx.label(system), per)
    shown_claim = (
        ctx.fig.add(
            f"claim.{name}.per_{cw.get('scope')}",
            f"claim {name} per {per}",
            claim_value,
            unit,
            number(claim_value),
            source="cmpc, from the claim",
        )
        if is_number(claim_value)
        else None
    )
    shown_own = (
        ctx.fig.add(
            f"claim.{name}.{system}.per_{cw.get('scope')}",
            f"{system} throughput per {per} beside claim {name}",
            own,
            unit,
            number(own),
            system=system,
        )
        if is_number(own)
        else None
    )
    ratio_value = cw.get("ratio")
    if shown_claim is None or shown_own is None or not is_number(ratio_value):
        return head + Md("not compared: {}.").format(escape_prose(cw.get("note") or "unknown"))
    shown_ratio = ctx.fig.add(
        f"claim.{name}.ratio",
        f"claim {name} over {system}",
        ratio_value,
        "x",
        ratio(ratio_value),
    )
    return head + Md(
        "the claim's {} {} is {}\u00d7 {}'s {} {}. The claim does not say which tokens it "
        "counts; {}'s figure counts {} tokens, at the comparison's latency conditions."
    ).format(
        shown_claim,
        unit,
        shown_ratio,
        ctx.label(system),
        shown_own,
        unit,
        ctx.label(system),
        escape(cw.get("system_tokens") or DASH),
    )


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
