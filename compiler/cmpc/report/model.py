"""Results model -> the report's view model: phrases, tables, footnotes and displayed figures.

Everything here reads `results` defensively (`.get` with defaults), because specs gain fields
faster than the report does. Derived presentation values (relative costs per price scenario,
equal-price consequences) are computed here, not in analysis.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from cmpc.report.text import (
    DASH,
    Md,
    code,
    escape,
    escape_prose,
    footnote_key,
    gigabytes,
    link,
    number,
    percent,
    ratio,
    usd,
)

METRICS = {
    "tpot": "TPOT, the time per output token of each request: (end-to-end latency \u2212 TTFT) / "
    "(output tokens \u2212 1)",
    "chunk_gap": "chunk gap: every gap between consecutive streamed chunks, pooled over all "
    "requests (what vLLM calls ITL)",
    "ttft": "TTFT, the time from sending a request to receiving its first token, at the client",
    "e2el": "end-to-end latency of each request, from sending it to receiving its last token",
    "e2e_per_token": "end-to-end latency per output token of each request: end-to-end latency / "
    "output tokens",
}
METRIC_NAMES = {
    "tpot": "TPOT",
    "chunk_gap": "chunk gap",
    "ttft": "TTFT",
    "e2el": "end-to-end latency",
    "e2e_per_token": "end-to-end latency per token",
}
READS = {
    "steffen": "Steffen (1990) monotone cubic spline through the Pareto frontier (the curve d3's "
    "`curveMonotoneX` draws on the InferenceX dashboard), between the two frontier points around "
    "the target",
    "linear": "linear interpolation between the two frontier points around the target",
    "nearest": "the nearest frontier point to the target (the faster one on a tie)",
}
PER = {
    "gpu": "per GPU",
    "node": "per node",
    "rack": "per rack",
    "dollar": "per dollar",
    "mw": "per MW",
    "joule": "per joule",
}
ROLES = {
    "self": "measured by the author",
    "third_party": "third party",
    "vendor": "vendor",
    "synthetic": "synthetic",
}
PARAMETERS = {
    "tokens": "token accounting",
    "statistic": "statistic",
    "utilization": "utilization",
    "read": "read method",
    "price": "price scenario",
    "normalize": "normalization unit",
    "target": "target",
}


def _get(mapping, *keys, default=None):
    """`mapping[k1][k2]...`, or `default` where any level is missing or None."""
    value = mapping
    for key in keys:
        if not isinstance(value, dict):
            return default
        value = value.get(key)
        if value is None:
            return default
    return value


def _num(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def statistic_name(stat: str | None) -> str:
    if not stat:
        return "the statistic"
    if stat == "median":
        return "median (P50)"
    if stat == "mean":
        return "mean"
    if stat.startswith("p"):
        return "P" + stat[1:]
    return stat


def _utilization_value(text) -> float | None:
    """`40%` -> 0.4 (the alternative's display text; None if it is not a percentage)."""
    try:
        value = float(str(text).strip().rstrip("%")) / 100
    except ValueError:
        return None
    return value if value > 0 else None


def _natural(text: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def load_text(conditions) -> Md:
    """Load conditions in natural order; `conc 1; conc 2; conc 4` becomes `conc 1, 2, 4`."""
    items = sorted((str(c) for c in conditions), key=_natural)
    pairs = [re.fullmatch(r"(\w+) ([\d.]+)", c) for c in items]
    if items and all(pairs) and len({p.group(1) for p in pairs}) == 1:
        return Md(f"{escape(pairs[0].group(1))} " + ", ".join(escape(p.group(2)) for p in pairs))
    return Md("; ".join(str(escape(c)) for c in items))


def _round_steps(lo: float, hi: float, count: int = 6) -> list[float]:
    """Round values (multiples of 1, 2 or 5 x 10^k) inside [lo, hi], about `count` of them."""
    span = hi - lo
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(lo / step) * step
    values = []
    k = 0
    while first + k * step <= hi + 1e-9:
        values.append(round(first + k * step, 10))
        k += 1
    return values


def plural(n, word: str) -> str:
    return f"{number(n)} {word}" + ("" if n == 1 else "s")


def token_phrase(count) -> str:
    kinds = list(count or [])
    if set(kinds) == {"input", "output"}:
        return "total tokens"
    if kinds == ["output"]:
        return "output tokens"
    words = {
        "input": "input",
        "output": "output",
        "uncached_input": "uncached input",
        "cached_input": "cached input",
    }
    return " + ".join(words.get(k, k) for k in kinds) + " tokens"


@dataclass
class Registry:
    """Every figure the report displays, for figures.csv (first registration of an id wins)."""

    rows: list[dict] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def add(
        self,
        fid: str,
        quantity: str,
        value,
        unit: str,
        shown: Md,
        *,
        system: str = "",
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


class View:
    """Builds the view model from one results dict."""

    def __init__(self, results: dict):
        self.r = results
        self.ir = results.get("ir") or {}
        self.fig = Registry()
        self.sources = {
            s.get("name"): s for s in (results.get("sources") or self.ir.get("sources") or [])
        }
        self.ir_systems = {s.get("name"): s for s in self.ir.get("systems") or []}
        systems = results.get("systems") or {}
        order = [n for n in self.ir_systems if n in systems]
        self.order = order + sorted(n for n in systems if n not in order)
        self.systems = systems
        self.conditions = results.get("conditions") or {}
        self.synthetic = bool(results.get("synthetic"))
        self.baseline = results.get("baseline")
        self.comparisons = {c.get("system"): c for c in results.get("comparisons") or []}

    # -- small lookups ---------------------------------------------------------------------

    def n(self, fid, quantity, value, unit, fmt=number, *, system="", source="cmpc") -> Md:
        """`fmt(value)`, registered for figures.csv; `n/a` when the value is missing."""
        if not _num(value):
            return Md(DASH)
        return self.fig.add(fid, quantity, value, unit, fmt(value), system=system, source=source)

    def label(self, name) -> Md:
        if name is None:
            return Md("the baseline")
        s = self.systems.get(name) or {}
        return escape(s.get("label") or self.ir_systems.get(name, {}).get("label") or name)

    def source_title(self, name) -> Md:
        if name is None:
            return Md(DASH)
        src = self.sources.get(name)
        if src and src.get("title"):
            return escape(src["title"])
        return escape(name)

    def unit(self) -> str:
        return _get(self.conditions, "normalize", "unit", default="tok/s/gpu")

    def per(self) -> str:
        return _get(self.conditions, "normalize", "per", default="gpu")

    def origin(self, name) -> str:
        """measured | reported | synthetic."""
        s = self.systems.get(name) or {}
        src = self.sources.get(s.get("source")) or {}
        if self.synthetic or src.get("role") == "synthetic":
            return "synthetic"
        return "measured" if s.get("data") == "runs" else "reported"

    def data_source(self, name) -> str:
        s = self.systems.get(name) or {}
        origin = self.origin(name)
        if s.get("data") == "runs":
            return f"{origin}: runs read by cmpc"
        src = s.get("source")
        title = (self.sources.get(src) or {}).get("title") or src or "unknown source"
        return f"{origin}: {title}"

    def target(self) -> dict:
        return _get(self.conditions, "latency", "target", default={}) or {}

    def target_phrase(self) -> Md:
        lat = self.conditions.get("latency") or {}
        t = self.target()
        if not t:
            return self._peak_phrase()
        stat = statistic_name(lat.get("statistic"))
        metric = METRIC_NAMES.get(lat.get("metric"), lat.get("metric") or "latency")
        inter = t.get("interactivity_tok_s_user")
        shown_i = self.fig.add(
            "target.interactivity",
            "target interactivity",
            inter,
            "tok/s/user",
            number(inter),
            source="spec",
        )
        if t.get("given_as") == "latency":
            ms = t.get("latency_ms")
            shown_ms = self.fig.add(
                "target.latency", f"target {stat} {metric}", ms, "ms", number(ms), source="spec"
            )
            text = f"at a {stat} {escape(metric)} of {shown_ms} ms"
            if _num(inter) and inter > 0:
                text += f" ({shown_i} tok/s per user)"
            return Md(text)
        return Md(f"at {shown_i} tok/s per user")

    def _peak_phrase(self) -> Md:
        """No target: each system is read at its own peak; say where that peak lies."""
        h = self.r.get("headline") or {}
        names = [n for n in (h.get("system"), h.get("baseline")) if n]
        xs = []
        for n in names:
            at = _get(self.systems, n, "at_target", default={})
            knots = at.get("knots") or []
            if at.get("method") != "peak" or not knots:
                return Md("with no latency target")
            xs.append(knots[0].get("interactivity_tok_s_user"))
        if len(xs) != 2 or not all(_num(x) for x in xs):
            return Md("with no latency target")
        shown = [
            self.fig.add(
                f"{n}.peak_interactivity",
                "interactivity at peak throughput",
                x,
                "tok/s/user",
                number(x),
                system=n,
                source=self.data_source(n),
            )
            for n, x in zip(names, xs, strict=True)
        ]
        return Md(
            f"each at its peak throughput, with no latency target ({shown[0]} vs {shown[1]} "
            "tok/s per user, so not at equal interactivity)"
        )

    # -- headline --------------------------------------------------------------------------

    def headline(self) -> dict:
        h = self.r.get("headline") or {}
        out = {
            "available": False,
            "reason": None,
            "declared": None,
            "equal": None,
            "system": None,
            "baseline": self.label(self.baseline),
            "target": self.target_phrase(),
            "tokens": Md(token_phrase(_get(self.conditions, "tokens", "count"))),
            "per": Md(PER.get(self.per(), "per " + self.per())),
            "direction": None,
            "change": None,
            "sources": [],
            "price_normalized": self.per() == "dollar",
            "load_caution": self.load_caution(),
            "cost_unavailable": None,
            "hit_rate_gap": self.hit_rate_gap(),
        }
        if not self.systems:
            out["reason"] = Md("the spec declares no systems; it audits the claims below")
            out["target"] = Md("")
            return out
        if not h:
            out["reason"] = Md("the spec compares no system with the baseline")
            return out
        out["system"] = self.label(h.get("system"))
        out["baseline"] = self.label(h.get("baseline"))
        tr = h.get("throughput_ratio")
        if not _num(tr):
            out["reason"] = self._why_no_ratio(h)
            return out
        out["available"] = True
        out["ratio"] = self.fig.add(
            "headline.throughput_ratio",
            "throughput ratio",
            tr,
            "x",
            ratio(tr),
            system=h.get("system", ""),
            source="cmpc",
        )
        change = tr - 1
        out["direction"] = Md("more") if change > 0 else Md("fewer") if change < 0 else None
        out["change"] = self.fig.add(
            "headline.throughput_change",
            "throughput change",
            change,
            "fraction",
            percent(abs(change)),
            system=h.get("system", ""),
            source=self.data_source(h.get("system")),
        )
        eq = h.get("cost_ratio_at_equal_price")
        if _num(eq):
            out["equal"] = self._cost_phrase(
                "headline.cost_change_at_equal_price",
                eq,
                "cost change at equal prices",
                h.get("system"),
            )
        cr, pr = h.get("cost_ratio"), h.get("price_ratio")
        if _num(cr) and _num(pr) and not math.isclose(pr, 1.0):
            declared = self._cost_phrase(
                "headline.cost_change_at_declared_prices",
                cr,
                "cost change at the declared prices",
                h.get("system"),
            )
            declared["prices"] = Md(
                " vs ".join(str(self._price_shown(n)) for n in (h.get("system"), h.get("baseline")))
            )
            out["declared"] = declared
        elif h.get("cost_unavailable"):
            out["cost_unavailable"] = escape_prose(h["cost_unavailable"])
        out["sources"] = self._headline_sources(h)
        return out

    def _price_shown(self, name) -> Md:
        price = _get(self.systems, name, "cost", "usd_per_gpu_hour")
        return self.fig.add(
            f"{name}.price",
            "price per GPU-hour",
            price,
            "USD/gpu/h",
            usd(price),
            system=name,
            source=self._price_source(name),
        )

    def _price_source(self, name) -> str:
        p = _get(self.systems, name, "cost", "price", default={})
        return self._plain_source(p.get("source"), p.get("as_of"))

    def _plain_source(self, src, as_of=None) -> str:
        """A source as plain text for figures.csv: its title (or name) and date."""
        title = (self.sources.get(src) or {}).get("title") or src or "spec"
        return f"{title}, as of {as_of}" if as_of else title

    def _cost_phrase(self, fid, cost_ratio, quantity, system) -> dict:
        change = cost_ratio - 1
        return {
            "ratio": self.fig.add(
                fid.replace("change", "ratio"),
                quantity.replace("change", "ratio"),
                cost_ratio,
                "x",
                ratio(cost_ratio),
                system=system,
                source="cmpc",
            ),
            "change": self.fig.add(
                fid,
                quantity,
                change,
                "fraction",
                percent(abs(change)),
                system=system,
                source="cmpc",
            ),
            "direction": Md("lower") if change < 0 else Md("higher") if change > 0 else None,
        }

    def _why_no_ratio(self, h) -> Md:
        for name in (h.get("system"), h.get("baseline")):
            at = _get(self.systems, name, "at_target", default={})
            if at.get("reachable") is False:
                return Md(
                    f"{self.label(name)} does not reach the target "
                    "(it lies outside its measured frontier; cmpc never extrapolates)"
                )
        return Md("the data give no throughput for both sides under the spec's conditions")

    def _headline_sources(self, h) -> list[Md]:
        seen, out = set(), []
        for name in (h.get("system"), h.get("baseline")):
            s = self.systems.get(name) or {}
            runs = s.get("data") == "runs"
            ref = (
                (self.ir_systems.get(name, {}).get("runs") or {}).get("source")
                if runs
                else (s.get("source"))
            )
            key = ("runs" if runs else "reported", ref)
            if key in seen:
                continue
            seen.add(key)
            src = self.sources.get(ref) or {}
            words = [self.source_title(ref)] if ref else []
            if ref and (src.get("role") or src.get("status")):
                tags = [ROLES.get(src.get("role"), src.get("role")), src.get("status")]
                tags = [escape(str(t).replace("_", "-")) for t in tags if t]
                words[0] = Md(f"{words[0]} ({', '.join(tags)})")
            for k in ("snapshot", "run_date"):
                if src.get(k):
                    words.append(Md(f"{k.replace('_', ' ')} {escape(src[k])}"))
                    break
            if runs:
                text = f"{self.origin(name)} runs" + (" by " + ", ".join(words) if words else "")
                out.append(Md(text + ", read by cmpc"))
            else:
                out.append(Md(f"{self.origin(name)} by " + ", ".join(words)))
        return out

    # -- systems ---------------------------------------------------------------------------

    def system_views(self) -> list[dict]:
        return [self._system(n) for n in self.order]

    def _system(self, name) -> dict:
        s = self.systems.get(name) or {}
        irs = self.ir_systems.get(name) or {}
        at = s.get("at_target") or {}
        unit = at.get("unit") or self.unit()
        rows: list[tuple[str, Md]] = []
        acc = s.get("accelerator") or irs.get("accelerator")
        count = irs.get("count")
        if acc:
            rows.append(
                ("Accelerator", Md(f"{escape(acc)} \u00d7 {count}" if count else str(escape(acc))))
            )
        gpus = s.get("gpus")
        shown = self.fig.add(
            f"{name}.gpus", "GPUs", gpus, "gpus", number(gpus), system=name, source="spec"
        )
        rows.append(("GPUs (the per-GPU denominator)", Md(f"{shown}{self._parallel_note(irs)}")))
        mem = irs.get("memory_bytes")
        if _num(mem):
            text = f"{gigabytes(mem)} per GPU"
            if _num(irs.get("usable_memory_bytes")):
                text += f" (usable {gigabytes(irs['usable_memory_bytes'])})"
            rows.append(("Memory", Md(text)))
        if irs.get("interconnect"):
            rows.append(("Interconnect", escape(irs["interconnect"])))
        engine = s.get("engine") or irs.get("engine")
        if engine:
            version = s.get("engine_version") or irs.get("engine_version")
            text = f"{escape(engine)} " + (escape(version) if version else "(version not stated)")
            if irs.get("image"):
                text += f", image {code(irs['image'])}"
            rows.append(("Engine", Md(text)))
        if irs.get("model"):
            rows.append(("Model", escape(irs["model"])))
        for key, title in (
            ("precision", "Precision"),
            ("speculative", "Speculative decoding"),
            ("scheduler", "Scheduler"),
        ):
            value = irs.get(key)
            if isinstance(value, dict) and value:
                rows.append(
                    (
                        title,
                        Md(", ".join(f"{escape(k)} {escape(v)}" for k, v in sorted(value.items()))),
                    )
                )
        rows.append(("Data", self._origin_text(name)))
        where = "at the target" if self.target() else "with no latency target"
        rows.append((f"Throughput {where} ({unit})", self._throughput_text(name, s, at)))
        load = _get(self.r, "load", "systems", name)
        if isinstance(load, list) and load:
            rows.append(("Load conditions", load_text(load)))
        comp = self.comparisons.get(name)
        if comp and _num(comp.get("throughput_ratio")):
            tr = comp["throughput_ratio"]
            shown = self.fig.add(
                f"{name}.throughput_ratio",
                "throughput ratio to baseline",
                tr,
                "x",
                ratio(tr),
                system=name,
                source="cmpc",
            )
            rows.append((f"Relative to {self.label(comp.get('baseline'))}", Md(f"{shown}\u00d7")))
        elif name == self.baseline:
            one = self.n(
                f"{name}.throughput_ratio",
                "throughput ratio to baseline",
                1.0,
                "x",
                ratio,
                system=name,
            )
            rows.append(("Relative to the baseline", Md(f"{one}\u00d7 (the baseline)")))
        rows.append(("Prefix-cache hit rate", self._hit_rate(name, s)))
        cost = s.get("cost") or {}
        if _num(cost.get("usd_per_gpu_hour")):
            basis = _get(cost, "price", "basis")
            rows.append(
                (
                    "Price",
                    Md(
                        f"{self._price_shown(name)} per GPU-hour"
                        + (f" ({escape(basis)})" if basis else "")
                    ),
                )
            )
            per_m = cost.get("usd_per_million_tokens")
            basis_t = cost.get("token_basis") or "total"
            label = f"Cost per million {escape(basis_t)} tokens"
            if _num(per_m):
                rows.append(
                    (
                        label,
                        self.fig.add(
                            f"{name}.usd_per_million_tokens",
                            label,
                            per_m,
                            "USD/Mtok",
                            usd(per_m),
                            system=name,
                            source="cmpc",
                        ),
                    )
                )
            else:
                rows.append(
                    (
                        label,
                        Md(
                            "not computable: no absolute throughput"
                            if not _num(at.get("throughput_per_gpu"))
                            else "not computable under this token basis"
                        ),
                    )
                )
        energy = s.get("energy") or {}
        if _num(energy.get("watts_per_gpu")):
            w = energy["watts_per_gpu"]
            shown = self.fig.add(
                f"{name}.watts_per_gpu",
                "power per GPU",
                w,
                "W",
                number(w),
                system=name,
                source="spec",
            )
            basis = escape(energy.get("basis") or DASH)
            rows.append(("Power", Md(f"{shown} W per GPU ({basis})")))
            if _num(energy.get("joules_per_token")):
                j = energy["joules_per_token"]
                shown = self.fig.add(
                    f"{name}.joules_per_token",
                    "energy per token",
                    j,
                    "J/token",
                    number(j),
                    system=name,
                    source="cmpc",
                )
                rows.append(("Energy per token", Md(f"{shown} J")))
        for note in s.get("notes") or []:
            rows.append(("Note", escape_prose(note)))
        return {
            "name": name,
            "label": self.label(name),
            "baseline": name == self.baseline,
            "origin": self.origin(name),
            "rows": [(Md(k), v) for k, v in rows],  # labels are built from escaped parts
            "points": self._points(name, s),
        }

    def _parallel_note(self, irs) -> str:
        par = irs.get("parallel") or {}
        if not par.get("declared"):
            return ""
        parts = [f"{k} {par[k]}" for k in ("tp", "pp", "pcp", "dp") if (par.get(k) or 1) > 1]
        extra = [f"{k} {par[k]}" for k in ("ep", "dcp") if (par.get(k) or 1) > 1]
        if par.get("pools"):
            parts = [f"{len(par['pools'])} pools"]
        text = " (" + (" \u00d7 ".join(parts) if parts else "1") + ")"
        if extra:
            verb = "adds" if len(extra) == 1 else "add"
            text = text[:-1] + f"; {', '.join(extra)} {verb} no GPUs)"
        return text

    def _origin_text(self, name) -> Md:
        s = self.systems.get(name) or {}
        origin = self.origin(name)
        if s.get("data") == "runs":
            runs = self.ir_systems.get(name, {}).get("runs") or {}
            files = [i for i in self.r.get("inputs") or [] if i.get("system") == name]
            n_runs = sum(i.get("runs") or 0 for i in files)
            text = f"{origin}"
            if runs.get("source"):
                text += " by " + ", ".join(self._source_bits(runs["source"]))
            text += (
                f": {plural(n_runs, 'run')} from {plural(len(files), 'file')} matching "
                f"{code(runs.get('glob', '?'))}"
            )
            if runs.get("format"):
                text += f", format {escape(runs['format'])}"
            return Md(text + "; per-request metrics computed by cmpc")
        bits = self._source_bits(s.get("source"))
        return Md(f"{origin} by " + ", ".join(bits) + "; not recomputed by cmpc")

    def _source_bits(self, name) -> list[str]:
        src = self.sources.get(name) or {}
        bits = [str(self.source_title(name))]
        if src.get("role") and src["role"] != "synthetic":  # the origin already says synthetic
            bits.append(escape(ROLES.get(src["role"], src["role"])))
        for key in ("snapshot", "run_date", "retrieved"):
            if src.get(key):
                bits.append(f"{key.replace('_', ' ')} {escape(src[key])}")
        if src.get("status"):
            bits.append(escape(src["status"].replace("_", "-")))
        return bits

    def _throughput_text(self, name, s, at) -> Md:
        unit = at.get("unit") or self.unit()
        value = at.get("throughput_per_unit")
        if _num(value):
            shown = self.fig.add(
                f"{name}.throughput_at_target",
                f"throughput at target ({unit})",
                value,
                unit,
                number(value),
                system=name,
                source=self.data_source(name),
            )
            text = f"{shown}"
            knots = at.get("knots") or []
            method = at.get("method")
            if method in READS and len(knots) == 2:
                lo, hi = knots
                text += (
                    f" (read {escape(method)} between "
                    f"{number(lo.get('interactivity_tok_s_user'))} and "
                    f"{number(hi.get('interactivity_tok_s_user'))} tok/s/user)"
                )
            elif method == "reported":
                text += " (as reported)"
            elif method == "peak" and knots:
                x = knots[0].get("interactivity_tok_s_user")
                text += (
                    f" (peak of the frontier, at {number(x)} tok/s/user)"
                    if len(s.get("points") or []) > 1
                    else f" (the one run as measured, at {number(x)} tok/s/user)"
                )
            return Md(text)
        if at.get("reachable") is False:
            front = s.get("frontier") or []
            xs = [
                p.get("interactivity_tok_s_user")
                for p in front
                if _num(p.get("interactivity_tok_s_user"))
            ]
            text = "unreachable: the target lies outside the measured frontier"
            if xs:
                text += f" ({number(min(xs))}\u2013{number(max(xs))} tok/s/user)"
            return Md(text + "; never extrapolated")
        rel = at.get("relative")
        if rel and _num(rel.get("ratio")):
            if rel.get("to") == name:
                return Md("not reported in absolute terms: the reference of the published ratio")
            return Md(
                f"not reported in absolute terms: only a ratio of {ratio(rel['ratio'])} "
                f"to {self.label(rel.get('to'))} was published"
            )
        if _num(at.get("throughput_per_gpu")):
            return Md(f"{number(at['throughput_per_gpu'])} tok/s/gpu; not convertible to {unit}")
        return Md("not available")

    def _hit_rate(self, name, s) -> Md:
        rate, basis = s.get("hit_rate"), s.get("hit_rate_basis") or "unknown"
        if _num(rate):
            shown = self.fig.add(
                f"{name}.hit_rate",
                "prefix-cache hit rate",
                rate,
                "fraction",
                percent(rate),
                system=name,
                source=basis,
            )
            return Md(f"{shown} ({escape(basis)})")
        if self.ir_systems.get(name, {}).get("cache_hit_rate_unknown"):
            return Md("unknown (stated as not published)")
        return Md("unknown")

    def _points(self, name, s) -> list[dict]:
        front = {
            (p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu"))
            for p in s.get("frontier") or []
        }
        rows = []
        pts = sorted(
            s.get("points") or [],
            key=lambda p: (
                p.get("interactivity_tok_s_user") or 0,
                p.get("throughput_per_gpu") or 0,
                str(p.get("label")),
            ),
        )
        for i, p in enumerate(pts):
            x, y = p.get("interactivity_tok_s_user"), p.get("throughput_per_gpu")
            conc = p.get("concurrency")
            rows.append(
                {
                    "concurrency": number(conc) if _num(conc) else Md(DASH),
                    "interactivity": self.fig.add(
                        f"{name}.point{i}.interactivity",
                        "point interactivity",
                        x,
                        "tok/s/user",
                        number(x),
                        system=name,
                        source=str(p.get("label") or ""),
                    ),
                    "throughput": self.fig.add(
                        f"{name}.point{i}.throughput",
                        "point throughput per GPU",
                        y,
                        "tok/s/gpu",
                        number(y),
                        system=name,
                        source=str(p.get("label") or ""),
                    ),
                    "frontier": (x, y) in front,
                    "label": escape(p.get("label") or ""),
                }
            )
        return rows

    # -- iso-interactivity ------------------------------------------------------------------

    def iso_interactivity(self) -> dict | None:
        """Headline system and baseline read at several shared interactivities (InferenceX's
        iso-interactivity table), with the same read method; rows where the lead reverses are
        marked, never smoothed over."""
        from cmpc.compute.frontier import Point, read_at

        h = self.r.get("headline") or {}
        a, b = h.get("system"), h.get("baseline")
        method = _get(self.conditions, "latency", "read", default="steffen")
        fronts = []
        for name in (a, b):
            pts = _get(self.systems, name, "frontier", default=[]) or []
            front = [
                Point(p["interactivity_tok_s_user"], p["throughput_per_gpu"])
                for p in pts
                if _num(p.get("interactivity_tok_s_user")) and _num(p.get("throughput_per_gpu"))
            ]
            if len(front) < 2:
                return None
            fronts.append(front)
        lo = max(f[0].interactivity for f in fronts)
        hi = min(f[-1].interactivity for f in fronts)
        if not lo < hi:
            return None
        xs = set(_round_steps(lo, hi))
        target = _get(self.target(), "interactivity_tok_s_user")
        if _num(target) and lo <= target <= hi:
            xs.add(float(target))
        rows = []
        for i, x in enumerate(sorted(xs)):
            va = read_at(fronts[0], x, method).value
            vb = read_at(fronts[1], x, method).value
            if not (_num(va) and _num(vb)) or vb <= 0:
                continue
            r = va / vb
            lead = r > 1
            fid = f"iso.{i}"
            rows.append(
                {
                    "interactivity": self.n(
                        f"{fid}.interactivity", "interactivity", x, "tok/s/user", source="cmpc"
                    ),
                    "system": self.n(
                        f"{fid}.{a}",
                        "throughput per GPU",
                        va,
                        "tok/s/gpu",
                        system=a,
                        source=f"cmpc, {method} read",
                    ),
                    "baseline": self.n(
                        f"{fid}.{b}",
                        "throughput per GPU",
                        vb,
                        "tok/s/gpu",
                        system=b,
                        source=f"cmpc, {method} read",
                    ),
                    "ratio": self.n(
                        f"{fid}.ratio", "per-GPU throughput ratio", r, "x", ratio, system=a
                    ),
                    "target": _num(target) and math.isclose(x, target),
                    "lead": lead,
                }
            )
        if len(rows) < 2:
            return None
        head = h.get("per_gpu_throughput_ratio")
        reference = head > 1 if _num(head) else rows[0]["lead"]
        for row in rows:
            row["reversed"] = row["lead"] != reference
        leads = {r["lead"] for r in rows}
        return {
            "system": self.label(a),
            "baseline": self.label(b),
            "method": escape(method),
            "rows": rows,
            "reverses": len(leads) > 1,
        }

    # -- comparisons and cost --------------------------------------------------------------

    def comparison_rows(self) -> list[dict]:
        rows = []
        for c in self.r.get("comparisons") or []:
            name = c.get("system")
            rows.append(
                {
                    "system": self.label(name),
                    "baseline": self.label(c.get("baseline")),
                    "throughput_ratio": self.n(
                        f"{name}.throughput_ratio",
                        "throughput ratio to baseline",
                        c.get("throughput_ratio"),
                        "x",
                        ratio,
                        system=name,
                    ),
                    "throughput_change": self.n(
                        f"{name}.throughput_change",
                        "throughput change to baseline",
                        c["throughput_ratio"] - 1 if _num(c.get("throughput_ratio")) else None,
                        "fraction",
                        lambda v: percent(v, signed=True),
                        system=name,
                    ),
                    "cost_equal": self.n(
                        f"{name}.cost_ratio_at_equal_price",
                        "cost ratio at equal prices",
                        c.get("cost_ratio_at_equal_price"),
                        "x",
                        ratio,
                        system=name,
                    ),
                    "cost_declared": self.n(
                        f"{name}.cost_ratio",
                        "cost ratio at the declared prices",
                        c.get("cost_ratio"),
                        "x",
                        ratio,
                        system=name,
                    ),
                    "winner": self.label(c["winner"]) if c.get("winner") else Md(DASH),
                    "cost_winner": self.label(c["cost_winner"])
                    if c.get("cost_winner")
                    else Md(DASH),
                }
            )
        return rows

    def cost_view(self) -> dict:
        cost = self.conditions.get("cost") or {}
        util = cost.get("utilization")
        basis = cost.get("per_million") or "total"
        rows = []
        for name in self.order:
            c = _get(self.systems, name, "cost", default={})
            price = c.get("usd_per_gpu_hour")
            tput = _get(self.systems, name, "at_target", "throughput_per_gpu")
            per_m = c.get("usd_per_million_tokens")
            if _num(price) and _num(tput) and _num(util) and _num(per_m):
                arithmetic = Md(
                    f"{usd(price)} / ({number(tput)} \u00d7 3600 \u00d7 "
                    f"{percent(util)}) \u00d7 10^6 = {usd(per_m)}"
                )
            elif _get(self.systems, name, "at_target", "reachable") is False:
                arithmetic = Md("the target is unreachable: no throughput, so no cost, there")
            elif _num(price) and _get(self.systems, name, "at_target", "relative"):
                arithmetic = Md("no absolute throughput: only the ratio below is known")
            elif _num(price):
                arithmetic = Md("no throughput on the cost's token basis")
            else:
                arithmetic = Md("no price declared")
            rows.append(
                {
                    "system": self.label(name),
                    "price": self._price_shown(name) if _num(price) else Md(DASH),
                    "throughput": self.n(
                        f"{name}.throughput_per_gpu",
                        "throughput per GPU at the target",
                        tput,
                        "tok/s/gpu",
                        system=name,
                        source=self.data_source(name),
                    ),
                    "per_million": self.n(
                        f"{name}.usd_per_million_tokens",
                        f"cost per million {basis} tokens",
                        per_m,
                        "USD/Mtok",
                        usd,
                        system=name,
                    ),
                    "arithmetic": arithmetic,
                }
            )
        steps = []
        for c in self.r.get("comparisons") or []:
            steps.append(self._cost_steps(c))
        util_shown = self.fig.add(
            "cost.utilization", "utilization", util, "fraction", percent(util), source="spec"
        )
        return {
            "rows": rows,
            "steps": steps,
            "utilization": util_shown,
            "basis": escape(basis),
            "scenarios": self.scenario_costs(),
        }

    def _cost_steps(self, c) -> dict:
        name, base = c.get("system"), c.get("baseline")
        pg = c.get("per_gpu_throughput_ratio")
        pr = c.get("price_ratio")
        cr = c.get("cost_ratio")
        out = {"system": self.label(name), "baseline": self.label(base), "lines": []}
        if not _num(pg):
            out["lines"].append(Md("no throughput ratio: no cost consequence can be drawn"))
            return out
        eq = 1 / pg
        self.n(
            f"{name}.per_gpu_throughput_ratio",
            "per-GPU throughput ratio",
            pg,
            "x",
            ratio,
            system=name,
        )
        self.n(
            f"{name}.per_gpu_throughput_change",
            "per-GPU throughput change",
            pg - 1,
            "fraction",
            lambda v: percent(v, signed=True),
            system=name,
        )
        self.n(
            f"{name}.cost_ratio_at_equal_price",
            "cost ratio at equal prices",
            eq,
            "x",
            ratio,
            system=name,
        )
        if _num(pr):
            self.n(f"{name}.price_ratio", "price ratio to baseline", pr, "x", ratio, system=name)
        magnitude = lambda v: percent(abs(v))  # noqa: E731  (the direction is in words)
        self.n(
            f"{name}.per_gpu_throughput_change_magnitude",
            "per-GPU throughput change, size",
            pg - 1,
            "fraction",
            magnitude,
            system=name,
        )
        self.n(
            f"{name}.cost_change_at_equal_price",
            "cost change at equal prices, size",
            eq - 1,
            "fraction",
            magnitude,
            system=name,
        )
        if _num(cr):
            self.n(
                f"{name}.cost_change",
                "cost change at the declared prices, size",
                cr - 1,
                "fraction",
                magnitude,
                system=name,
            )
        out["lines"].append(
            Md(f"Throughput per GPU: {ratio(pg)}\u00d7 ({percent(pg - 1, signed=True)}).")
        )
        out["lines"].append(
            Md(
                f"At equal prices, cost per token scales by 1 / {ratio(pg)} = {ratio(eq)}: "
                f"{percent(abs(eq - 1))} {'lower' if eq < 1 else 'higher'}"
                + (f" (not {percent(abs(pg - 1))})." if not math.isclose(pg, 1) else ".")
            )
        )
        if _num(pr) and _num(cr):
            ps = _get(self.systems, name, "cost", "usd_per_gpu_hour")
            pb = _get(self.systems, base, "cost", "usd_per_gpu_hour")
            out["lines"].append(
                Md(
                    f"At the declared prices, cost per token scales by ({usd(ps)} / {usd(pb)}) / "
                    f"{ratio(pg)} = {ratio(pr)} / {ratio(pg)} = {ratio(cr)}: "
                    f"{percent(abs(cr - 1))} {'lower' if cr < 1 else 'higher'}."
                )
            )
        elif c.get("cost_unavailable"):
            out["lines"].append(
                Md(
                    "At the declared prices: not computable "
                    f"({escape_prose(c['cost_unavailable'])})."
                )
            )
        return out

    def scenario_costs(self) -> list[dict]:
        """Cost per token relative to the baseline under equal prices and each price scenario."""
        base = self.baseline
        ratios = {base: 1.0}
        for c in self.r.get("comparisons") or []:
            if _num(c.get("per_gpu_throughput_ratio")):
                ratios[c.get("system")] = c["per_gpu_throughput_ratio"]
        prices: dict[str, dict[str, float]] = {}
        for name in self.order:
            for sc in _get(self.systems, name, "cost", "scenarios", default=[]):
                if _num(sc.get("usd_per_gpu_hour")):
                    prices.setdefault(sc.get("scenario") or "price", {})[name] = sc[
                        "usd_per_gpu_hour"
                    ]
        for name in self.order:
            tco = self.tco_hourly(name)
            if tco is not None and name not in prices.get("tco", {}):
                prices.setdefault("tco", {})[name] = tco["total"]
        out = [
            {
                "scenario": "equal prices",
                "values": {n: (1 / ratios[n] if ratios.get(n) else None) for n in self.order},
            }
        ]
        for scenario in sorted(prices):
            per = prices[scenario]
            values = {}
            for n in self.order:
                if n in per and base in per and n in ratios and ratios[n]:
                    values[n] = per[n] / per[base] / ratios[n]
                else:
                    values[n] = None
            out.append({"scenario": scenario, "values": values})
        for row in out:
            row["shown"] = {
                n: self.fig.add(
                    f"{n}.relative_cost.{footnote_key(row['scenario'])}",
                    f"cost per token relative to baseline ({row['scenario']})",
                    v,
                    "x",
                    ratio(v),
                    system=n,
                    source="cmpc",
                )
                if _num(v)
                else Md(DASH)
                for n, v in row["values"].items()
            }
        return out

    # -- assumptions -----------------------------------------------------------------------

    def assumptions(self) -> list[dict]:
        rows = []
        for name in self.order:
            irs = self.ir_systems.get(name) or {}
            for p in irs.get("prices") or []:
                v = p.get("usd_per_gpu_hour")
                scenario = p.get("scenario") or p.get("basis")
                shown = self.n(
                    f"{name}.price.{footnote_key(scenario)}",
                    f"price per GPU-hour ({scenario})",
                    v,
                    "USD/gpu/h",
                    usd,
                    system=name,
                    source=self._plain_source(p.get("source"), p.get("as_of")),
                )
                rows.append(
                    {
                        "system": self.label(name),
                        "item": Md(f"price ({escape(scenario)})"),
                        "value": Md(f"{shown} per GPU-hour"),
                        "basis": escape(p.get("basis") or DASH),
                        "source": self.source_title(p.get("source")),
                        "date": escape(p.get("as_of") or DASH),
                    }
                )
            pw = irs.get("power") or {}
            if _num(pw.get("watts_per_gpu")):
                watts = self.n(
                    f"{name}.watts_per_gpu",
                    "power per GPU",
                    pw["watts_per_gpu"],
                    "W",
                    system=name,
                    source="spec",
                )
                rows.append(
                    {
                        "system": self.label(name),
                        "item": Md("power per GPU"),
                        "value": Md(f"{watts} W"),
                        "basis": escape(pw.get("basis") or DASH),
                        "source": self.source_title(pw.get("source")),
                        "date": self._source_date(pw.get("source")),
                    }
                )
            tco = irs.get("tco") or {}
            if tco:

                def t(key, unit, fmt=number, *, name=name, tco=tco):
                    return self.n(
                        f"{name}.tco.{key}",
                        f"TCO {key}",
                        tco.get(key),
                        unit,
                        fmt,
                        system=name,
                        source="spec",
                    )

                parts = [
                    ("capex per GPU", t("capex_usd_per_gpu", "USD/gpu", usd)),
                    ("depreciation", Md(f"{t('years', 'years')} years")),
                    ("TCO power", Md(f"{t('power_watts', 'W')} W")),
                    ("PUE", t("pue", "")),
                    ("electricity", Md(f"{t('electricity_usd_per_kwh', 'USD/kWh', usd)} per kWh")),
                    ("hosting", Md(f"{t('hosting_usd_per_gpu_hour', 'USD/gpu/h', usd)} per GPU-h")),
                    ("operations", Md(f"{t('ops_usd_per_gpu_hour', 'USD/gpu/h', usd)} per GPU-h")),
                ]
                for item, value in parts:
                    rows.append(
                        {
                            "system": self.label(name),
                            "item": Md(item),
                            "value": value,
                            "basis": Md("tco"),
                            "source": self.source_title(tco.get("source")),
                            "date": escape(tco.get("as_of") or DASH),
                        }
                    )
                derived = self.tco_hourly(name)
                if derived is not None:
                    rows.append(
                        {
                            "system": self.label(name),
                            "item": Md("TCO per GPU-hour (derived)"),
                            "value": derived["arithmetic"],
                            "basis": Md("tco"),
                            "source": Md("cmpc"),
                            "date": escape(tco.get("as_of") or DASH),
                        }
                    )
            if _num(irs.get("cache_hit_rate")):
                rows.append(
                    {
                        "system": self.label(name),
                        "item": Md("prefix-cache hit rate"),
                        "value": percent(irs["cache_hit_rate"]),
                        "basis": Md("declared"),
                        "source": Md("spec"),
                        "date": Md(DASH),
                    }
                )
        cost = self.conditions.get("cost") or {}
        rows.append(
            {
                "system": Md("all"),
                "item": Md("utilization"),
                "value": percent(cost.get("utilization")),
                "basis": Md("assumed: share of hours serving at the measured throughput"),
                "source": Md("spec"),
                "date": Md(DASH),
            }
        )
        basis = cost.get("per_million") or "total"
        value = f"per million {escape(basis)} tokens"
        if basis == "blended":
            value += (
                f" (input {number(cost.get('blend_input'))} : output "
                f"{number(cost.get('blend_output'))})"
            )
        rows.append(
            {
                "system": Md("all"),
                "item": Md("cost token basis"),
                "value": Md(value),
                "basis": Md(DASH),
                "source": Md("spec"),
                "date": Md(DASH),
            }
        )
        return rows

    def tco_hourly(self, name) -> dict | None:
        """A system's TCO per GPU-hour, from its parts, with the arithmetic shown."""
        tco = (self.ir_systems.get(name) or {}).get("tco") or {}
        capex, years = tco.get("capex_usd_per_gpu"), tco.get("years")
        if not (_num(capex) and _num(years) and years > 0):
            return None
        watts, pue = tco.get("power_watts"), tco.get("pue") or 1.0
        kwh = tco.get("electricity_usd_per_kwh")
        hosting = tco.get("hosting_usd_per_gpu_hour") or 0.0
        ops = tco.get("ops_usd_per_gpu_hour") or 0.0
        hours = years * 365 * 24
        energy = watts / 1000 * pue * kwh if _num(watts) and _num(kwh) else 0.0
        total = capex / hours + energy + hosting + ops
        terms = [f"{usd(capex)} / ({number(years)} \u00d7 8,760 h)"]
        if _num(watts) and _num(kwh):
            terms.append(f"{number(watts / 1000)} kW \u00d7 {number(pue)} \u00d7 {usd(kwh)}/kWh")
        terms += [usd(hosting), usd(ops)]
        shown = self.fig.add(
            f"{name}.tco_usd_per_gpu_hour",
            "TCO per GPU-hour",
            total,
            "USD/gpu/h",
            usd(total),
            system=name,
            source="cmpc",
        )
        return {"total": total, "arithmetic": Md(" + ".join(terms) + f" = {shown}")}

    def _source_date(self, name) -> Md:
        src = self.sources.get(name) or {}
        for key in ("snapshot", "run_date", "retrieved"):
            if src.get(key):
                return escape(src[key])
        return Md(DASH)

    # -- sensitivity -----------------------------------------------------------------------

    def sensitivity(self) -> dict | None:
        sens = self.r.get("sensitivity")
        if not isinstance(sens, dict):
            return None
        head = self.r.get("headline") or {}
        rows = [
            {
                "parameter": Md("as specified"),
                "alternative": Md("(the spec)"),
                "available": True,
                "throughput_ratio": ratio(head.get("throughput_ratio")),
                "cost_ratio": ratio(head.get("cost_ratio")),
                "winner": self.label(head["winner"]) if head.get("winner") else Md(DASH),
                "cost_winner": self.label(head["cost_winner"])
                if head.get("cost_winner")
                else Md(DASH),
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
                    "throughput_ratio": self.fig.add(
                        f"{fid}.throughput_ratio",
                        f"throughput ratio, {param} {alt}",
                        tr,
                        "x",
                        ratio(tr),
                        source="cmpc",
                    )
                    if _num(tr)
                    else Md(DASH),
                    "cost_ratio": self.fig.add(
                        f"{fid}.cost_ratio",
                        f"cost ratio, {param} {alt}",
                        cr,
                        "x",
                        ratio(cr),
                        source="cmpc",
                    )
                    if _num(cr)
                    else Md(DASH),
                    "winner": self.label(row["winner"]) if row.get("winner") else Md(DASH),
                    "cost_winner": self.label(row["cost_winner"])
                    if row.get("cost_winner")
                    else Md(DASH),
                    "flips": bool(row.get("flips")),
                    "cost_flips": bool(row.get("cost_flips")),
                }
            )
        flips = sum(r["flips"] or r["cost_flips"] for r in rows)
        return {
            "declared": bool(sens.get("declared")),
            "rows": rows,
            "flips": flips,
            "utilization_note": self._utilization_note(sens.get("rows") or []),
        }

    def _utilization_note(self, rows) -> Md | None:
        """Utilization moves no ratio; show what it does to each cost per million tokens."""
        base_u = _get(self.conditions, "cost", "utilization")
        alts = [r for r in rows if r.get("parameter") == "utilization" and r.get("available")]
        names = [
            n for n in self.order if _num(_get(self.systems, n, "cost", "usd_per_million_tokens"))
        ]
        if not alts or not names or not _num(base_u):
            return None
        parts = []
        for i, row in enumerate(alts):
            u = _utilization_value(row.get("alternative"))
            if u is None:
                continue
            costs = []
            for n in names:
                c = _get(self.systems, n, "cost", "usd_per_million_tokens") * base_u / u
                shown = self.n(
                    f"sensitivity.utilization{i}.{n}.usd_per_million_tokens",
                    f"cost per million tokens at utilization {row.get('alternative')}",
                    c,
                    "USD/Mtok",
                    usd,
                    system=n,
                )
                costs.append(f"{self.label(n)} {shown}")
            parts.append(f"at {escape(row.get('alternative'))}, " + ", ".join(costs))
        if not parts:
            return None
        return Md(
            "Utilization scales every system's cost per token by the same factor, so it moves "
            "no ratio; it moves the absolute cost per million tokens: " + "; ".join(parts) + "."
        )

    # -- disclosure ------------------------------------------------------------------------

    def disclosure(self) -> dict | None:
        d = self.r.get("disclosure")
        if not isinstance(d, dict):
            return None
        items = []
        for item in d.get("items") or []:
            if item.get("answer"):
                status = Md(f"answered: {escape(item['answer'])}")
            elif item.get("answered"):
                status = Md("stated in the spec's declarations")
            else:
                status = Md("**not disclosed**")
            items.append(
                {
                    "key": code(item.get("key") or "?"),
                    "question": escape(item.get("question") or ""),
                    "answered": bool(item.get("answered")),
                    "status": status,
                    "five": bool(item.get("five_questions")),
                }
            )
        score, total = d.get("score"), d.get("total")
        half = math.ceil(total / 2) if _num(total) else None
        return {
            "five": [i for i in items if i["five"]],
            "rest": [i for i in items if not i["five"]],
            "missing": [i for i in items if not i["answered"]],
            "score": self.fig.add(
                "disclosure.score",
                "disclosure items answered",
                score,
                "items",
                number(score),
                source="cmpc",
            ),
            "total": self.n("disclosure.total", "checklist items", total, "items"),
            "half": number(half),
            "five_answered": self.n(
                "disclosure.five_answered",
                "five questions answered",
                d.get("five_answered"),
                "items",
            ),
            "five_total": number(d.get("five_total")),
            "verdict": escape(d.get("verdict") or DASH),
        }

    # -- claims and capacity ---------------------------------------------------------------

    def claims(self) -> list[dict]:
        out = []
        for c in self.r.get("claims") or []:
            name = c.get("name") or "?"
            value = self.fig.add(
                f"claim.{name}",
                f"claim {name}",
                c.get("value"),
                c.get("unit") or "",
                number(c.get("value")),
                source=str(c.get("source_title") or c.get("source") or ""),
            )
            derived = []
            for i, d in enumerate(c.get("derived") or []):
                shown = self.fig.add(
                    f"claim.{name}.derived{i}",
                    str(d.get("quantity") or ""),
                    d.get("value"),
                    d.get("unit") or "",
                    number(d.get("value")),
                    source="cmpc, from the claim",
                )
                derived.append(
                    Md(
                        f"{escape(d.get('quantity'))}: {shown} "
                        f"{escape(d.get('unit') or '')}".rstrip()
                    )
                )
            cannot = [
                Md(f"{escape(d.get('quantity'))}: needs {escape_prose(d.get('missing'))}")
                for d in c.get("cannot_derive") or []
            ]
            facts = [f"{escape(c.get('kind') or DASH)}", f"scope {escape(c.get('scope') or DASH)}"]
            if c.get("source_title") or c.get("source"):
                facts.append(f"source {escape(c.get('source_title') or c.get('source'))}")
            out.append(
                {
                    "name": code(name),
                    "value": Md(f"{value} {escape(c.get('unit') or '')}"),
                    "about": escape(c["about"]) if c.get("about") else None,
                    "facts": Md(", ".join(facts)),
                    "derived": derived,
                    "cannot": cannot,
                    "notes": [escape_prose(n) for n in c.get("notes") or []],
                }
            )
        return out

    def claim_combinations(self) -> list[dict]:
        out = []
        for i, c in enumerate(self.r.get("claim_combinations") or []):
            value = c.get("value")
            shown = (
                self.fig.add(
                    f"claims.combination{i}",
                    str(c.get("quantity") or ""),
                    value,
                    "",
                    number(value),
                    source="cmpc, from the claims",
                )
                if _num(value)
                else None
            )
            out.append(
                {
                    "claims": Md(", ".join(str(code(n)) for n in c.get("claims") or [])),
                    "quantity": escape_prose(c.get("quantity") or DASH),
                    "formula": escape_prose(c.get("formula") or DASH),
                    "value": shown,
                    "missing": escape_prose(c["missing"]) if c.get("missing") else None,
                    "note": escape_prose(c["note"]) if c.get("note") else None,
                }
            )
        return out

    def capacity(self) -> dict | None:
        cap = self.r.get("capacity")
        if not isinstance(cap, dict):
            return None
        rows = []
        for s in cap.get("systems") or []:
            name = s.get("system")
            usable = s.get("usable_bytes_per_card")
            rows.append(
                {
                    "system": self.label(name),
                    "usable": Md(
                        self.n(
                            f"{name}.usable_bytes",
                            "usable memory per card",
                            usable,
                            "B",
                            gigabytes,
                            system=name,
                            source="spec",
                        )
                        + (" (nominal)" if s.get("usable_is_nominal") else "")
                    ),
                    "needed": self.n(
                        f"{name}.cards_needed",
                        "cards needed",
                        s.get("cards_needed"),
                        "cards",
                        system=name,
                    ),
                    "declared": self.n(
                        f"{name}.cards_declared",
                        "cards in the system",
                        s.get("cards_declared"),
                        "cards",
                        system=name,
                        source="spec",
                    ),
                }
            )
        return {
            "weights": self.n(
                "capacity.weights", "weights", cap.get("weight_bytes"), "B", gigabytes
            ),
            "kv_per_token": Md(
                self.n(
                    "capacity.kv_per_token",
                    "KV cache per token",
                    cap.get("kv_bytes_per_token"),
                    "B",
                )
                + " bytes"
            ),
            "kv": self.n("capacity.kv", "KV cache", cap.get("kv_bytes"), "B", gigabytes),
            "needed": self.n(
                "capacity.needed", "memory needed", cap.get("bytes_needed"), "B", gigabytes
            ),
            "context": self.n(
                "capacity.context", "context", cap.get("context_tokens"), "tokens", source="spec"
            ),
            "concurrency": self.n(
                "capacity.concurrency",
                "concurrency",
                cap.get("concurrency"),
                "requests",
                source="spec",
            ),
            "reserve": self.n(
                "capacity.reserve",
                "memory reserve",
                cap.get("reserve"),
                "fraction",
                percent,
                source="spec",
            ),
            "rows": rows,
        }

    # -- provenance ------------------------------------------------------------------------

    def provenance(self) -> dict:
        spec = self.r.get("spec") or {}
        inputs = [
            {
                "path": code(i.get("path") or "?"),
                "system": self.label(i.get("system")),
                "format": escape(i.get("format") or DASH),
                "reader": escape(i.get("reader") or DASH),
                "runs": number(i.get("runs")),
                "sha256": code(i.get("sha256") or DASH),
            }
            for i in sorted(
                self.r.get("inputs") or [], key=lambda i: (str(i.get("path")), str(i.get("system")))
            )
        ]
        overrides = [
            Md(f"{code(o.get('path'), in_table=False)} = {code(o.get('value'), in_table=False)}")
            for o in self.r.get("overrides") or []
        ]
        warnings = [
            Md(f"{code(w.get('code'))} {escape_prose(w.get('message'))}")
            for w in self.r.get("warnings") or []
        ]
        sources = []
        for name in sorted(self.sources):
            s = self.sources[name]
            dates = [
                f"{k.replace('_', ' ')} {escape(s[k])}"
                for k in ("snapshot", "run_date", "retrieved")
                if s.get(k)
            ]
            sources.append(
                {
                    "name": code(name),
                    "title": link(s.get("title") or name, s.get("url")),
                    "role": escape(ROLES.get(s.get("role"), s.get("role") or DASH)),
                    "dates": Md(", ".join(dates) or DASH),
                    "status": escape(s.get("status") or DASH),
                }
            )
        return {
            "spec_file": code(spec.get("file") or "?", in_table=False),
            "spec_sha256": code(spec.get("sha256") or DASH),
            "cmpc_version": escape(self.r.get("cmpc_version") or DASH),
            "results_version": escape(self.r.get("results_version") or DASH),
            "inputs": inputs,
            "overrides": overrides,
            "warnings": warnings,
            "sources": sources,
        }

    # -- footnotes -------------------------------------------------------------------------

    def footnotes(self) -> dict[str, Md]:
        notes = {
            "latency": self._fn_latency(),
            "tokens": self._fn_tokens(),
            "norm": self._fn_norm(),
            "price": self._fn_price(),
            "source": self._fn_source(),
        }
        if self.synthetic:
            notes["synthetic"] = Md(
                "The comparison is built from synthetic data (a source with "
                "role `synthetic`): it illustrates the method and says "
                "nothing about the hardware."
            )
        return notes

    def _fn_latency(self) -> Md:
        lat = self.conditions.get("latency") or {}
        metric = lat.get("metric") or "tpot"
        stat = statistic_name(lat.get("statistic"))
        t = self.target()
        parts = [
            f"Latency constraint: the {stat} over requests of "
            f"{escape(METRICS.get(metric, metric))}; TTFT {escape(lat.get('ttft') or DASH)}."
        ]
        if t and _num(t.get("interactivity_tok_s_user")) and t["interactivity_tok_s_user"] > 0:
            parts.append(
                f"Interactivity = 1 / {stat}({escape(METRIC_NAMES.get(metric, metric))}) in "
                "tokens per second per user: the statistic of the latency, inverted (never the "
                f"statistic of 1/latency). The target {number(t['interactivity_tok_s_user'])} "
                f"tok/s/user is a {stat} {escape(METRIC_NAMES.get(metric, metric))} of "
                f"{number(t.get('latency_ms'))} ms."
            )
        elif t:
            parts.append(f"The target is a {stat} of {number(t.get('latency_ms'))} ms.")
        method = lat.get("percentile_method") or "linear"
        parts.append(
            f"Percentiles: numpy's `{escape(method)}` method over per-request values"
            + (" (Hyndman\u2013Fan type 7)." if method == "linear" else ".")
        )
        read = lat.get("read") or "steffen"
        parts.append(
            f"Read: {READS.get(read, escape(read))}; a target outside a frontier is "
            "unreachable and never extrapolated."
        )
        reported = [n for n in self.order if _get(self.systems, n, "data") == "reported"]
        if reported:
            stats = {
                self.ir_systems.get(n, {}).get("reported", {}).get("statistic") for n in reported
            }
            stats.discard(None)
            who = ", ".join(str(self.label(n)) for n in reported)
            text = f"Reported figures ({who}) are used as published"
            if stats:
                text += " at " + ", ".join(statistic_name(s) for s in sorted(stats))
            parts.append(text + "; cmpc did not recompute them.")
        return Md(" ".join(parts))

    def _fn_tokens(self) -> Md:
        tok = self.conditions.get("tokens") or {}
        count = tok.get("count") or []
        parts = [
            f"Counted tokens: {escape(' + '.join(count) or DASH)} "
            f"({escape(token_phrase(count))}); reused (prefix-cached) input tokens "
            f"{escape(tok.get('reused') or DASH)}. Throughput is counted tokens per second "
            f"of a run, {escape(PER.get(self.per(), self.per()))}."
        ]
        rates = []
        unknown = False
        for n in self.order:
            s = self.systems.get(n) or {}
            if _num(s.get("hit_rate")):
                rates.append(
                    f"{self.label(n)} {percent(s['hit_rate'])} "
                    f"({escape(s.get('hit_rate_basis') or 'declared')})"
                )
            else:
                unknown = True
                rates.append(f"{self.label(n)} unknown")
        parts.append("Prefix-cache hit rates (token-weighted): " + "; ".join(rates) + ".")
        counts_reused = tok.get("reused") == "included" and any(
            k in ("input", "cached_input") for k in count
        )
        if counts_reused and unknown:
            parts.append(
                "Reused input counts as throughput here, so a side with a higher hit "
                "rate looks faster for a reason unrelated to the hardware; with a hit "
                "rate unknown that cannot be checked."
            )
        elif counts_reused and _num(tok.get("hit_rate_margin")):
            gap = self.hit_rate_gap()
            if gap is not None:
                parts.append(Md(gap[:1].upper() + gap[1:]))
            else:
                parts.append(
                    f"The sides may differ by at most {number(tok['hit_rate_margin'] * 100)} "
                    "percentage points before cmpc warns; they do not."
                )
        return Md(" ".join(parts))

    def load_caution(self) -> Md | None:
        """A sentence when the systems ran under different load conditions."""
        load = self.r.get("load")
        if not isinstance(load, dict) or load.get("comparable") is not False:
            return None
        per = load.get("systems") or {}
        parts = [f"{self.label(n)}: {load_text(per[n])}" for n in self.order if per.get(n)]
        return Md(
            "the systems ran under different load conditions ("
            + "; ".join(parts)
            + "), so this is not a like-for-like test"
        )

    def hit_rate_gap(self) -> Md | None:
        """A sentence when counted reused tokens meet hit rates further apart than the margin."""
        tok = self.conditions.get("tokens") or {}
        count = tok.get("count") or []
        if tok.get("reused") != "included" or not any(
            k in ("input", "cached_input") for k in count
        ):
            return None
        rates = {n: (self.systems.get(n) or {}).get("hit_rate") for n in self.order}
        known = {n: r for n, r in rates.items() if _num(r)}
        margin = tok.get("hit_rate_margin")
        if len(known) < 2 or not _num(margin):
            return None
        gap = max(known.values()) - min(known.values())
        if gap <= margin:
            return None
        shown = self.fig.add(
            "tokens.hit_rate_gap",
            "prefix-cache hit-rate gap",
            gap,
            "fraction",
            number(gap * 100, 1),
            source="cmpc",
        )
        return Md(
            f"the sides' hit rates differ by {shown} percentage points, more than the "
            f"{number(margin * 100)}-point margin: counting reused input favours the side that "
            "reuses more, so compare `count uncached_input + output` too."
        )

    def _fn_norm(self) -> Md:
        per = self.per()
        gpus = []
        for n in self.order:
            irs = self.ir_systems.get(n) or {}
            g = _get(self.systems, n, "gpus")
            gpus.append(f"{self.label(n)} {number(g)} GPUs{self._parallel_note(irs)}")
        parts = [f"Normalization {escape(PER.get(per, per))}"]
        if per == "gpu":
            parts[0] += (
                ": each system's throughput divided by its GPU count, counting every "
                "pool (tp \u00d7 pp \u00d7 pcp \u00d7 dp): " + "; ".join(gpus) + "."
            )
        elif per == "dollar":
            parts[0] += (
                ": tokens per dollar = throughput per GPU \u00d7 3600 \u00d7 "
                "utilization / price per GPU-hour. " + "; ".join(gpus) + "."
            )
        elif per in ("mw", "joule"):
            basis = _get(self.conditions, "normalize", "power_basis")
            parts[0] += (
                ": throughput per GPU divided by power per GPU"
                + (f" ({escape(basis)})" if basis else "")
                + ". "
                + "; ".join(gpus)
                + "."
            )
        else:
            parts[0] += (
                ": throughput per GPU times the GPUs per "
                + escape(per)
                + ". "
                + "; ".join(gpus)
                + "."
            )
        return Md(" ".join(parts))

    def _fn_price(self) -> Md:
        cost = self.conditions.get("cost") or {}
        basis = cost.get("per_million") or "total"
        parts = [
            f"Cost per million {escape(basis)} tokens = price per GPU-hour / (throughput "
            "per GPU \u00d7 3600 s \u00d7 utilization) \u00d7 10^6, at utilization "
            f"{percent(cost.get('utilization'))}."
        ]
        prices = []
        for n in self.order:
            p = _get(self.systems, n, "cost", "price", default={})
            if _num(p.get("usd_per_gpu_hour")):
                bits = [f"{self._price_shown(n)} per GPU-hour", f"{escape(p.get('basis'))} basis"]
                if p.get("source"):
                    bits.append(f"source {self.source_title(p['source'])}")
                if p.get("as_of"):
                    bits.append(f"as of {escape(p['as_of'])}")
                prices.append(f"{self.label(n)} " + ", ".join(bits))
            else:
                prices.append(f"{self.label(n)} no price")
        parts.append("Prices: " + "; ".join(prices) + ".")
        h = self.r.get("headline") or {}
        pg = h.get("per_gpu_throughput_ratio")
        if _num(pg):
            eq = 1 / pg
            parts.append(
                f"A throughput ratio r at equal prices is a cost ratio 1/r: "
                f"1 / {ratio(pg)} = {ratio(eq)}, "
                f"{percent(abs(eq - 1))} {'lower' if eq < 1 else 'higher'} cost per "
                "token."
            )
            cr, pr = h.get("cost_ratio"), h.get("price_ratio")
            if _num(cr) and _num(pr):
                parts.append(
                    f"At the declared prices: {ratio(pr)} / {ratio(pg)} = {ratio(cr)}, "
                    f"{percent(abs(cr - 1))} {'lower' if cr < 1 else 'higher'}."
                )
        parts.append("Prices are costs of GPU-hours, never token revenue.")
        return Md(" ".join(parts))

    def _fn_source(self) -> Md:
        groups: dict[tuple, list[str]] = {}
        for n in self.order:
            s = self.systems.get(n) or {}
            key = ("runs", n) if s.get("data") == "runs" else ("reported", s.get("source"))
            groups.setdefault(key, []).append(n)
        parts = []
        for (kind, ref), names in groups.items():
            who = " and ".join(str(self.label(n)) for n in names)
            origin = self.origin(names[0])
            if kind == "runs":
                runs = self.ir_systems.get(names[0], {}).get("runs") or {}
                text = f"{who}: {self._origin_text(names[0])}; file hashes under Data provenance."
                src = self.sources.get(runs.get("source")) or {}
                if src.get("url"):
                    text += f" Source: {link(src.get('title') or runs['source'], src['url'])}."
                parts.append(text)
                continue
            src = self.sources.get(ref) or {}
            bits = [link(src.get("title") or ref or "unknown source", src.get("url"))]
            if src.get("publisher"):
                bits.append(f"publisher {escape(src['publisher'])}")
            if src.get("role"):
                bits.append(escape(ROLES.get(src["role"], src["role"])))
            for k in ("snapshot", "run_date", "retrieved"):
                if src.get(k):
                    bits.append(f"{k.replace('_', ' ')} {escape(src[k])}")
            bits.append(escape((src.get("status") or "unverified").replace("_", "-")))
            if src.get("notes"):
                bits.append(escape(src["notes"]))
            text = f"{who}: {origin} by " + "; ".join(bits)
            for n in names:
                rep = self.ir_systems.get(n, {}).get("reported") or {}
                what = []
                if _num(rep.get("ratio")) and rep.get("ratio_to") and rep["ratio_to"] != n:
                    what.append(f"ratio {ratio(rep['ratio'])} to {self.label(rep['ratio_to'])}")
                if _num(rep.get("throughput")):
                    what.append(
                        f"{number(rep['throughput'])} "
                        f"{escape(rep.get('throughput_unit') or '')}".rstrip()
                    )
                if rep.get("points"):
                    what.append(f"{len(rep['points'])} sweep points")
                if rep.get("notes"):
                    what.append(escape(rep["notes"]))
                if what:
                    text += f". {self.label(n)}: " + ", ".join(what)
            parts.append(text + ". Not measured by cmpc.")
        return Md(" ".join(parts))

    # -- everything ------------------------------------------------------------------------

    def build(self) -> dict:
        """The `report` variable of the templates (documented in docs/templates.md)."""
        headline = self.headline()
        view = {
            "title": escape(self.r.get("title") or "Comparison"),
            "question": escape(self.r["question"]) if self.r.get("question") else None,
            "synthetic": self.synthetic,
            "headline": headline,
            "systems": self.system_views(),
            "comparisons": self.comparison_rows(),
            "iso": self.iso_interactivity(),
            "cost": self.cost_view(),
            "assumptions": self.assumptions(),
            "sensitivity": self.sensitivity(),
            "disclosure": self.disclosure(),
            "claims": self.claims(),
            "claim_combinations": self.claim_combinations(),
            "capacity": self.capacity(),
            "provenance": self.provenance(),
            "footnotes": self.footnotes(),
            "unit": escape(self.unit()),
            "per": escape(PER.get(self.per(), self.per())),
        }
        return view
