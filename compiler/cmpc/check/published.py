"""`interval` in `reported`: an interval a source published for one of its figures."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from cmpc.check.context import Context, ref
from cmpc.check.decode import Block, decode_options
from cmpc.check.values import Field
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.source import Span
from cmpc.syntax import tree as st

LOWEST_CONFIDENCE = 0.5
HIGHEST_CONFIDENCE = 0.999
PERCENT = Fraction(1, 100)
EXAMPLE = "throughput 95% 2480 to 2720 tok/s/gpu source inferencex as_of 2026-10-09"


def read_intervals(
    ctx: Context,
    fields: Sequence[Field],
    throughput: tuple[float, units.Dimension] | None,
    ratio: float | None,
    ratio_to_self: bool,
) -> tuple[ir.PublishedInterval, ...]:
    """Each declared interval, checked against the figure it was published for."""
    found: dict[str, ir.PublishedInterval] = {}
    for f in fields:
        got = _read_one(ctx, f, throughput, ratio, ratio_to_self)
        if got is None:
            continue
        if got.figure in found:
            ctx.fail(
                "E103",
                f"a second published interval for `{got.figure}`",
                f.span,
                label="repeated",
                help="a source publishes one interval per figure: keep one",
            )
            continue
        found[got.figure] = got
    return tuple(found.values())


def _read_one(
    ctx: Context,
    f: Field,
    throughput: tuple[float, units.Dimension] | None,
    ratio: float | None,
    ratio_to_self: bool,
) -> ir.PublishedInterval | None:
    positional, options = decode_options(ctx, f, V.INTERVAL)
    if len(positional) < 4 or not isinstance(positional[0], st.Name):
        ctx.read.expect(f, "a figure, a confidence and bounds", EXAMPLE)
        return None
    figure = ctx.read.choose(positional[0], "interval", V.INTERVAL_FIGURES)
    confidence = _confidence(ctx, f, positional[1])
    source = _source(ctx, f, options)
    as_of = options["as_of"] or _snapshot(ctx, source)
    if source is not None and as_of is None:
        ctx.fail(
            "E106",
            "a published interval needs `as_of DATE`",
            f.span,
            label="no date, and its source has no `snapshot`",
            help="add `as_of 2026-10-09`: the day the source published the interval",
        )
    if figure is None or confidence is None:
        return None
    point, dimension = _figure(ctx, f, figure, throughput, ratio, ratio_to_self)
    if point is None:
        return None
    bounds = _bounds(ctx, f, positional[2:], figure, point, dimension)
    if bounds is None or source is None or as_of is None:
        return None
    low, high = bounds
    if not low <= point <= high:
        ctx.fail(
            "E140",
            f"the published {figure} interval {low:g} to {high:g} does not hold the reported "
            f"{figure} {point:g}",
            f.span,
            label=f"excludes {point:g}",
            help="check the figure and the interval against the source: one was copied wrong",
        )
        return None
    return ir.PublishedInterval(figure, confidence, low, high, source, as_of)


def _confidence(ctx: Context, f: Field, atom: st.Atom) -> float | None:
    if not (isinstance(atom, st.Quantity) and atom.unit == "%"):
        ctx.read.expect(f, "a confidence level such as `95%` after the figure", EXAMPLE)
        return None
    value = units.convert(atom.number.text, PERCENT)
    if not LOWEST_CONFIDENCE <= value <= HIGHEST_CONFIDENCE:
        ctx.fail(
            "E143",
            f"a published interval's confidence is {atom.number.text}%, outside 50% to 99.9%",
            atom.span,
            label="must be within [50%, 99.9%]",
            help="write the level the source states, e.g. `95%`",
        )
        return None
    return value


def _source(ctx: Context, f: Field, options: Block) -> str | None:
    given = options.field("source")
    if given is None:
        ctx.fail(
            "E106",
            "a published interval needs `source NAME`",
            f.span,
            label="who published it?",
            help="add `source NAME`, naming a declared `source` block",
        )
        return None
    if len(given.atoms) != 1:
        ctx.read.expect(given, "the name of a source", "inferencex")
        return None
    return ref(ctx, given.atoms[0], "source", ctx.source_names, "source")


def _snapshot(ctx: Context, source: str | None) -> str | None:
    found = ctx.sources.get(source) if source is not None else None
    return found.snapshot if found is not None else None


def _figure(
    ctx: Context,
    f: Field,
    figure: str,
    throughput: tuple[float, units.Dimension] | None,
    ratio: float | None,
    ratio_to_self: bool,
) -> tuple[float | None, units.Dimension | None]:
    """The reported value the interval belongs to (and its dimension), or None (E142)."""
    if figure == "throughput" and throughput is not None:
        return throughput
    if figure == "ratio" and ratio is not None and not ratio_to_self:
        return ratio, None
    why = (
        "`ratio 1` is the reference itself: exact by definition"
        if figure == "ratio" and ratio_to_self
        else f"this `reported` block has no `{figure}`"
    )
    ctx.fail(
        "E142",
        f"a published interval for `{figure}`, a figure this system does not report",
        f.span,
        label=why,
        help="declare the interval next to the figure it was published for",
    )
    return None, None


def _bounds(
    ctx: Context,
    f: Field,
    atoms: Sequence[st.Atom],
    figure: str,
    point: float,
    dimension: units.Dimension | None,
) -> tuple[float, float] | None:
    """(low, high) in the figure's unit, from `LOW to HIGH [UNIT]` or `plus_minus WIDTH`."""
    first = atoms[0]
    if isinstance(first, st.Name) and first.value == "plus_minus" and len(atoms) == 2:
        return _plus_minus(ctx, f, atoms[1], point, dimension)
    word = atoms[1] if len(atoms) == 3 else None
    if not (isinstance(word, st.Name) and word.value == "to"):
        ctx.read.expect(f, "`LOW to HIGH` or `plus_minus WIDTH` after the confidence", EXAMPLE)
        return None
    high = _value(ctx, f, atoms[2], dimension, figure, None)
    if high is None:
        return None
    # `2480 to 2720 tok/s/gpu`: a bare low end takes the high end's unit
    low = _value(ctx, f, atoms[0], dimension, figure, high[1])
    if low is None:
        return None
    if not low[0] < high[0]:
        ctx.fail(
            "E107",
            f"a published interval runs from {low[0]:g} to {high[0]:g}: its low end must be "
            "below its high end",
            f.span,
            label="ends out of order",
        )
        return None
    return low[0], high[0]


