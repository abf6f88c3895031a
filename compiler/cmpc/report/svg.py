"""A small SVG chart writer: axes and series specs to SVG text, the same bytes everywhere."""

# No `from __future__ import annotations`: NamedTuple turns each string annotation into a
# typing.ForwardRef, compiling its text (the seven specs' class creation, 1.5 -> 0.9 ms).
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from cmpc.safe_text import visible

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
PAD = 8.0
SIZE = 12.0  # tick labels, axis labels
SMALL = 9.5  # legend, category labels
NOTE = 10.5  # value notes over bars, flags
TITLE = 12.0
HEADING = 14.0  # the figure's own title
CONDITIONS = 9.5
CONDITION_ROW = 12.5
POINT_NOTE = 8.5
LEGEND_ROW = 16.0
MAX_TICKS = 8
LARGEST = 1e300  # beyond, a range with its margin overflows a double: such values are not drawn
MAX_LINES = 3  # of a category label
SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"))
# DejaVu Sans advance widths in em; a character not listed counts as AVERAGE.
AVERAGE = 0.62
WIDTHS = {
    **dict.fromkeys(" .,:;'!|ijlI", 0.3),
    **dict.fromkeys('()[]{}/\\-ftr`"', 0.38),
    **dict.fromkeys("0123456789$#*+<=>?^_~abcdeghknopqsuvxyzJL", 0.62),
    **dict.fromkeys("ABCEFKPRSTVXYZ", 0.69),
    **dict.fromkeys("DGHNOQU&%", 0.78),
    **dict.fromkeys("mwMW@", 0.92),
}


# The specs are NamedTuples: immutable like frozen dataclasses, and ten times cheaper to define
# (seven frozen dataclasses took ~7 ms of every build's import).


class Points(NamedTuple):
    """Markers at data coordinates: circle, square, diamond, triangle or x."""

    xs: tuple
    ys: tuple
    color: str
    label: str = ""
    shape: str = "circle"
    size: float = 3.0
    opacity: float = 1.0
    edge: str = ""
    notes: tuple = ()  # a short label beside each point ("c64"); "" for none
    tips: tuple = ()  # each point's hover text (an SVG <title>, and data-tip for the page)
    series: int = -1  # the system it belongs to: legend and page toggle it as one


class Line(NamedTuple):
    """A polyline through data coordinates."""

    xs: tuple
    ys: tuple
    color: str
    label: str = ""
    width: float = 2.0
    dashed: bool = False
    series: int = -1


class VLine(NamedTuple):
    """A vertical line across the plot at data x."""

    x: float
    color: str
    label: str = ""
    width: float = 1.3
    dashed: bool = True


class Flag(NamedTuple):
    """An x marker at the foot of the plot at data x, its note beside it, stacked by row."""

    x: float
    text: str
    color: str
    row: int = 0


class Bars(NamedTuple):
    """Bars from 0 at data xs, each with a note above it."""

    xs: tuple
    heights: tuple
    color: str
    width: float
    label: str = ""
    notes: tuple = ()
    note_size: float = NOTE
    tips: tuple = ()
    series: int = -1


class Axes(NamedTuple):
    """One plot: its marks, labels, y from 0 (or below, for negative data)."""

    marks: tuple
    xlabel: str = ""
    ylabel: str = ""
    title: str = ""
    categories: tuple = ()  # x tick labels at 0, 1, ... instead of numeric x ticks ("\n" wraps)
    ytop: float | None = None
    xgrid: bool = True


class Chart(NamedTuple):
    """Panels side by side with one legend below them, never over them; above them the title,
    the conditions the figure holds under, and a SYNTHETIC mark when the data are synthetic."""

    panels: tuple
    title: str
    columns: int = 3
    width: float = 720.0
    height: float = 400.0
    conditions: tuple = ()  # phrases, wrapped into lines under the title
    synthetic: bool = False


