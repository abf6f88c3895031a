"""What every section reads: the results, indexed once, and the registry of displayed figures."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs from Python 3.13

from cmpc.jsontypes import JsonObject
from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    number,
    usd,
)
from cmpc.report.words import (
    ROLES,
    plural,
)

SET = "--set"
# what the Data row says cmpc did with a measured system's files
PER_REQUEST = {
    "all": Md("; per-request metrics computed by cmpc"),
    "some": Md(
        "; per-request metrics computed by cmpc where a file holds requests, the tool's own "
        "aggregate figures elsewhere"
    ),
    "none": Md("; the tool's own aggregate figures (the files hold no per-request data)"),
}
COMMAND_LINE = "command line (--set)"


def get_in(mapping: object, *keys: object, default: Any = None) -> Any:
    """`mapping[k1][k2]...`, or `default` where any level is missing or None."""
    value = mapping
    for key in keys:
        if not isinstance(value, dict):
            return default
        value = value.get(key)
        if value is None:
            return default
    return value


def override_path(path: object) -> str:
    """An override's path as the report matches it: `comparison.` and plural block names dropped."""
    aliases = {"systems": "system", "sources": "source", "claims": "claim"}
    steps = [aliases.get(s, s) for s in str(path or "").split(".") if s]
    return ".".join(steps[1:] if steps and steps[0] == "comparison" else steps)


