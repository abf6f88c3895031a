"""The `comparison` block: its top-level keys, the baseline, and the order blocks are read in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cmpc import lazy
from cmpc.check.context import (
    Context,
    entry_name,
    ref,
    too_many,
    unique,
)
from cmpc.check.decode import decode
from cmpc.check.disclosure import read_disclosure
from cmpc.check.latency import read_latency
from cmpc.check.prices import CostBlock, read_cost
from cmpc.check.rules import cross_checks, mixed_pue
from cmpc.check.sensitivity import read_sensitivity
from cmpc.check.sources import read_source
from cmpc.check.systems import read_system
from cmpc.check.tokens import read_normalize, read_tokens
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import vocabulary as V
from cmpc.limits import current as current_limits
from cmpc.syntax import tree as st

if TYPE_CHECKING:
    from cmpc.check import capacity as capacity_block
    from cmpc.check import claims as claim_block
    from cmpc.check import fleet as fleet_block
    from cmpc.check import uncertainty as uncertainty_block
else:  # only a spec with these blocks reads them (`cmpc check` start-up)
    capacity_block = lazy.module("cmpc.check.capacity")
    claim_block = lazy.module("cmpc.check.claims")
    fleet_block = lazy.module("cmpc.check.fleet")
    uncertainty_block = lazy.module("cmpc.check.uncertainty")


def read_comparison(ctx: Context, root: st.Entry) -> ir.Comparison | None:
    top = Field.of(root)
    ctx.origin("", root.span)
    if root.key.value != "comparison" or root.body is None:
        ctx.fail(
            "E100",
            f"a spec holds one `comparison` block, found `{root.key.value}`",
            root.key.span,
            label="expected `comparison`",
            help='start the file with: comparison "title" { ... }',
        )
        return None
    head = Field(top.key, top.atoms, top.span, top.key_span)
    title = ctx.read.text(head, '"Kimi K3: 8x MI355X vs HGX B300"')
    block = decode(ctx, top, V.COMPARISON)
    one = {k: v[0] for k, v in block.fields.items()}  # the blocks, read by their own checkers

    sources = tuple(read_source(ctx, f, i) for i, f in enumerate(block.all("source")))
    unique(ctx, "source", block.all("source"))

    systems_fields = block.all("system")
    unique(ctx, "system", systems_fields)
    too_many(ctx, "system", systems_fields, current_limits().systems, "systems")
    too_many(ctx, "claim", block.all("claim"), current_limits().claims, "claims")
    system_names = [entry_name(ctx, f) for f in systems_fields]
    ctx = ctx.with_names({s.name: s for s in sources}, [n for n in system_names if n])

    # A claims audit states published figures without systems: no sides, no constraint.
    audit = not systems_fields and bool(block.all("claim"))
    before = len(ctx.diagnostics)
    latency = read_latency(ctx, one["latency"]) if "latency" in one else ir.Latency()
    latency_ok = len(ctx.diagnostics) == before
    if "latency" not in one and not audit:
        ctx.fail(
            "E106",
            "the comparison has no `latency` block",
            root.key.span,
            label="every comparison needs a latency constraint",
            help="add e.g. `latency { metric tpot; statistic p90; target 50 tok/s/user }`",
        )
    tokens = read_tokens(ctx, one["tokens"]) if "tokens" in one else ir.Tokens()
    normalize = read_normalize(ctx, one["normalize"]) if "normalize" in one else ir.Normalization()
    cost = read_cost(ctx, one["cost"]) if "cost" in one else CostBlock()
    systems = []
    system_fields: dict[str, Field] = {}
    for i, f in enumerate(systems_fields):
        system = read_system(ctx, f, i, latency, latency_ok)
        if system is not None:
            systems.append(system)
            system_fields.setdefault(system.name, f)
    baseline = None if audit else read_baseline(ctx, one.get("baseline"), root)
    if len(systems_fields) < 2 and not audit:
        ctx.fail(
            "E113",
            f"a comparison needs at least two systems, found {len(systems_fields)}",
            root.key.span,
            label="compares fewer than two systems",
            help="declare each side with `system NAME { ... }`",
            notes=("a spec with claims and no systems at all is a claims audit",),
        )
    cross_checks(ctx, systems, system_fields, normalize, cost, tokens, one.get("normalize"))
    capacity = capacity_block.read_capacity(ctx, one["capacity"]) if "capacity" in one else None
    claims = tuple(
        c
        for c in (
            claim_block.read_claim(ctx, f, i, normalize) for i, f in enumerate(block.all("claim"))
        )
        if c is not None
    )
    unique(ctx, "claim", block.all("claim"))
    sensitivity, tie_band = (
        read_sensitivity(ctx, one["sensitivity"], systems, latency)
        if "sensitivity" in one
        else ((), ir.DEFAULT_TIE_BAND)
    )
    disclosure = read_disclosure(ctx, one["disclosure"]) if "disclosure" in one else ()
    uncertainty = (
        uncertainty_block.read_uncertainty(ctx, one["uncertainty"])
        if "uncertainty" in one
        else ir.Uncertainty()
    )
    fleet = fleet_block.read_fleet(ctx, one["fleet"], systems) if "fleet" in one else None
    mixed_pue(ctx, systems, normalize, one.get("normalize"), fleet)
    question = block["question"]
    synthetic = any(s.role == "synthetic" for s in sources)
    if title is None or (baseline is None and not audit):
        return None
    return ir.Comparison(
        file=root.span.file,
        title=title,
        question=question,
        baseline=baseline,
        systems=tuple(systems),
        sources=sources,
        latency=latency,
        tokens=tokens,
        normalize=normalize,
        cost=cost.cost,
        capacity=capacity,
        claims=claims,
        sensitivity=sensitivity,
        tie_band=tie_band,
        uncertainty=uncertainty,
        fleet=fleet,
        disclosure=disclosure,
        synthetic=synthetic,
    )


def read_baseline(ctx: Context, field: Field | None, root: st.Entry) -> str | None:
    if field is None:
        ctx.fail(
            "E106",
            "the comparison has no `baseline`",
            root.key.span,
            label="which system do the ratios divide by?",
            help="add `baseline NAME` naming one of the systems",
        )
        return None
    if len(field.atoms) != 1:
        ctx.read.expect(field, "the name of a system", "b300")
        return None
    ctx.origin("/baseline", field.span)
    return ref(ctx, field.atoms[0], "system", ctx.systems, "baseline")