def plottable(x: object) -> "TypeIs[float]":
    """A number an axis can hold: finite, and small enough that a padded range stays finite."""
    if type(x) is float:  # the common case, 2000 calls a figure: NaN and infinities compare False
        return -LARGEST <= x <= LARGEST
    return (
        isinstance(x, int | float)
        and not isinstance(x, bool)
        and math.isfinite(x)
        and abs(x) <= LARGEST
    )


def text_width(text: str, size: float) -> float:
    """Estimated rendered width in px (wide scripts count a full em)."""
    return size * sum(WIDTHS.get(c, 1.0 if ord(c) >= 0x2E80 else AVERAGE) for c in text)


def fit(text: str, size: float, room: float) -> str:
    """The text, cut with an ellipsis to fit `room` px."""
    text = visible(text)
    if text_width(text, size) <= room:
        return text
    room -= text_width("…", size)
    for end, c in enumerate(text):
        room -= text_width(c, size)
        if room < 0:
            return text[:end] + "…" if end else ""
    return text


def esc(text: str) -> str:
    """Text for an SVG element: hidden characters written out (XML cannot hold controls, and
    bidi controls would reorder the figure's labels), then XML-escaped."""
    text = visible(text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr(text: str) -> str:
    """Text for an SVG attribute value in double quotes."""
    return esc(text).replace('"', "&quot;")


def tip_attr(tip: str) -> str:
    """Hover text as an attribute: lines kept (`&#10;`), each one escaped."""
    return "&#10;".join(attr(line) for line in tip.split("\n"))


def tip_title(tip: str) -> str:
    """Hover text as a <title> child, for any SVG viewer: lines kept, each one escaped."""
    return "\n".join(esc(line) for line in tip.split("\n"))


def num(v: float) -> str:
    """A coordinate: two decimals, no trailing zeros, never `-0`."""
    # `.2f` rounds the double as round(v, 2) does (both correctly rounded, ties to even), so
    # round's second conversion is not needed; the `-0` a tiny negative leaves is mapped below
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def ticks(lo: float, hi: float, most: int = MAX_TICKS) -> tuple[list[float], float]:
    """Ticks within [lo, hi] at 1, 2, 2.5 or 5 × 10^k steps, at most `most`; and the step."""
    span = hi - lo
    e = math.floor(math.log10(span / (most - 1)))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        step = m * 10.0**e
        first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
        if last - first + 1 <= most:
            return [k * step for k in range(first, last + 1)], step
    return [lo, hi], span  # not reached: a 10^(e+1) step always fits


def tick_labels(values: list[float], step: float) -> list[str]:
    """Tidy labels: the decimals the step needs, thousands separated, SI suffix past 10^±6."""
    top = max((abs(v) for v in values), default=0.0)
    scale, suffix = 1.0, ""
    if top >= 1e6:
        scale, suffix = next((p, n) for p, n in SI if p <= top or n == "M")
    elif 0 < top < 1e-3:
        scale, suffix = next((p, n) for p, n in reversed(SI) if p >= top * 1e-3 or n == "µ")
    step /= scale
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    if round(step * 10**decimals, 6) % 1:  # a 2.5 × 10^k step needs one more
        decimals += 1
    return [f"{v / scale + 0.0:,.{min(decimals, 12)}f}{suffix}" for v in values]


def _pairs(xs: Sequence[float | None], ys: Sequence[float | None]) -> list[tuple[float, float]]:
    return [(x, y) for x, y in zip(xs, ys, strict=False) if plottable(x) and plottable(y)]


def _extent(values: list[float]) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    if _singular(lo, hi):  # one value: give it room, as a span
        pad = max(abs(hi) * 0.1, 1e-90) if abs(hi) > 1e-90 else 1.0
        return lo - pad, hi + pad
    return lo, hi


def _singular(lo: float, hi: float) -> bool:
    """Too narrow a range to tick in floating point."""
    return hi - lo <= 1e-9 * max(abs(lo), abs(hi)) or hi - lo < 1e-90


class _Panel:
    """An Axes measured: its data ranges, ticks and the margins its labels need."""

    def __init__(self, axes: Axes):
        self.axes = axes
        xs, ys = [], [0.0]
        for m in axes.marks:
            if isinstance(m, Points | Line):
                for x, y in _pairs(m.xs, m.ys):
                    xs.append(x)
                    ys.append(y)
            elif isinstance(m, VLine | Flag) and plottable(m.x):
                xs.append(m.x)
            elif isinstance(m, Bars):
                ys.extend(h for h in m.heights if plottable(h))
        if axes.categories:
            self.x0, self.x1 = -0.5, len(axes.categories) - 0.5
        else:
            lo, hi = _extent(xs or [0.0])
            self.x0, self.x1 = lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)
        lo, hi = _extent(ys)
        top = axes.ytop if plottable(axes.ytop) and axes.ytop > lo else None
        self.y1 = top if top is not None else hi + 0.05 * (hi - lo) * (1 if hi > 0 else 0)
        self.y0 = lo - 0.05 * (hi - lo) if lo < 0 else lo
        if _singular(self.y0, self.y1):
            self.y0, self.y1 = _extent([self.y0])
        self.yticks, ystep = ticks(self.y0, self.y1)
        self.ylabels = tick_labels(self.yticks, ystep)
        if axes.categories:
            self.xticks = [float(i) for i in range(len(axes.categories))]
            self.xlabels = [c.split("\n") for c in axes.categories]
        else:
            self.xticks, xstep = ticks(self.x0, self.x1)
            self.xlabels = [[s] for s in tick_labels(self.xticks, xstep)]
        self.xsize = SMALL if axes.categories else SIZE
        lines = min(MAX_LINES, max((len(ls) for ls in self.xlabels), default=1))
        self.bottom = 6 + lines * self.xsize * 1.2 + (SIZE * 1.6 if axes.xlabel else 0)
        self.top = TITLE * 2 if axes.title else PAD * 1.5

    def left(self, slot: float) -> float:
        widest = max((text_width(s, SIZE) for s in self.ylabels), default=0.0)
        return min(widest + 8 + (SIZE * 1.6 if self.axes.ylabel else 0) + PAD, 0.45 * slot)


