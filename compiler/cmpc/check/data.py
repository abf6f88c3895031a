"""A system's data: `runs` (benchmark files) or `reported` figures."""

from __future__ import annotations

import re

from cmpc.check.context import (
    Context,
    ref,
    text_of,
)
from cmpc.check.decode import decode, decode_options
from cmpc.check.published import read_intervals
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st

# the dimensions a reported throughput may have, and the unit the IR states it in
_UNITS: dict[units.Dimension, V.ReportedUnit] = {
    units.TOKEN_RATE_PER_GPU: "tok/s/gpu",
    units.TOKEN_RATE_PER_NODE: "tok/s/node",
    units.TOKEN_RATE: "tok/s",
}


def read_runs(ctx: Context, field: Field, pointer: str) -> ir.Runs | None:
    ctx.origin(pointer, field.span)
    positional, block = decode_options(ctx, field, V.RUNS, ir.Runs)
    if len(positional) != 1 or not isinstance(positional[0], st.String):
        ctx.read.expect(field, "a file glob", '"data/mi355x/*.json" format vllm')
        return None
    glob = positional[0].value
    if _escapes(glob):
        ctx.fail(
            "E119",
            f"run glob `{glob}` reaches outside the spec's folder",
            positional[0].span,
            label="absolute, or climbs out with `..`",
            notes=("a spec may read only files in its own folder tree",),
            help="copy the files under the spec's folder and use a relative glob",
        )
        return None
    source = _source_name(ctx, block.field("source"), "my_lab")
    where = []
    where_field = block.field("where")
    if where_field is not None:
        atoms = list(where_field.atoms)
        names = [a for a in atoms[::2] if isinstance(a, st.Name)]
        if len(atoms) % 2 or len(names) != len(atoms) // 2:
            ctx.read.expect(where_field, "`field value` pairs", "where tp 8")
        else:
            where = [(a.value, text_of(b)) for a, b in zip(names, atoms[1::2], strict=True)]
    return ir.Runs(glob=glob, format=block["format"], where=tuple(where), source=source)


def _source_name(ctx: Context, field: Field | None, example: str) -> str | None:
    """A reference to a declared `source` block."""
    if field is None:
        return None
    if len(field.atoms) == 1:
        return ref(ctx, field.atoms[0], "source", ctx.source_names, "source")
    ctx.read.expect(field, "the name of a source", example)
    return None


def read_reported(ctx: Context, field: Field, pointer: str, system: str) -> ir.Reported | None:
    ctx.origin(pointer, field.span)
    block = decode(ctx, field, V.REPORTED, ir.Reported)
    source = _source_name(ctx, block.field("source"), "inferencex")
    throughput = unit = at = dimension = None
    throughput_field = block.field("throughput")
    if throughput_field is not None:
        positional, options = decode_options(ctx, throughput_field, V.THROUGHPUT)
        at = options["at"]
        got = ctx.read.quantity(
            Field("throughput", positional, throughput_field.span, throughput_field.key_span),
            units.TOKEN_RATE_PER_GPU,
            units.TOKEN_RATE_PER_NODE,
            units.TOKEN_RATE,
        )
        if got:
            throughput, unit, dimension = got[0], _UNITS[got[1]], got[1]
    ratio = ratio_to = None
    ratio_field = block.field("ratio")
    if ratio_field is not None:
        positional, opts = ctx.read.options(ratio_field, V.RATIO_OPTIONS)
        if len(positional) == 1 and isinstance(positional[0], st.Number):
            ratio = ctx.read.number_atom(positional[0], "ratio", ranges.RATIO)
        else:
            ctx.read.expect(ratio_field, "a number", "1.244 to b300")
        if "to" in opts and len(opts["to"][0].atoms) == 1:
            ratio_to = ref(ctx, opts["to"][0].atoms[0], "system", ctx.systems, "to")
        elif ratio is not None and ratio != 1:
            ctx.fail(
                "E106",
                "a reported ratio needs `to SYSTEM`",
                ratio_field.span,
                help="e.g. `ratio 1.244 to b300`",
            )
        else:
            ratio_to = system
    points = []
    for f in block.all("point"):
        positional, point = decode_options(ctx, f, V.POINT)
        quantities = [a for a in positional if isinstance(a, st.Quantity)]
        if len(positional) == 2 and len(quantities) == 2:
            x = ctx.read.quantity_atom(quantities[0], "point", (units.INTERACTIVITY,))
            y = ctx.read.quantity_atom(
                quantities[1],
                "point",
                (units.TOKEN_RATE_PER_GPU, units.TOKEN_RATE_PER_NODE, units.TOKEN_RATE),
            )
            if x and y:
                points.append(ir.ReportedPoint(x[0], y[0], point["conc"], _UNITS[y[1]]))
        else:
            ctx.read.expect(
                f, "an interactivity and a throughput", "45 tok/s/user 6115 tok/s/gpu conc 8"
            )
    if throughput is None and ratio is None and not points:
        ctx.fail(
            "E106",
            "reported data need a `throughput`, a `ratio` or `point`s",
            field.key_span,
            help="e.g. `ratio 1.244 to b300` or `throughput 2600 tok/s/gpu at 50 tok/s/user`",
        )
    published = read_intervals(
        ctx,
        block.all("interval"),
        None if throughput is None or dimension is None else (throughput, dimension),
        ratio,
        ratio_to == system,
    )
    if source is None:
        return None
    return ir.Reported(
        source=source,
        statistic=block["statistic"],
        throughput=throughput,
        throughput_unit=unit,
        at_interactivity_tok_s_user=at,
        ratio=ratio,
        ratio_to=ratio_to,
        points=tuple(points),
        intervals=published,
        cache_hit_rate=block["cache_hit_rate"],
        input_share=block["input_share"],
        notes=block["notes"],
    )


def _escapes(glob: str) -> bool:
    """True when a run glob is absolute or has a `..` segment anywhere.

    Any `..`, not only one that climbs out once normalized: `**/..` normalizes away, yet the walk
    lists the parent of every folder it meets, the same files under ever longer names.
    """
    if glob.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", glob):
        return True
    return ".." in glob.replace("\\", "/").split("/")
