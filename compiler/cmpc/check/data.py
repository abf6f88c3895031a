"""A system's data: `runs` (benchmark files) or `reported` figures."""

from __future__ import annotations

import re

from cmpc.check.context import (
    Context,
    getter,
    ref,
    text_of,
)
from cmpc.check.latency import one_statistic
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.syntax import tree as st


def read_runs(ctx: Context, field: Field, pointer: str) -> ir.Runs | None:
    ctx.origin(pointer, field.span)
    positional, opts = ctx.read.options(field, V.RUNS_OPTIONS)
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
    fmt = ctx.read.word(opts["format"][0], V.FORMATS) if "format" in opts else None
    source = None
    if "source" in opts:
        atoms = opts["source"][0].atoms
        if len(atoms) == 1:
            source = ref(ctx, atoms[0], "source", ctx.source_names, "source")
        else:
            ctx.read.expect(opts["source"][0], "the name of a source", "my_lab")
    where = []
    if "where" in opts:
        atoms = list(opts["where"][0].atoms)
        if len(atoms) % 2 or not all(isinstance(a, st.Name) for a in atoms[::2]):
            ctx.read.expect(opts["where"][0], "`field value` pairs", "where tp 8")
        else:
            where = [(a.value, text_of(b)) for a, b in zip(atoms[::2], atoms[1::2], strict=True)]
    return ir.Runs(glob=glob, format=fmt, where=tuple(where), source=source)


def read_reported(ctx: Context, field: Field, pointer: str, system: str) -> ir.Reported | None:
    ctx.origin(pointer, field.span)
    found = ctx.read.block(field, V.REPORTED_KEYS)
    one = {k: v[0] for k, v in found.items()}
    source = None
    if "source" not in one:
        ctx.fail(
            "E106",
            "reported figures need a `source`",
            field.key_span,
            label="who published these figures?",
            help="add `source NAME` naming a declared `source` block",
        )
    elif len(one["source"].atoms) == 1:
        source = ref(ctx, one["source"].atoms[0], "source", ctx.source_names, "source")
    else:
        ctx.read.expect(one["source"], "the name of a source", "inferencex")
    statistic = one_statistic(ctx, one["statistic"]) if "statistic" in one else None
    throughput = unit = at = None
    if "throughput" in one:
        positional, opts = ctx.read.options(one["throughput"], V.THROUGHPUT_OPTIONS)
        got = ctx.read.quantity(
            Field("throughput", positional, one["throughput"].span, one["throughput"].key_span),
            units.TOKEN_RATE_PER_GPU,
            units.TOKEN_RATE_PER_NODE,
            units.TOKEN_RATE,
        )
        if got:
            throughput, unit = got[0], got[1].canonical
        if "at" in opts:
            at_got = ctx.read.quantity(opts["at"][0], units.INTERACTIVITY)
            at = at_got[0] if at_got else None
    ratio = ratio_to = None
    if "ratio" in one:
        positional, opts = ctx.read.options(one["ratio"], V.RATIO_OPTIONS)
        if len(positional) == 1 and isinstance(positional[0], st.Number):
            ratio = ctx.read.number_atom(positional[0], "ratio", ranges.RATIO)
        else:
            ctx.read.expect(one["ratio"], "a number", "1.244 to b300")
        if "to" in opts and len(opts["to"][0].atoms) == 1:
            ratio_to = ref(ctx, opts["to"][0].atoms[0], "system", ctx.systems, "to")
        elif ratio is not None and ratio != 1:
            ctx.fail(
                "E106",
                "a reported ratio needs `to SYSTEM`",
                one["ratio"].span,
                help="e.g. `ratio 1.244 to b300`",
            )
        else:
            ratio_to = system
    points = []
    for f in found.get("point", ()):
        positional, opts = ctx.read.options(f, V.POINT_OPTIONS)
        if len(positional) == 2 and all(isinstance(a, st.Quantity) for a in positional):
            x = ctx.read.quantity_atom(positional[0], "point", (units.INTERACTIVITY,))
            y = ctx.read.quantity_atom(
                positional[1],
                "point",
                (units.TOKEN_RATE_PER_GPU, units.TOKEN_RATE_PER_NODE, units.TOKEN_RATE),
            )
            conc = ctx.read.number(opts["conc"][0], ranges.RATIO) if "conc" in opts else None
            if x and y:
                points.append(ir.ReportedPoint(x[0], y[0], conc, y[1].canonical))
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
    get = getter(one)
    if source is None:
        return None
    return ir.Reported(
        source=source,
        statistic=statistic,
        throughput=throughput,
        throughput_unit=unit,
        at_interactivity_tok_s_user=at,
        ratio=ratio,
        ratio_to=ratio_to,
        points=tuple(points),
        cache_hit_rate=get("cache_hit_rate", lambda f: ctx.read.fraction(f, allow_zero=True)),
        input_share=get("input_share", lambda f: ctx.read.fraction(f, allow_zero=True)),
        notes=get("notes", ctx.read.text),
    )


def _escapes(glob: str) -> bool:
    """True when a run glob is absolute or has a `..` segment anywhere.

    Any `..`, not only one that climbs out once normalized: `**/..` normalizes away, yet the walk
    lists the parent of every folder it meets, the same files under ever longer names.
    """
    if glob.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", glob):
        return True
    return ".." in glob.replace("\\", "/").split("/")
