"""Results model -> the report's view model (the `report` variable of the templates).

A thin composition: each section module turns the results into display-ready Markdown for its
template; they share one `Context` (the results indexed once, and the registry of displayed
figures for figures.csv). Sections read `results` defensively (`.get` with defaults), because
specs gain fields faster than the report does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.jsontypes import JsonObject
from cmpc.report.context import Context, Registry
from cmpc.report.sections import (
    assumptions,
    claims,
    cost,
    disclosure,
    footnotes,
    headline,
    provenance,
    sensitivity,
    side_by_side,
    systems,
    uncertainty,
)
from cmpc.report.text import escape
from cmpc.report.words import PER

if TYPE_CHECKING:
    from cmpc.report.sections import fleet
else:  # only a spec with a `fleet` block has its section
    fleet = lazy.module("cmpc.report.sections.fleet")


class View:
    """The view model of one results dict."""

    def __init__(self, results: dict):
        self.ctx = Context.of(results)

    @property
    def order(self) -> list[str]:
        """System names in the spec's order."""
        return self.ctx.order

    @property
    def fig(self) -> Registry:
        """Every figure the report displays (filled by `build`)."""
        return self.ctx.fig

    def build(self) -> JsonObject:
        """The `report` variable of the templates (documented in docs/templates.md).

        The sections run in this order because the first registration of a figure names it in
        figures.csv.
        """
        ctx = self.ctx
        per = ctx.per()
        return {
            "title": escape(ctx.results.get("title") or "Comparison"),
            "question": escape(ctx.results["question"]) if ctx.results.get("question") else None,
            "synthetic": ctx.synthetic,
            "headline": headline.headline(ctx),
            "systems": (views := systems.system_views(ctx)),
            "side_by_side": side_by_side.side_by_side(views),
            "comparisons": systems.comparison_rows(ctx),
            "iso": systems.iso_interactivity(ctx),
            "cost": cost.cost_view(ctx),
            "assumptions": assumptions.assumptions(ctx),
            "sensitivity": sensitivity.sensitivity(ctx),
            "intervals": uncertainty.intervals(ctx),
            "fleet": fleet.fleet_view(ctx) if ctx.results.get("fleet") else None,
            "disclosure": disclosure.disclosure(ctx, views),
            "claims": claims.claims(ctx),
            "claim_combinations": claims.claim_combinations(ctx),
            "capacity": claims.capacity(ctx),
            "provenance": provenance.provenance(ctx),
            "footnotes": footnotes.footnotes(ctx),
            "unit": escape(ctx.unit()),
            "per": escape(PER.get(per, per)),
        }