def _path(*points: tuple[float, float]) -> str:
    return "M" + "L".join(f"{num(x)} {num(y)}" for x, y in points)


class _Canvas:
    def __init__(self) -> None:
        self.out: list[str] = []

    def add(self, element: str) -> None:
        self.out.append(element)

    def text(
        self,
        x: float,
        y: float,
        s: str,
        size: float,
        anchor: str = "start",
        color: str = "#000",
        rotate: bool = False,
    ) -> None:
        turn = f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
        self.add(
            f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}" text-anchor="{anchor}"'
            f' fill="{color}"{turn}>{esc(s)}</text>'
        )

    def marker(
        self,
        x: float,
        y: float,
        shape: str,
        size: float,
        color: str,
        opacity: float = 1.0,
        edge: str = "",
        tip: str = "",
    ) -> None:
        paint = f'fill="{color}"' + (f' fill-opacity="{num(opacity)}"' if opacity < 1 else "")
        paint += f' stroke="{edge}" stroke-width="1"' if edge else ""
        r = size
        corners = {
            "square": ((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)),
            "diamond": ((x, y - r), (x + r, y), (x, y + r), (x - r, y)),
            "triangle": ((x, y - r), (x + r, y + r), (x - r, y + r)),  # pointing up: a bound
        }
        if shape in corners:
            element, shape_attrs = "path", f'd="{_path(*corners[shape])}Z" {paint}'
        elif shape == "x":
            d = _path((x - r, y - r), (x + r, y + r)) + _path((x - r, y + r), (x + r, y - r))
            element, shape_attrs = (
                "path",
                f'd="{d}" fill="none" stroke="{color}" stroke-width="1.6"',
            )
        else:
            element, shape_attrs = "circle", f'cx="{num(x)}" cy="{num(y)}" r="{num(r)}" {paint}'
        if tip:  # a <title> child is the tooltip of any SVG viewer; data-tip the page's
            self.add(
                f'<{element} class="cmpc-point" {shape_attrs} data-tip="{tip_attr(tip)}">'
                f"<title>{tip_title(tip)}</title></{element}>"
            )
        else:
            self.add(f"<{element} {shape_attrs}/>")

    def line(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        color: str,
        width: float,
        dashed: bool = False,
        opacity: float = 1.0,
    ) -> None:
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        alpha = f' stroke-opacity="{num(opacity)}"' if opacity < 1 else ""
        self.add(
            f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"'
            f' stroke="{color}" stroke-width="{num(width)}"{dash}{alpha}/>'
        )