def _value(
    ctx: Context,
    f: Field,
    atom: st.Atom,
    dimension: units.Dimension | None,
    figure: str,
    factor: Fraction | None,
) -> tuple[float, Fraction] | None:
    """(value in the figure's unit, the unit's factor) of one interval end."""
    if isinstance(atom, st.Number):
        if dimension is not None and factor is None:
            _mismatch(ctx, atom.span, figure, dimension, "a bare number")
            return None
        scale = factor if factor is not None else Fraction(1)
        value = units.convert(atom.text, scale)
        kind = ranges.RATIO if dimension is None else ranges.of(dimension)
        if not ctx.read.in_range(value, kind, "interval", f"`{atom.text}`", atom.span):
            return None
        return value, scale
    if isinstance(atom, st.Quantity):
        found = units.lookup(atom.unit)
        if found is None or dimension is None or found[0] != dimension:
            what = found[0].words.split(" (")[0] if found else f"unknown unit `{atom.unit}`"
            _mismatch(ctx, atom.span, figure, dimension, f"{what} `{atom.unit}`")
            return None
        got = ctx.read.quantity_atom(atom, "interval", (dimension,))
        return (got[0], found[1]) if got else None
    ctx.read.expect(f, "numbers for the interval's ends", EXAMPLE)
    return None


def _plus_minus(
    ctx: Context, f: Field, atom: st.Atom, point: float, dimension: units.Dimension | None
) -> tuple[float, float] | None:
    """`plus_minus 3.1%` (relative) or `plus_minus 120 tok/s/gpu` / `plus_minus 0.05` (absolute)."""
    if isinstance(atom, st.Quantity) and atom.unit == "%":
        width = point * units.convert(atom.number.text, PERCENT)
    else:
        got = _value(
            ctx, f, atom, dimension, "interval", Fraction(1) if dimension is None else None
        )
        if got is None:
            return None
        width = got[0]
    if not 0 < width < point:
        ctx.fail(
            "E107",
            "a published interval's half-width must be positive and below the figure itself",
            atom.span,
            label="the low end would not be positive",
        )
        return None
    return point - width, point + width


def _mismatch(
    ctx: Context,
    span: Span,
    figure: str,
    dimension: units.Dimension | None,
    found: str,
) -> None:
    wanted = "a plain number (a ratio)" if dimension is None else dimension.words.split(" (")[0]
    ctx.fail(
        "E141",
        f"the published interval's unit does not match the reported {figure}: it expects "
        f"{wanted}, found {found}",
        span,
        label="not the figure's unit",
        help="a ratio's interval is plain numbers (`1.18 to 1.31`)"
        if dimension is None
        else "give the interval in the figure's own unit (any time base), e.g. `tok/s/gpu`",
    )