def is_number(x: object) -> TypeIs[float]:
    """A finite number (not a bool): what a figure needs before it is shown or computed with."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


@dataclass
class Registry:
    """Every figure the report displays, for figures.csv (first registration of an id wins)."""

    rows: list[JsonObject] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def add(
        self,
        fid: str,
        quantity: str,
        value: object,
        unit: str,
        shown: Md,
        *,
        system: str | None = "",
        source: str = "",
    ) -> Md:
        if fid not in self.seen and value is not None:
            self.seen.add(fid)
            self.rows.append(
                {
                    "id": fid,
                    "quantity": quantity,
                    "system": system,
                    "value": value,
                    "unit": unit,
                    "displayed": str(shown),
                    "source": source,
                }
            )
        return shown


# Objects keyed by their `name` (or `system`): results may lack one, and a lookup with a
# missing name (None) finds nothing instead of failing.
ByName: TypeAlias = dict[Any, JsonObject]


@dataclass(frozen=True)
class Context:
    """One results dict indexed for the sections; `fig` collects every figure they display."""

    results: JsonObject
    ir: JsonObject
    sources: ByName
    ir_systems: ByName
    order: list[str]
    systems: ByName
    conditions: JsonObject
    synthetic: bool
    baseline: str | None
    comparisons: ByName
    fig: Registry = field(default_factory=Registry)

    @classmethod
    def of(cls, results: dict) -> Context:
        """The context of one results dict (systems in the spec's order, then any others)."""
        ir = results.get("ir") or {}
        ir_systems = {s.get("name"): s for s in ir.get("systems") or []}
        systems = results.get("systems") or {}
        order = [n for n in ir_systems if n in systems]
        return cls(
            results=results,
            ir=ir,
            sources={s.get("name"): s for s in (results.get("sources") or ir.get("sources") or [])},
            ir_systems=ir_systems,
            order=order + sorted(n for n in systems if n not in order),
            systems=systems,
            conditions=results.get("conditions") or {},
            synthetic=bool(results.get("synthetic")),
            baseline=results.get("baseline"),
            comparisons={c.get("system"): c for c in results.get("comparisons") or []},
        )

    def n(
        self,
        fid: str,
        quantity: str,
        value: object,
        unit: str,
        fmt: Callable[[float], Md] = number,
        *,
        system: str | None = "",
        source: str = "cmpc",
    ) -> Md:
        """`fmt(value)`, registered for figures.csv; `n/a` when the value is missing."""
        if not is_number(value):
            return Md(DASH)
        return self.fig.add(fid, quantity, value, unit, fmt(value), system=system, source=source)

    def label(self, name: str | None) -> Md:
        if name is None:
            return Md("the baseline")
        s = self.systems.get(name) or {}
        return escape(s.get("label") or self.ir_systems.get(name, {}).get("label") or name)

    def source_title(self, name: str | None) -> Md:
        if name is None:
            return Md(DASH)
        src = self.sources.get(name)
        if src and src.get("title"):
            return escape(src["title"])
        return escape(name)

    def unit(self) -> str:
        return get_in(self.conditions, "normalize", "unit", default="tok/s/gpu")

    def per(self) -> str:
        return get_in(self.conditions, "normalize", "per", default="gpu")

    def origin(self, name: str | None) -> str:
        """measured | reported | synthetic."""
        s = self.systems.get(name) or {}
        src = self.sources.get(s.get("source")) or {}
        if self.synthetic or src.get("role") == "synthetic":
            return "synthetic"
        return "measured" if s.get("data") == "runs" else "reported"

    def data_source(self, name: str | None) -> str:
        s = self.systems.get(name) or {}
        origin = self.origin(name)
        if s.get("data") == "runs":
            return f"{origin}: runs read by cmpc"
        src = s.get("source")
        title = (self.sources.get(src) or {}).get("title") or src or "unknown source"
        return f"{origin}: {title}"

    def target(self) -> JsonObject:
        return get_in(self.conditions, "latency", "target", default={}) or {}

    def price_shown(self, name: str | None) -> Md:
        price = get_in(self.systems, name, "cost", "usd_per_gpu_hour")
        return self.fig.add(
            f"{name}.price",
            "price per GPU-hour",
            price,
            "USD/gpu/h",
            usd(price),
            system=name,
            source=self.price_source(name),
        )

    def billing(self, name: str | None) -> tuple[int, int] | None:
        """(GPUs billed, GPUs used) when a system pays for more GPUs than it runs on."""
        cost = get_in(self.systems, name, "cost", default={}) or {}
        billed, used = cost.get("gpus_billed"), cost.get("gpus_used")
        if is_number(billed) and is_number(used) and billed != used:
            return int(billed), int(used)
        return None

    def used_price_shown(self, name: str | None) -> Md:
        """The price the tokens cost per used GPU-hour, with its arithmetic when it differs."""
        billing = self.billing(name)
        if billing is None:
            return self.price_shown(name)
        per_used = get_in(self.systems, name, "cost", "usd_per_used_gpu_hour")
        shown = self.fig.add(
            f"{name}.price_per_used_gpu_hour",
            "price per used GPU-hour (billed / used GPUs)",
            per_used,
            "USD/gpu/h",
            usd(per_used),
            system=name,
            source="cmpc",
        )
        return Md("{} per used GPU-hour = {} \u00d7 {} billed / {} used GPUs").format(
            shown, self.price_shown(name), billing[0], billing[1]
        )

    def price_source(self, name: str | None) -> str:
        p = get_in(self.systems, name, "cost", "price", default={})
        return self.price_plain(p)

    def price_plain(self, price: JsonObject) -> str:
        """A price's source and date for figures.csv, crediting what `--set` gave."""
        given = price.get("set_on_command_line") or []
        src, as_of = price.get("source"), price.get("as_of")
        if "amount" in given and "source" not in given:
            title = COMMAND_LINE
        else:
            title = (self.sources.get(src) or {}).get("title") or src or "spec"
            if "source" in given:
                title += f" (given with {SET})"
        if as_of:
            title += f", as of {as_of}" + (f" (given with {SET})" if "as_of" in given else "")
        return title

    def price_source_md(self, price: JsonObject) -> Md:
        """A price's source for a table: `--set` when the amount was given on the command line."""
        given = price.get("set_on_command_line") or []
        if "amount" in given and "source" not in given:
            return Md("`--set` (command line)")
        shown = self.source_title(price.get("source"))
        return shown + Md(" (`--set`)") if "source" in given else shown

    def price_date_md(self, price: JsonObject) -> Md:
        given = price.get("set_on_command_line") or []
        shown = escape(price.get("as_of") or DASH)
        return shown + Md(" (`--set`)") if "as_of" in given and price.get("as_of") else shown

    def overrides_of(self, prefix: str) -> list[JsonObject]:
        """The `--set`/`--unset` overrides of the spec value at `prefix` or anything under it
        (`*` matches any one step: `system.*.price`)."""
        want = prefix.split(".")
        return [
            o
            for o in self.results.get("overrides") or []
            if len(steps := override_path(o.get("path")).split(".")) >= len(want)
            and all(w in ("*", s) for w, s in zip(want, steps, strict=False))
        ]

    def set_mark(self, *prefixes: str) -> Md:
        """`[^set]` beside a value the command line changed (the footnote says what it was)."""
        return Md("[^set]") if any(self.overrides_of(p) for p in prefixes) else Md("")

    def price_mark(self, name: str | None, price: JsonObject | None = None) -> Md:
        """`[^set]` beside a price (the system's priced one by default) `--set` changed."""
        if price is None:
            price = get_in(self.systems, name, "cost", "price", default={})
        return Md("[^set]") if (price or {}).get("set_on_command_line") else Md("")

    def set_note(self, prefix: str) -> Md:
        """` (set on the command line: was 70% in the spec)`, or nothing for a spec value."""
        text = self.set_text(prefix)
        return Md(" ({})").format(text) if text else Md("")

    def set_text(self, prefix: str) -> Md:
        """`set on the command line: was 70% in the spec`, or nothing for a spec value."""
        found = self.overrides_of(prefix)
        if not found:
            return Md("")
        was = list(dict.fromkeys(o.get("was") for o in found if o.get("was") is not None))
        if not was:
            return Md("set on the command line; not in the spec")
        shown = Md(", ").join(code(w, in_table=False) for w in was)
        return Md("set on the command line: was {} in the spec").format(shown)

    def given_by(self, path: str) -> str:
        """`--set` when the spec value at `path` (`cost.utilization`) was given on the command
        line, else `spec`."""
        for o in self.results.get("overrides") or []:
            steps = [s for s in str(o.get("path") or "").split(".") if s]
            if steps and steps[0] == "comparison":
                steps = steps[1:]
            if ".".join(steps) == path and o.get("value") is not None:
                return SET
        return "spec"

    def plain_source(self, src: str | None, as_of: str | None = None) -> str:
        """A source as plain text for figures.csv: its title (or name) and date."""
        title = (self.sources.get(src) or {}).get("title") or src or "spec"
        return f"{title}, as of {as_of}" if as_of else title

    def parallel_note(self, irs: JsonObject) -> Md:
        """` (tp 8)`: the layout behind a GPU count, when the spec declares one."""
        par = irs.get("parallel") or {}
        if not par.get("declared"):
            return Md("")
        pair = Md("{} {}")
        parts = [pair.format(k, par[k]) for k in ("tp", "pp", "pcp", "dp") if (par.get(k) or 1) > 1]
        extra = [pair.format(k, par[k]) for k in ("ep", "dcp") if (par.get(k) or 1) > 1]
        if par.get("pools"):
            parts = [Md("{} pools").format(len(par["pools"]))]
        layout = Md(" \u00d7 ").join(parts) if parts else Md("tp 1")  # one GPU per replica
        if extra:
            verb = "adds" if len(extra) == 1 else "add"
            return Md(" ({}; {} {} no GPUs)").format(layout, Md(", ").join(extra), verb)
        return Md(" ({})").format(layout)

    def origin_text(self, name: str) -> Md:
        s = self.systems.get(name) or {}
        origin = self.origin(name)
        if s.get("data") == "runs":
            runs = self.ir_systems.get(name, {}).get("runs") or {}
            files = [i for i in self.results.get("inputs") or [] if i.get("system") == name]
            n_runs = sum(i.get("runs") or 0 for i in files)
            text = escape(origin)
            if runs.get("source"):
                text += Md(" by ") + Md(", ").join(self.source_bits(runs["source"]))
            text += Md(": {} from {} matching {}").format(
                plural(n_runs, "run"), plural(len(files), "file"), code(runs.get("glob", "?"))
            )
            if runs.get("format"):
                text += Md(", format {}").format(runs["format"])
            return text + PER_REQUEST.get(str(s.get("per_request") or "all"), PER_REQUEST["all"])
        bits = Md(", ").join(self.source_bits(s.get("source")))
        return Md("{} by {}; not recomputed by cmpc").format(origin, bits)

    def source_bits(self, name: str | None) -> list[Md]:
        src = self.sources.get(name) or {}
        bits = [self.source_title(name)]
        if src.get("role") and src["role"] != "synthetic":  # the origin already says synthetic
            bits.append(escape(ROLES.get(src["role"], src["role"])))
        for key in ("snapshot", "run_date", "retrieved"):
            if src.get(key):
                bits.append(Md("{} {}").format(key.replace("_", " "), src[key]))
        if src.get("status"):
            bits.append(escape(src["status"].replace("_", "-")))
        return bits

    def source_date(self, name: str | None) -> Md:
        src = self.sources.get(name) or {}
        for key in ("snapshot", "run_date", "retrieved"):
            if src.get(key):
                return escape(src[key])
        return Md(DASH)