def _legend_entries(chart: Chart) -> list:
    """Labelled marks, each label once (two panels may draw the same series)."""
    seen: set[str] = set()
    entries = []
    for m in (m for p in chart.panels for m in p.marks):
        if not isinstance(m, Flag) and m.label and m.label not in seen:
            seen.add(m.label)
            entries.append(m)
    return entries


def condition_lines(phrases: Sequence[str], room: float) -> list[str]:
    """Phrases joined by " · " into as few lines as fit `room` px (a phrase never splits)."""
    lines: list[str] = []
    for phrase in phrases:
        if lines and text_width(lines[-1] + " · " + phrase, CONDITIONS) <= room:
            lines[-1] += " · " + phrase
        else:
            lines.append(phrase)
    return [fit(line, CONDITIONS, room) for line in lines]


def _swatch(c: _Canvas, m: Points | Line | Bars, x: float, y: float) -> None:
    if isinstance(m, Points):
        c.marker(x + 9, y, m.shape, min(m.size, 5.0), m.color, m.opacity, m.edge)
    elif isinstance(m, Bars):
        c.add(f'<rect x="{num(x + 2)}" y="{num(y - 5)}" width="14" height="10" fill="{m.color}"/>')
    else:
        c.line(x, y, x + 18, y, m.color, m.width, m.dashed)


def render(chart: Chart) -> str:
    """The chart as a standalone SVG document."""
    width = chart.width
    entries = _legend_entries(chart)
    ncol = max(1, min(chart.columns, len(entries)))
    rows = math.ceil(len(entries) / ncol)
    lines = condition_lines(chart.conditions, width - 2 * PAD)
    header = PAD + HEADING + len(lines) * CONDITION_ROW + PAD
    height = header + chart.height + (rows * LEGEND_ROW + 2 * PAD if entries else 0)
    panels = [_Panel(a) for a in chart.panels]
    slot = (width - PAD) / max(len(panels), 1)
    top = max((p.top for p in panels), default=PAD)
    bottom = chart.height - max((p.bottom for p in panels), default=PAD)
    c = _Canvas()
    c.add(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" height="{num(height)}"'
        f' viewBox="0 0 {num(width)} {num(height)}" font-family="{FONT}">'
    )
    c.add(f"<title>{esc(chart.title)}</title>")
    c.add(f'<rect width="{num(width)}" height="{num(height)}" fill="#fff"/>')
    mark = "SYNTHETIC DATA" if chart.synthetic else ""
    room = width - 2 * PAD - (text_width(mark, HEADING) + 2 * PAD if mark else 0)
    c.add(
        f'<text class="cmpc-title" x="{num(PAD)}" y="{num(PAD + HEADING * 0.85)}"'
        f' font-size="{num(HEADING)}" font-weight="bold" text-anchor="start" fill="#000">'
        f"{esc(fit(chart.title, HEADING, room))}</text>"
    )
    if mark:
        c.add(
            f'<text class="cmpc-synthetic" x="{num(width - PAD)}" y="{num(PAD + HEADING * 0.85)}"'
            f' font-size="{num(HEADING)}" font-weight="bold" text-anchor="end"'
            f' fill="#c00">{mark}</text>'
        )
    for k, line in enumerate(lines):
        y = PAD + HEADING + CONDITION_ROW * (k + 0.8)
        c.add(
            f'<text class="cmpc-conditions" x="{num(PAD)}" y="{num(y)}"'
            f' font-size="{num(CONDITIONS)}" text-anchor="start" fill="#333">{esc(line)}</text>'
        )
    c.add(f'<g transform="translate(0 {num(header)})">')
    for i, p in enumerate(panels):
        _draw_panel(c, p, i * slot, slot, top, bottom)
    if entries:
        _draw_legend(c, entries, ncol, rows, width, chart.height + PAD)
    c.add("</g>")
    c.add("</svg>")
    return "\n".join(c.out) + "\n"


def _draw_panel(c: _Canvas, p: _Panel, x0: float, slot: float, top: float, bottom: float) -> None:
    a = p.axes
    left, right = x0 + p.left(slot), x0 + slot - PAD
    label_room = left - x0 - PAD - 8 - (SIZE * 1.6 if a.ylabel else 0) + 0.5
    pw, ph = right - left, bottom - top

    def px(x: float) -> float:
        return left + (x - p.x0) / (p.x1 - p.x0) * pw

    def py(y: float) -> float:
        return bottom - (y - p.y0) / (p.y1 - p.y0) * ph

    for t in p.yticks:
        c.line(left, py(t), right, py(t), "#b0b0b0", 0.6, opacity=0.5)
    if a.xgrid and not a.categories:
        for t in p.xticks:
            c.line(px(t), top, px(t), bottom, "#b0b0b0", 0.6, opacity=0.5)
    for m in a.marks:
        series = getattr(m, "series", -1)
        if series >= 0:
            c.add(f'<g class="cmpc-series" data-series="{series}">')
        _draw_mark(c, m, p, px, py, left, right, top, bottom)
        if series >= 0:
            c.add("</g>")
    c.line(left, bottom, right, bottom, "#000", 1.0)
    c.line(left, top, left, bottom, "#000", 1.0)
    for t, s in zip(p.yticks, p.ylabels, strict=True):
        c.line(left - 4, py(t), left, py(t), "#000", 1.0)
        c.text(left - 6, py(t) + SIZE * 0.35, fit(s, SIZE, label_room), SIZE, "end")
    room = pw / max(len(p.xticks), 1) - 2 if a.categories else pw
    for t, lines in zip(p.xticks, p.xlabels, strict=True):
        c.line(px(t), bottom, px(t), bottom + 4, "#000", 1.0)
        shown = lines[:MAX_LINES]
        if len(lines) > MAX_LINES:
            shown[-1] += "…"
        for k, s in enumerate(shown):
            y = bottom + 6 + p.xsize * (1 + 1.2 * k)
            c.text(px(t), y, fit(s, p.xsize, room), p.xsize, "middle")
    if a.xlabel:
        c.text((left + right) / 2, bottom + p.bottom - 4, fit(a.xlabel, SIZE, pw), SIZE, "middle")
    if a.ylabel:
        c.text(
            x0 + PAD + SIZE,
            (top + bottom) / 2,
            fit(a.ylabel, SIZE, ph),
            SIZE,
            "middle",
            rotate=True,
        )
    if a.title:
        c.text((left + right) / 2, top - TITLE * 0.7, fit(a.title, TITLE, pw), TITLE, "middle")


def _draw_mark(
    c: _Canvas,
    m: Any,
    p: _Panel,
    px: Any,
    py: Any,
    left: float,
    right: float,
    top: float,
    bottom: float,
) -> None:
    pw, ph = right - left, bottom - top
    if isinstance(m, Bars):
        for j, (x, h) in enumerate(zip(m.xs, m.heights, strict=False)):
            if not plottable(x):
                continue
            h = h if plottable(h) else 0.0
            y_top, y_foot = py(max(h, 0.0)), py(min(h, 0.0))
            tip = m.tips[j] if j < len(m.tips) else ""
            rect = (
                f'<rect x="{num(px(x - m.width / 2))}" y="{num(y_top)}"'
                f' width="{num(pw * m.width / (p.x1 - p.x0))}"'
                f' height="{num(y_foot - y_top)}" fill="{m.color}"'
            )
            if tip:
                title = f"<title>{tip_title(tip)}</title>"
                c.add(f'{rect} class="cmpc-point" data-tip="{tip_attr(tip)}">{title}</rect>')
            else:
                c.add(rect + "/>")
            if j < len(m.notes):
                c.text(px(x), max(y_top - 4, m.note_size), m.notes[j], m.note_size, "middle")
    elif isinstance(m, Line):
        pts = _pairs(m.xs, m.ys)
        if len(pts) >= 2:
            d = " ".join(f"{num(px(x))},{num(py(y))}" for x, y in pts)
            dash = ' stroke-dasharray="5 3"' if m.dashed else ""
            c.add(
                f'<polyline points="{d}" fill="none" stroke="{m.color}"'
                f' stroke-width="{num(m.width)}" stroke-linejoin="round"{dash}/>'
            )
    elif isinstance(m, Points):
        for j, (x, y) in enumerate(zip(m.xs, m.ys, strict=False)):
            if not (plottable(x) and plottable(y)):
                continue
            tip = m.tips[j] if j < len(m.tips) else ""
            c.marker(px(x), py(y), m.shape, m.size, m.color, m.opacity, m.edge, tip)
            note = m.notes[j] if j < len(m.notes) else ""
            if note:
                c.text(px(x) + m.size + 1.5, py(y) - m.size - 1, note, POINT_NOTE, color="#333")
    elif isinstance(m, VLine) and plottable(m.x):
        c.line(px(m.x), top, px(m.x), bottom, m.color, m.width, m.dashed)
    elif isinstance(m, Flag) and plottable(m.x):
        x = px(m.x)
        c.marker(x, bottom - 0.02 * ph, "x", 4.0, m.color)
        # a note past the middle reads leftwards, so it stays inside the plot
        leftwards = x > left + pw / 2
        room = (x - left if leftwards else right - x) - 6
        y = bottom - 8 - 16 * m.row
        note, anchor = fit(m.text, NOTE, room), "end" if leftwards else "start"
        c.text(x - 6 if leftwards else x + 6, y, note, NOTE, anchor, m.color)


def _draw_legend(
    c: _Canvas, entries: list[Any], ncol: int, rows: int, width: float, y0: float
) -> None:
    # column-major, as matplotlib fills a legend: one system's entries stay together
    columns = [entries[k * rows : (k + 1) * rows] for k in range(ncol)]
    natural = [max(26 + text_width(m.label, SMALL) + 12 for m in col) for col in columns if col]
    widths = _share(natural, width - 2 * PAD)
    x = (width - sum(widths)) / 2
    for col, w in zip(columns, widths, strict=False):
        for r, m in enumerate(col):
            y = y0 + LEGEND_ROW * (r + 0.5)
            series = getattr(m, "series", -1)
            if series >= 0:
                c.add(f'<g class="cmpc-legend" data-series="{series}">')
            _swatch(c, m, x, y)
            c.text(x + 24, y + SMALL * 0.35, fit(m.label, SMALL, w - 36), SMALL)
            if series >= 0:
                c.add("</g>")
        x += w


def _share(wanted: list[float], room: float) -> list[float]:
    """Column widths within `room`: narrow columns keep theirs, wide ones split what is left."""
    cap, left = math.inf, room
    for k, w in enumerate(sorted(wanted)):
        if w * (len(wanted) - k) > left:
            cap = left / (len(wanted) - k)
            break
        left -= w
    return [min(w, cap) for w in wanted]
