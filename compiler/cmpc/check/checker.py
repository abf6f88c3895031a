"""Syntax tree to IR: resolve names, normalize units, fill defaults, enforce the static rules."""

from __future__ import annotations

import datetime
import re

from cmpc.check.values import Field, Reader, listing, suggest
from cmpc.compute import cost
from cmpc.diagnostics import Diagnostic, error, warning
from cmpc.ir import model as ir
from cmpc.language import ranges, units
from cmpc.language import vocabulary as V
from cmpc.limits import Limits
from cmpc.limits import current as current_limits
from cmpc.source import Span
from cmpc.syntax import tree as st
from cmpc.syntax.printer import atom_text

STATISTIC = re.compile(r"^p(\d+(?:\.\d+)?)$")
DEFAULT_MAX_PRICE_AGE_DAYS = 365


def check_spec(spec: st.Spec) -> tuple[ir.Comparison | None, list[Diagnostic], dict[str, Span]]:
    """Check a parsed spec; returns the IR (None on errors), diagnostics and IR-path origins.

    `origins` maps JSON pointers into the IR (`/systems/0/prices/1`) to the source span the
    value came from, so schema errors can point at the spec.
    """
    checker = _Checker()
    comparison = checker.comparison(spec.root)
    errors = any(d.severity == "error" for d in checker.diagnostics)
    return (None if errors else comparison), checker.diagnostics, checker.origins


class _Checker:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.origins: dict[str, Span] = {}
        self.read = Reader(self.diagnostics)

    def fail(self, code: str, message: str, span: Span, **kw) -> None:
        self.diagnostics.append(error(code, message, span, **kw))

    def warn(self, code: str, message: str, span: Span, **kw) -> None:
        self.diagnostics.append(warning(code, message, span, **kw))

    def origin(self, pointer: str, span: Span) -> None:
        self.origins.setdefault(pointer, span)

    # -- the comparison --------------------------------------------------------------------------

    def comparison(self, root: st.Entry) -> ir.Comparison | None:
        top = Field.of(root)
        self.origin("", root.span)
        if root.key.value != "comparison" or root.body is None:
            self.fail(
                "E100",
                f"a spec holds one `comparison` block, found `{root.key.value}`",
                root.key.span,
                label="expected `comparison`",
                help='start the file with: comparison "title" { ... }',
            )
            return None
        head = Field(top.key, top.atoms, top.span, top.key_span)
        title = self.read.text(head, '"Kimi K3: 8x MI355X vs HGX B300"')
        found = self.read.block(top, V.COMPARISON_KEYS)
        one = {k: v[0] for k, v in found.items()}

        sources = tuple(self.source(f, i) for i, f in enumerate(found.get("source", ())))
        self.unique("source", found.get("source", ()))
        source_names = {s.name for s in sources}
        self.source_names = source_names
        self.sources = {s.name: s for s in sources}

        systems_fields = found.get("system", ())
        self.unique("system", systems_fields)
        self.too_many("system", systems_fields, current_limits().systems, "systems")
        self.too_many("claim", found.get("claim", ()), current_limits().claims, "claims")
        system_names = [self.entry_name(f) for f in systems_fields]
        self.system_names = [n for n in system_names if n]

        # A claims audit states published figures without systems: no sides, no constraint.
        audit = not systems_fields and bool(found.get("claim"))
        before = len(self.diagnostics)
        latency = self.latency(one["latency"]) if "latency" in one else ir.Latency()
        self.latency_ok = len(self.diagnostics) == before
        if "latency" not in one and not audit:
            self.fail(
                "E106",
                "the comparison has no `latency` block",
                root.key.span,
                label="every comparison needs a latency constraint",
                help="add e.g. `latency { metric tpot; statistic p90; target 50 tok/s/user }`",
            )
        tokens = self.tokens(one["tokens"]) if "tokens" in one else ir.Tokens()
        normalize = self.normalize(one["normalize"]) if "normalize" in one else ir.Normalization()
        cost = self.cost(one["cost"]) if "cost" in one else ir.Cost()
        systems = []
        for i, f in enumerate(systems_fields):
            system = self.system(f, i, latency, cost)
            if system is not None:
                systems.append(system)
        baseline = None if audit else self.baseline(one.get("baseline"), root)
        if len(systems_fields) < 2 and not audit:
            self.fail(
                "E113",
                f"a comparison needs at least two systems, found {len(systems_fields)}",
                root.key.span,
                label="compares fewer than two systems",
                help="declare each side with `system NAME { ... }`",
                notes=("a spec with claims and no systems at all is a claims audit",),
            )
        self.cross_checks(systems, normalize, cost, tokens, latency, found)
        capacity = self.capacity(one["capacity"]) if "capacity" in one else None
        claims = tuple(
            c
            for c in (self.claim(f, i, normalize) for i, f in enumerate(found.get("claim", ())))
            if c is not None
        )
        self.unique("claim", found.get("claim", ()))
        sensitivity = self.sensitivity(one["sensitivity"], systems) if "sensitivity" in one else ()
        disclosure = self.disclosure(one["disclosure"]) if "disclosure" in one else ()
        question = self.read.text(one["question"]) if "question" in one else None
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
            cost=cost,
            capacity=capacity,
            claims=claims,
            sensitivity=sensitivity,
            disclosure=disclosure,
            synthetic=synthetic,
        )

    def too_many(self, kind: str, fields, limit: int, name: str) -> None:
        if len(fields) > limit:
            self.fail(
                "E123",
                f"the spec declares {len(fields)} {kind}s, more than the limit of {limit}",
                fields[limit].key_span,
                label=f"{kind} number {limit + 1}",
                help=f"split the comparison, or raise {Limits.variable(name)}",
            )

    def entry_name(self, field: Field) -> str | None:
        if len(field.atoms) == 1 and isinstance(field.atoms[0], st.Name):
            return field.atoms[0].value
        self.read.expect(field, "a name", f"my_{field.key} {{ ... }}")
        return None

    def unique(self, kind: str, fields) -> None:
        seen: dict[str, Field] = {}
        for f in fields:
            if len(f.atoms) == 1 and isinstance(f.atoms[0], st.Name):
                name = f.atoms[0].value
                if name in seen:
                    self.fail(
                        "E102",
                        f"{kind} `{name}` is declared twice",
                        f.atoms[0].span,
                        label="declared again here",
                        notes=(f"{kind} names must be unique within a spec",),
                        help=f"rename one of the two `{kind} {name}` blocks",
                    )
                else:
                    seen[name] = f

    def ref(self, atom: st.Atom, kind: str, names, key: str) -> str | None:
        """Resolve a reference to a declared system or source, with a suggestion."""
        code = "E104" if kind == "system" else "E105"
        if not isinstance(atom, st.Name):
            self.fail(code, f"`{key}` expects the name of a {kind}", atom.span)
            return None
        if atom.value in names:
            return atom.value
        close = suggest(atom.value, names)
        self.fail(
            code,
            f"unknown {kind} `{atom.value}`",
            atom.span,
            label="not declared in this spec",
            notes=(
                f"declared {kind}s: {listing(sorted(names))}"
                if names
                else f"no {kind}s are declared",
            ),
            help=f"did you mean `{close}`?"
            if close
            else f"declare it with `{kind} {atom.value} {{ ... }}`",
        )
        return None

    def baseline(self, field: Field | None, root: st.Entry) -> str | None:
        if field is None:
            self.fail(
                "E106",
                "the comparison has no `baseline`",
                root.key.span,
                label="which system do the ratios divide by?",
                help="add `baseline NAME` naming one of the systems",
            )
            return None
        if len(field.atoms) != 1:
            self.read.expect(field, "the name of a system", "b300")
            return None
        self.origin("/baseline", field.span)
        return self.ref(field.atoms[0], "system", self.system_names, "baseline")

    # -- sources -------------------------------------------------------------------------------

    def source(self, field: Field, index: int) -> ir.Source:
        name = self.entry_name(field) or f"source{index}"
        self.origin(f"/sources/{index}", field.span)
        found = self.read.block(field, V.SOURCE_KEYS)
        one = {k: v[0] for k, v in found.items()}
        get = self._getter(one)
        return ir.Source(
            name=name,
            title=get("title", self.read.text),
            role=get("role", lambda f: self.read.word(f, V.ROLES)) or "self",
            snapshot=get("snapshot", self.read.date),
            run_date=get("run_date", self.read.date),
            retrieved=get("retrieved", self.read.date),
            url=get("url", self.read.text),
            status=get("status", lambda f: self.read.word(f, V.STATUSES)) or "unverified",
            publisher=get("publisher", self.read.text),
            notes=get("notes", self.read.text),
        )

    @staticmethod
    def _getter(one: dict[str, Field]):
        def get(key, reader):
            return reader(one[key]) if key in one else None

        return get

    # -- latency -------------------------------------------------------------------------------

    def statistic(self, atom: st.Atom, key: str) -> str | None:
        if not isinstance(atom, st.Name):
            self.fail(
                "E107",
                f"`{key}` expects a statistic (`mean`, `median` or `pNN`)",
                atom.span,
                help=f"write it like `{key} p90`",
            )
            return None
        value = atom.value
        if value in ("mean", "median"):
            return value
        match = STATISTIC.match(value)
        if match is None:
            close = suggest(value, ["mean", "median", "p50", "p90", "p95", "p99"])
            self.fail(
                "E107",
                f"`{value}` is not a statistic",
                atom.span,
                label="expected `mean`, `median` or `pNN`",
                help=f"did you mean `{close}`?" if close else "write a percentile as `p90`",
            )
            return None
        pct = float(match.group(1))
        if not 0 < pct < 100:
            self.fail(
                "E110",
                f"percentile `{value}` is outside (0, 100)",
                atom.span,
                label="must be strictly between p0 and p100",
                help="a far tail is e.g. `p99.9`; the middle is `median`",
            )
            return None
        return "median" if value == "p50" else value

    def one_statistic(self, field: Field) -> str | None:
        if len(field.atoms) != 1:
            self.read.expect(field, "a statistic", "p90")
            return None
        return self.statistic(field.atoms[0], field.key)

    def latency(self, field: Field) -> ir.Latency:
        self.origin("/latency", field.span)
        one = {k: v[0] for k, v in self.read.block(field, V.LATENCY_KEYS).items()}
        metric = self.read.word(one["metric"], V.METRICS) if "metric" in one else "tpot"
        ttft = self.read.word(one["ttft"], V.TTFT_MODES) if "ttft" in one else None
        statistic = self.one_statistic(one["statistic"]) if "statistic" in one else "median"
        read = (
            self.read.word(one["read"], V.READ_METHODS, V.READ_ALIASES)
            if "read" in one
            else "steffen"
        )
        method = (
            self.read.word(one["percentile_method"], V.PERCENTILE_METHODS)
            if "percentile_method" in one
            else "linear"
        )
        metric = metric or "tpot"
        if ttft is None:
            ttft = "included" if metric in ("ttft", "e2el", "e2e_per_token") else "excluded"
        elif metric == "tpot" and ttft == "included":
            self.fail(
                "E107",
                "`tpot` excludes TTFT by definition; `ttft included` contradicts it",
                one["ttft"].value_span,
                label="contradicts `metric tpot`",
                help="use `metric e2e_per_token` for a per-token latency that includes TTFT",
            )
        target = self.target(one["target"], metric) if "target" in one else None
        slo = self.slo(one["slo"]) if "slo" in one else ()
        return ir.Latency(
            slo=slo,
            metric=metric,
            ttft=ttft,
            statistic=statistic or "median",
            target=target,
            read=read or "steffen",
            percentile_method=method or "linear",
        )

    def slo(self, field: Field) -> tuple[tuple[str, float], ...]:
        """`slo ttft 2 s tpot 40 ms`: per-request limits that define goodput."""
        positional, opts = self.read.options(field, V.SLO_OPTIONS)
        if positional or not opts:
            self.read.expect(field, "limits per metric", "ttft 2 s tpot 40 ms")
            return ()
        limits = []
        for metric in V.SLO_OPTIONS:
            if metric in opts:
                got = self.read.quantity(opts[metric][0], units.TIME)
                if got:
                    limits.append((metric, got[0]))
        return tuple(limits)

    def target(self, field: Field, metric: str) -> ir.Target | None:
        self.origin("/latency/target", field.span)
        got = self.read.quantity(field, units.INTERACTIVITY, units.TIME)
        if got is None:
            return None
        value, dimension, atom = got
        if value <= 0:
            self.fail("E107", "the latency target must be positive", atom.span)
            return None
        per_token = metric in V.PER_TOKEN_METRICS
        if dimension == units.INTERACTIVITY and not per_token:
            self.fail(
                "E108",
                f"an interactivity target (tok/s/user) needs a per-token metric, not `{metric}`",
                atom.span,
                label="tok/s/user is 1 / a per-token latency",
                help="give the target as a latency, e.g. `target 2 s`, or use `metric tpot`",
            )
            return None
        if dimension == units.INTERACTIVITY:
            return ir.Target("interactivity", atom.number.value, atom.unit, value, 1000.0 / value)
        latency_ms = value * 1000.0
        interactivity = 1000.0 / latency_ms if per_token else 0.0
        return ir.Target("latency", atom.number.value, atom.unit, interactivity, latency_ms)

    # -- tokens, normalization -----------------------------------------------------------------

    def token_sum(self, atoms, key: str, span: Span) -> tuple[V.TokenKind, ...] | None:
        kinds: list[V.TokenKind] = []
        expect_word = True
        for atom in atoms:
            if expect_word and isinstance(atom, st.Name):
                if atom.value == "total":
                    kinds += ["input", "output"]
                else:
                    kind = self.read.choose(atom, key, V.TOKEN_KINDS)
                    if kind is None:
                        return None
                    kinds.append(kind)
            elif not expect_word and isinstance(atom, st.Symbol) and atom.text == "+":
                pass
            else:
                self.fail(
                    "E107",
                    f"`{key}` expects token kinds joined by `+`",
                    atom.span,
                    help=f"write it like `{key} input + output`",
                )
                return None
            expect_word = not expect_word
        if not kinds or expect_word:
            self.fail("E107", f"`{key}` expects token kinds joined by `+`", span)
            return None
        ordered = tuple(k for k in V.TOKEN_KINDS if k in kinds)
        if "input" in ordered and ("uncached_input" in ordered or "cached_input" in ordered):
            self.fail(
                "E107",
                "`input` already counts cached and uncached input",
                span,
                help="count `input`, or `uncached_input` (+ `cached_input`), not both",
            )
            return None
        return ordered

    def tokens(self, field: Field) -> ir.Tokens:
        self.origin("/tokens", field.span)
        one = {k: v[0] for k, v in self.read.block(field, V.TOKENS_KEYS).items()}
        count: tuple[V.TokenKind, ...] = ("input", "output")
        if "count" in one:
            count = self.token_sum(one["count"].atoms, "count", one["count"].span) or count
        reused = self.read.word(one["reused"], V.REUSED_MODES) if "reused" in one else None
        if reused is None:
            reused = "excluded" if "uncached_input" in count else "included"
        margin = (
            self.read.fraction(one["hit_rate_margin"], allow_zero=True)
            if "hit_rate_margin" in one
            else None
        )
        return ir.Tokens(
            count=count, reused=reused, hit_rate_margin=0.05 if margin is None else margin
        )

    def normalize(self, field: Field) -> ir.Normalization:
        self.origin("/normalize", field.span)
        atoms = list(field.atoms)
        if atoms and isinstance(atoms[0], st.Name) and atoms[0].value == "per":
            atoms = atoms[1:]
        basis = None
        if len(atoms) >= 3 and isinstance(atoms[1], st.Name) and atoms[1].value == "basis":
            basis_atom = atoms[2]
            if isinstance(basis_atom, st.Name):
                basis = self.read.choose(basis_atom, "basis", V.POWER_BASES)
            atoms = atoms[:1] + atoms[3:]
        if len(atoms) != 1 or not isinstance(atoms[0], st.Name):
            self.read.expect(field, "a normalization unit", "per gpu")
            return ir.Normalization()
        per = self.read.choose(atoms[0], "normalize", V.NORMALIZATIONS) or "gpu"
        return ir.Normalization(per=per, power_basis=basis)

    # -- systems -------------------------------------------------------------------------------

    def system(self, field: Field, index: int, latency, cost) -> ir.System | None:
        name = self.entry_name(field)
        if name is None:
            return None
        base = f"/systems/{index}"
        self.origin(base, field.span)
        if field.body is None:
            self.fail(
                "E106",
                f"system `{name}` has no body",
                field.span,
                help=f'describe it: system {name} {{ accelerator "..." x 8 ... }}',
            )
            return None
        found = self.read.block(field, V.SYSTEM_KEYS)
        one = {k: v[0] for k, v in found.items()}
        get = self._getter(one)
        accelerator, count = self.accelerator(one.get("accelerator"))
        memory, usable = self.memory(one.get("memory"))
        engine, version = self.engine(one.get("engine"))
        parallel = self.parallel(one.get("parallel"), f"{base}/parallel")
        prices = tuple(
            p
            for p in (
                self.price(f, f"{base}/prices/{j}") for j, f in enumerate(found.get("price", ()))
            )
            if p is not None
        )
        runs = self.runs(one["runs"], f"{base}/runs") if "runs" in one else None
        reported = (
            self.reported(one["reported"], f"{base}/reported", name) if "reported" in one else None
        )
        if runs is None and reported is None and "runs" not in one and "reported" not in one:
            self.fail(
                "E121",
                f"system `{name}` has no data",
                field.key_span.to(field.atoms[0].span),
                label="neither `runs` nor `reported`",
                help='add `runs "data/NAME/*.json" format vllm` or a `reported { ... }` block',
            )
        if "runs" in one and "reported" in one:
            self.fail(
                "E107",
                f"system `{name}` has both `runs` and `reported` data",
                one["reported"].key_span,
                label="choose one",
                help="measured runs and reported figures cannot be mixed for one system",
            )
        system = ir.System(
            name=name,
            label=get("label", self.read.text) or name,
            accelerator=accelerator,
            count=count,
            nodes=get("nodes", lambda f: self.read.number(f, integer=True)) or 1,
            memory_bytes=memory,
            usable_memory_bytes=usable,
            interconnect=get("interconnect", self.read.text),
            engine=engine,
            engine_version=version,
            image=get("image", self.read.text),
            model=get("model", self.read.text),
            precision=self.precision(one.get("precision")),
            parallel=parallel,
            speculative=self.speculative(one.get("speculative")),
            scheduler=self.scheduler(one.get("scheduler")),
            prices=prices,
            power=self.power(one["power"]) if "power" in one else None,
            tco=self.tco(one["tco"]) if "tco" in one else None,
            cache_hit_rate=get("cache_hit_rate", self.hit_rate),
            cache_hit_rate_unknown=_is_unknown(one.get("cache_hit_rate")),
            runs=runs,
            reported=reported,
            gpus_per_node=get("gpus_per_node", lambda f: self.read.number(f, integer=True)),
            gpus_per_rack=get("gpus_per_rack", lambda f: self.read.number(f, integer=True)),
        )
        self.gpu_count(system, one)
        self.reported_statistic(system, latency, one)
        return system

    def accelerator(self, field: Field | None) -> tuple[str | None, int | None]:
        if field is None:
            return None, None
        positional, opts = self.read.options(field, V.ACCELERATOR_OPTIONS)
        if len(positional) != 1 or not isinstance(positional[0], st.String):
            self.read.expect(field, "a model name", '"AMD Instinct MI355X" x 8')
            return None, None
        count = None
        if "x" in opts:
            count = self.read.number(opts["x"][0], integer=True)
        return positional[0].value, count

    def memory(self, field: Field | None) -> tuple[float | None, float | None]:
        if field is None:
            return None, None
        positional, opts = self.read.options(field, V.MEMORY_OPTIONS)
        nominal = self.read.quantity(
            Field(field.key, positional, field.span, field.key_span), units.BYTES
        )
        usable = self.read.quantity(opts["usable"][0], units.BYTES) if "usable" in opts else None
        return (nominal[0] if nominal else None), (usable[0] if usable else None)

    def engine(self, field: Field | None) -> tuple[str | None, str | None]:
        if field is None:
            return None, None
        positional, opts = self.read.options(field, V.ENGINE_OPTIONS)
        name = None
        if len(positional) == 1 and isinstance(positional[0], st.Name | st.String):
            name = positional[0].value
        else:
            self.read.expect(field, "an engine name", 'vllm version "0.11.0"')
        version = None
        if "version" in opts:
            f = opts["version"][0]
            if len(f.atoms) == 1 and isinstance(f.atoms[0], st.String | st.Name | st.Number):
                atom = f.atoms[0]
                version = atom.text if isinstance(atom, st.Number) else atom.value
            else:
                self.read.expect(f, "a version", '"0.11.0"')
        return name, version

    def pairs(self, field: Field | None, allowed) -> tuple[tuple[str, str], ...]:
        if field is None:
            return ()
        positional, opts = self.read.options(field, allowed)
        out = []
        if positional:
            first = next(iter(allowed))
            out.append((first, " ".join(_atom_text(a) for a in positional)))
        for key, fields in opts.items():
            out.append((key, " ".join(_atom_text(a) for a in fields[0].atoms)))
        return tuple(out)

    def precision(self, field):
        return self.pairs(field, V.PRECISION_OPTIONS)

    def speculative(self, field):
        if field is None:
            return ()
        positional, opts = self.read.options(field, V.SPECULATIVE_OPTIONS)
        out = [("method", " ".join(_atom_text(a) for a in positional) or "none")]
        out += [(k, " ".join(_atom_text(a) for a in v[0].atoms)) for k, v in opts.items()]
        return tuple(out)

    def scheduler(self, field: Field | None) -> tuple[tuple[str, str], ...]:
        """Free-form scheduler parameters: `key value` pairs, inline or in a body."""
        if field is None:
            return ()
        out = []
        atoms = list(field.atoms)
        while atoms:
            key = atoms.pop(0)
            if not isinstance(key, st.Name) or not atoms:
                self.read.expect(field, "`name value` pairs", "max_num_seqs 256")
                return ()
            out.append((key.value, _atom_text(atoms.pop(0))))
        for entry in field.body or ():
            out.append((entry.key.value, " ".join(_atom_text(a) for a in entry.atoms)))
        return tuple(out)

    def parallel(self, field: Field | None, pointer: str) -> ir.Parallelism:
        if field is None:
            return ir.Parallelism()
        self.origin(pointer, field.span)
        positional, opts = self.read.options(field, V.PARALLEL_OPTIONS)
        if positional:
            self.read.expect(field, "`tp`/`pp`/`ep`/`dp`/`dcp`/`pcp` degrees", "tp 8 dcp 8")
        degrees = self.degrees(opts)
        pools = []
        for role in ("prefill", "decode"):
            if role in opts:
                _, pool_opts = self.read.options(opts[role][0], V.POOL_OPTIONS)
                d = self.degrees(pool_opts)
                workers = 1
                if "workers" in pool_opts:
                    workers = self.read.number(pool_opts["workers"][0], integer=True) or 1
                gpus = cost.Pool(d["tp"], d["pp"], d["pcp"], workers * d["dp"]).gpus
                pools.append(ir.Pool(role=role, workers=workers, gpus=gpus, **d))
        if pools:
            gpus = sum(p.gpus for p in pools)
        else:
            # dp replicas are workers of one pool; dcp, ep and dp_attention add no GPU
            gpus = cost.Pool(degrees["tp"], degrees["pp"], degrees["pcp"], degrees["dp"]).gpus
        return ir.Parallelism(**degrees, pools=tuple(pools), gpus=gpus, declared=True)

    def degrees(self, opts: dict[str, list[Field]]) -> dict:
        out: dict = {}
        for key in ("tp", "pp", "ep", "dp", "dcp", "pcp"):
            value = self.read.number(opts[key][0], integer=True) if key in opts else None
            out[key] = value or 1
        flag = opts.get("dp_attention")
        out["dp_attention"] = False
        if flag:
            atoms = flag[0].atoms
            value = atoms[0].value if len(atoms) == 1 and isinstance(atoms[0], st.Name) else None
            if not atoms or value in ("true", "on", "yes"):
                out["dp_attention"] = True
            elif value not in ("false", "off", "no"):
                self.read.expect(flag[0], "`true` or `false`", "true")
        return out

    def gpu_count(self, system: ir.System, one: dict[str, Field]) -> None:
        """The declared accelerator count must equal what the parallel layout uses."""
        p = system.parallel
        if not p.declared or system.count is None:
            return
        replicas = system.count / p.gpus if p.gpus else 0
        if system.count == p.gpus:
            return
        rule = "tp·pp·pcp·dp" if not p.pools else "Σ workers·tp·pp·pcp·dp over the pools"
        self.fail(
            "E114",
            f"system `{system.name}` declares {system.count} GPUs but its parallel layout uses "
            f"{p.gpus}",
            one["parallel"].span,
            label=f"{rule} = {p.gpus}",
            notes=(
                "dcp, ep and dp_attention add no GPUs; dp replicas and pools do",
                f"accelerator count: {system.count}"
                + (
                    f" ({replicas:g} replicas?)"
                    if replicas == int(replicas) and replicas > 1
                    else ""
                ),
            ),
            help=(
                f"add `dp {replicas:g}` if the {system.count} GPUs run {replicas:g} replicas"
                if replicas == int(replicas) and replicas > 1
                else "make the accelerator count match the parallel layout"
            ),
        )

    def price(self, field: Field, pointer: str) -> ir.Price | None:
        self.origin(pointer, field.span)
        positional, opts = self.read.options(field, V.PRICE_OPTIONS)
        got = self.read.quantity(
            Field(field.key, positional, field.span, field.key_span), units.GPU_HOUR_PRICE
        )
        basis = self.read.word(opts["basis"][0], V.PRICE_BASES) if "basis" in opts else None
        if "basis" not in opts:
            self.fail(
                "E106",
                "a price needs a `basis`",
                field.key_span,
                label="on-demand, rental, owning, revenue ...?",
                notes=(f"bases: {listing(V.PRICE_BASES)}",),
                help="add e.g. `basis owning`",
            )
        if basis == "revenue":
            self.fail(
                "E115",
                "a revenue price cannot be used as a cost",
                opts["basis"][0].value_span,
                label="token revenue, not infrastructure cost",
                notes=(
                    "revenue per GPU-hour is what tokens sell for; cost per token needs what the "
                    "GPU-hour costs",
                ),
                help="state the figure as a `claim { kind revenue ... }`, or give a cost basis",
            )
            return None
        scenario: str | None = basis
        if "scenario" in opts:
            atoms = opts["scenario"][0].atoms
            if len(atoms) == 1 and isinstance(atoms[0], st.Name):
                scenario = atoms[0].value
            else:
                self.read.expect(opts["scenario"][0], "a scenario name", "owning")
        source = self.source_ref(opts["source"][0]) if "source" in opts else None
        as_of = self.read.date(opts["as_of"][0]) if "as_of" in opts else None
        if got is None or basis is None:
            return None
        return ir.Price(scenario or basis, got[0], basis, source, as_of)

    def power(self, field: Field) -> ir.Power | None:
        positional, opts = self.read.options(field, V.POWER_OPTIONS)
        got = self.read.quantity(
            Field(field.key, positional, field.span, field.key_span), units.POWER
        )
        basis = self.read.word(opts["basis"][0], V.POWER_BASES) if "basis" in opts else None
        if "basis" not in opts:
            self.fail(
                "E122",
                "a power figure needs a `basis`",
                field.key_span,
                label="measured, tdp or provisioned?",
                help="add e.g. `basis provisioned` (all-in kW per GPU) or `basis measured`",
            )
        source = self.source_ref(opts["source"][0]) if "source" in opts else None
        if got is None or basis is None:
            return None
        return ir.Power(got[0], basis, source)

    def tco(self, field: Field) -> ir.Tco | None:
        one = {k: v[0] for k, v in self.read.block(field, V.TCO_KEYS).items()}

        def q(key, dim):
            got = self.read.quantity(one[key], dim) if key in one else None
            return got[0] if got else None

        capex = q("capex", units.MONEY_PER_GPU)
        years = self.read.number(one["years"], ranges.YEARS) if "years" in one else None
        for key in ("capex", "years"):
            if key not in one:
                self.fail(
                    "E106",
                    f"a `tco` block needs `{key}`",
                    field.key_span,
                    help="e.g. `tco { capex 45000 USD/gpu; years 5; power 1.4 kW; pue 1.3; ... }`",
                )
        power = q("power", units.POWER)
        electricity = q("electricity", units.ENERGY_PRICE)
        if (power is None) != (electricity is None):
            self.fail(
                "E106",
                "`tco` needs both `power` and `electricity` to cost energy",
                field.key_span,
                help="add the missing one, e.g. `electricity 0.10 USD/kWh`",
            )
        if capex is None or years is None:
            return None
        return ir.Tco(
            capex_usd_per_gpu=capex,
            years=years,
            power_watts=power,
            pue=self.read.number(one["pue"], ranges.PUE) if "pue" in one else 1.0,
            electricity_usd_per_kwh=electricity,
            hosting_usd_per_gpu_hour=q("hosting", units.GPU_HOUR_PRICE) or 0.0,
            ops_usd_per_gpu_hour=q("ops", units.GPU_HOUR_PRICE) or 0.0,
            source=self.source_ref(one["source"]) if "source" in one else None,
            as_of=self.read.date(one["as_of"]) if "as_of" in one else None,
        )

    def runs(self, field: Field, pointer: str) -> ir.Runs | None:
        self.origin(pointer, field.span)
        positional, opts = self.read.options(field, V.RUNS_OPTIONS)
        if len(positional) != 1 or not isinstance(positional[0], st.String):
            self.read.expect(field, "a file glob", '"data/mi355x/*.json" format vllm')
            return None
        glob = positional[0].value
        if _escapes(glob):
            self.fail(
                "E119",
                f"run glob `{glob}` reaches outside the spec's folder",
                positional[0].span,
                label="absolute, or climbs out with `..`",
                notes=("a spec may read only files in its own folder tree",),
                help="copy the files under the spec's folder and use a relative glob",
            )
            return None
        fmt = self.read.word(opts["format"][0], V.FORMATS) if "format" in opts else None
        source = None
        if "source" in opts:
            atoms = opts["source"][0].atoms
            if len(atoms) == 1:
                source = self.ref(atoms[0], "source", self.source_names, "source")
            else:
                self.read.expect(opts["source"][0], "the name of a source", "my_lab")
        where = []
        if "where" in opts:
            atoms = list(opts["where"][0].atoms)
            if len(atoms) % 2 or not all(isinstance(a, st.Name) for a in atoms[::2]):
                self.read.expect(opts["where"][0], "`field value` pairs", "where tp 8")
            else:
                where = [
                    (a.value, _atom_text(b)) for a, b in zip(atoms[::2], atoms[1::2], strict=True)
                ]
        return ir.Runs(glob=glob, format=fmt, where=tuple(where), source=source)

    def reported(self, field: Field, pointer: str, system: str) -> ir.Reported | None:
        self.origin(pointer, field.span)
        found = self.read.block(field, V.REPORTED_KEYS)
        one = {k: v[0] for k, v in found.items()}
        source = None
        if "source" not in one:
            self.fail(
                "E106",
                "reported figures need a `source`",
                field.key_span,
                label="who published these figures?",
                help="add `source NAME` naming a declared `source` block",
            )
        elif len(one["source"].atoms) == 1:
            source = self.ref(one["source"].atoms[0], "source", self.source_names, "source")
        else:
            self.read.expect(one["source"], "the name of a source", "inferencex")
        statistic = self.one_statistic(one["statistic"]) if "statistic" in one else None
        throughput = unit = at = None
        if "throughput" in one:
            positional, opts = self.read.options(one["throughput"], V.THROUGHPUT_OPTIONS)
            got = self.read.quantity(
                Field("throughput", positional, one["throughput"].span, one["throughput"].key_span),
                units.TOKEN_RATE_PER_GPU,
                units.TOKEN_RATE_PER_NODE,
                units.TOKEN_RATE,
            )
            if got:
                throughput, unit = got[0], got[1].canonical
            if "at" in opts:
                at_got = self.read.quantity(opts["at"][0], units.INTERACTIVITY)
                at = at_got[0] if at_got else None
        ratio = ratio_to = None
        if "ratio" in one:
            positional, opts = self.read.options(one["ratio"], V.RATIO_OPTIONS)
            if len(positional) == 1 and isinstance(positional[0], st.Number):
                ratio = self.read.number_atom(positional[0], "ratio", ranges.RATIO)
            else:
                self.read.expect(one["ratio"], "a number", "1.244 to b300")
            if "to" in opts and len(opts["to"][0].atoms) == 1:
                ratio_to = self.ref(opts["to"][0].atoms[0], "system", self.system_names, "to")
            elif ratio is not None and ratio != 1:
                self.fail(
                    "E106",
                    "a reported ratio needs `to SYSTEM`",
                    one["ratio"].span,
                    help="e.g. `ratio 1.244 to b300`",
                )
            else:
                ratio_to = system
        points = []
        for f in found.get("point", ()):
            positional, opts = self.read.options(f, V.POINT_OPTIONS)
            if len(positional) == 2 and all(isinstance(a, st.Quantity) for a in positional):
                x = self.read.quantity_atom(positional[0], "point", (units.INTERACTIVITY,))
                y = self.read.quantity_atom(
                    positional[1],
                    "point",
                    (units.TOKEN_RATE_PER_GPU, units.TOKEN_RATE_PER_NODE, units.TOKEN_RATE),
                )
                conc = self.read.number(opts["conc"][0], ranges.RATIO) if "conc" in opts else None
                if x and y:
                    points.append(ir.ReportedPoint(x[0], y[0], conc, y[1].canonical))
            else:
                self.read.expect(
                    f, "an interactivity and a throughput", "45 tok/s/user 6115 tok/s/gpu conc 8"
                )
        if throughput is None and ratio is None and not points:
            self.fail(
                "E106",
                "reported data need a `throughput`, a `ratio` or `point`s",
                field.key_span,
                help="e.g. `ratio 1.244 to b300` or `throughput 2600 tok/s/gpu at 50 tok/s/user`",
            )
        get = self._getter(one)
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
            cache_hit_rate=get("cache_hit_rate", lambda f: self.read.fraction(f, allow_zero=True)),
            input_share=get("input_share", lambda f: self.read.fraction(f, allow_zero=True)),
            notes=get("notes", self.read.text),
        )

    def reported_statistic(self, system: ir.System, latency: ir.Latency, one) -> None:
        """Reported figures carry one statistic; asking another of them cannot be answered."""
        rep = system.reported
        if rep is None or rep.statistic is None or rep.statistic == latency.statistic:
            return
        if not self.latency_ok:  # the latency block's own error explains the mismatch
            return
        self.fail(
            "E118",
            f"the latency statistic is `{latency.statistic}`, but `{system.name}`'s reported "
            f"figures are at `{rep.statistic}`",
            one["reported"].key_span,
            label=f"reported at `{rep.statistic}`",
            notes=("reported values cannot be re-aggregated into another statistic",),
            help=f"use `statistic {rep.statistic}` in `latency`, or measured runs",
        )

    def source_ref(self, field: Field) -> str | None:
        """A `source` option: a declared source's name, or a free-text string."""
        atoms = field.atoms
        if len(atoms) == 1 and isinstance(atoms[0], st.Name):
            return self.ref(atoms[0], "source", self.source_names, "source")
        return self.read.text(field, '"SemiAnalysis AI Cloud TCO model"')

    def hit_rate(self, field: Field) -> float | None:
        """A declared prefix-cache hit rate, or None for `unknown`."""
        if _is_unknown(field):
            return None
        return self.read.fraction(field, allow_zero=True)

    # -- cost, cross-system rules --------------------------------------------------------------

    def cost(self, field: Field) -> ir.Cost:
        self.origin("/cost", field.span)
        one = {k: v[0] for k, v in self.read.block(field, V.COST_KEYS).items()}
        utilization = self.read.fraction(one["utilization"]) if "utilization" in one else None
        per = self.read.word(one["per_million"], V.COST_BASES) if "per_million" in one else "total"
        blend_in = blend_out = None
        if "blend" in one:
            _, opts = self.read.options(one["blend"], V.BLEND_OPTIONS)
            blend_in = self.read.number(opts["input"][0], ranges.RATIO) if "input" in opts else None
            blend_out = (
                self.read.number(opts["output"][0], ranges.RATIO) if "output" in opts else None
            )
        if per == "blended" and (blend_in is None or blend_out is None):
            self.fail(
                "E106",
                "`per_million blended` needs `blend input N output M`",
                one["per_million"].span,
                help="e.g. `blend input 3 output 1` (Artificial Analysis' 3:1)",
            )
        scenario = None
        if "scenario" in one:
            atoms = one["scenario"].atoms
            if len(atoms) == 1 and isinstance(atoms[0], st.Name):
                scenario = atoms[0].value
            else:
                self.read.expect(one["scenario"], "a price scenario", "owning")
        self.max_price_age = DEFAULT_MAX_PRICE_AGE_DAYS
        if "max_price_age" in one:
            got = self.read.quantity(one["max_price_age"], units.TIME)
            if got:
                self.max_price_age = got[0] / 86400
        self.cost_scenario_field = one.get("scenario")
        return ir.Cost(
            utilization=utilization or 1.0,
            per_million=per or "total",
            blend_input=blend_in,
            blend_output=blend_out,
            scenario=scenario,
        )

    def cross_checks(self, systems, normalize, cost, tokens, latency, found) -> None:
        system_fields = {s.name: f for s, f in zip(systems, found.get("system", ()), strict=False)}
        if normalize.per == "dollar":
            for s in systems:
                if not s.prices and s.tco is None:
                    self.fail(
                        "E117",
                        f"per-dollar normalization needs a price on every system; "
                        f"`{s.name}` has none",
                        found["normalize"][0].span,
                        label="normalizes per dollar",
                        notes=(f"system `{s.name}` declares no `price` and no `tco`",),
                        help=f"add `price N USD/gpu/h basis ...` to system `{s.name}`",
                    )
        if normalize.per in ("mw", "joule"):
            for s in systems:
                if s.power is None:
                    self.fail(
                        "E122",
                        f"per-{normalize.per} normalization needs power on every system; "
                        f"`{s.name}` has none",
                        found["normalize"][0].span,
                        help=f"add `power N kW basis provisioned` to system `{s.name}`",
                    )
        scenario = cost.scenario
        if scenario == "tco":
            for s in systems:
                if s.tco is None:
                    self.fail(
                        "E105",
                        f"cost scenario `tco` needs a `tco` block on every system; "
                        f"`{s.name}` has none",
                        self.cost_scenario_field.value_span,
                        help=f"add `tco {{ capex ...; years ... }}` to system `{s.name}`",
                    )
        elif scenario is not None:
            for s in systems:
                if s.prices and scenario not in {p.scenario for p in s.prices}:
                    self.fail(
                        "E105",
                        f"system `{s.name}` has no price for scenario `{scenario}`",
                        self.cost_scenario_field.value_span,
                        notes=(f"its scenarios: {listing(p.scenario for p in s.prices)}",),
                    )
        if tokens.reused == "included" and any(
            k in ("input", "cached_input") for k in tokens.count
        ):
            for s in systems:
                declared = (
                    s.cache_hit_rate is not None
                    or s.cache_hit_rate_unknown
                    or (s.reported is not None and s.reported.cache_hit_rate is not None)
                )
                if s.reported is not None and not declared:
                    self.warn(
                        "W131",
                        f"reused input tokens count, but `{s.name}`'s cache hit rate "
                        "is not declared",
                        system_fields[s.name].key_span,
                        label="reported data carry no measured hit rate",
                        help="add `cache_hit_rate N%` to the system, or `cache_hit_rate unknown` "
                        "to state that it was not published",
                    )
        self.price_ages(systems, system_fields)

    def price_ages(self, systems, system_fields) -> None:
        """Warn when a price is older than the data it prices by more than the allowed age."""
        for s in systems:
            data_date = None
            if s.reported is not None:
                src = self.sources.get(s.reported.source)
                data_date = src and (src.snapshot or src.run_date)
            if data_date is None:
                continue
            for p in s.prices:
                if p.as_of is None:
                    continue
                age = (
                    datetime.date.fromisoformat(data_date) - datetime.date.fromisoformat(p.as_of)
                ).days
                if age > getattr(self, "max_price_age", DEFAULT_MAX_PRICE_AGE_DAYS):
                    self.warn(
                        "W130",
                        f"`{s.name}`'s {p.scenario} price ({p.as_of}) is {age} days older than "
                        f"its data ({data_date})",
                        system_fields[s.name].key_span,
                        help="use a price from the data's time, or raise `cost { max_price_age }`",
                    )

    # -- capacity, claims, sensitivity, disclosure -------------------------------------------

    def capacity(self, field: Field) -> ir.Capacity:
        self.origin("/capacity", field.span)
        one = {k: v[0] for k, v in self.read.block(field, V.CAPACITY_KEYS).items()}

        def integer(key):
            return self.read.number(one[key], integer=True) if key in one else None

        weights = None
        if "weights" in one:
            got = self.read.quantity(one["weights"], units.BYTES)
            weights = got[0] if got else None
        context = None
        if "context" in one:
            f = one["context"]
            if len(f.atoms) == 1 and isinstance(f.atoms[0], st.Quantity):
                got = self.read.quantity(f, units.TOKEN_COUNT)
                context = int(got[0]) if got else None
            else:
                context = integer("context")
        dtype = lambda key: self.read.word(one[key], V.DTYPES) if key in one else None  # noqa: E731
        if "params" in one and "weight_dtype" not in one and weights is None:
            self.fail(
                "E106",
                "`capacity` gives `params` but not `weight_dtype`",
                one["params"].key_span,
                help="add e.g. `weight_dtype fp8`, or give `weights N GB` directly",
            )
        if weights is None and "params" not in one:
            self.fail(
                "E106",
                "`capacity` needs `weights N GB` or `params N` with `weight_dtype`",
                field.key_span,
            )
        if "latent_dim" not in one and not ("kv_heads" in one and "head_dim" in one):
            self.fail(
                "E106",
                "`capacity` needs `kv_heads` and `head_dim`, or `latent_dim`, to size the KV cache",
                field.key_span,
            )
        if "layers" not in one:
            self.fail("E106", "`capacity` needs `layers`", field.key_span)
        reserve = self.read.fraction(one["reserve"], allow_zero=True) if "reserve" in one else 0.0
        if reserve == 1:  # a card with no memory left holds nothing
            self.fail(
                "E111",
                "`reserve` is 100%, outside [0, 100%)",
                one["reserve"].value_span,
                label="leaves no memory to use",
            )
        return ir.Capacity(
            weight_bytes=weights,
            params=self.read.number(one["params"], ranges.PARAMS) if "params" in one else None,
            weight_dtype=dtype("weight_dtype"),
            layers=integer("layers"),
            kv_heads=integer("kv_heads"),
            head_dim=integer("head_dim"),
            latent_dim=integer("latent_dim"),
            rope_dim=integer("rope_dim"),
            kv_dtype=dtype("kv_dtype") or "bf16",
            context_tokens=context,
            concurrency=integer("concurrency") or 1,
            reserve=reserve or 0.0,
        )

    def claim(self, field: Field, index: int, normalize) -> ir.Claim | None:
        name = self.entry_name(field)
        pointer = f"/claims/{index}"
        self.origin(pointer, field.span)
        one = {k: v[0] for k, v in self.read.block(field, V.CLAIM_KEYS).items()}
        if "value" not in one:
            self.fail(
                "E106",
                "a claim needs a `value`",
                field.key_span,
                help="e.g. `value 155e12 tokens/day`",
            )
            return None
        f = one["value"]
        if len(f.atoms) != 1 or not isinstance(f.atoms[0], st.Quantity):
            self.read.expect(f, "a quantity", "155e12 tokens/day")
            return None
        atom = f.atoms[0]
        found = units.lookup(atom.unit)
        # an unknown unit is E109; a known one is checked as a value of its own dimension
        dims = (found[0],) if found else (units.TOKEN_RATE,)
        if self.read.quantity_atom(atom, "value", dims) is None or found is None:
            return None
        dimension, factor = found
        get = self._getter(one)
        kind = get("kind", lambda f: self.read.word(f, V.CLAIM_KINDS))
        if kind is None:
            kind = "revenue" if dimension == units.GPU_HOUR_PRICE else "volume"
        scope = (self.read.word(one["scope"], V.SCOPES) if "scope" in one else None) or "cluster"
        source = None
        if "source" in one and len(one["source"].atoms) == 1:
            source = self.ref(one["source"].atoms[0], "source", self.source_names, "source")
        compare_to = None
        if "compare_to" in one and len(one["compare_to"].atoms) == 1:
            compare_to = self.ref(
                one["compare_to"].atoms[0], "system", self.system_names, "compare_to"
            )
        gpus = get("gpus", lambda f: self.read.number(f, integer=True))
        nodes = get("nodes", lambda f: self.read.number(f, integer=True))
        if compare_to is not None:
            self.claim_scope(name, scope, normalize, gpus, nodes, one["compare_to"], kind)
        period = None
        if "period" in one:
            period = " ".join(_atom_text(a) for a in one["period"].atoms)
        return ir.Claim(
            name=name or f"claim{index}",
            value=atom.number.value,
            unit=atom.unit,
            dimension=dimension.name,
            canonical_value=atom.number.value * factor,
            canonical_unit=dimension.canonical,
            kind=kind,
            scope=scope,
            period=period,
            source=source,
            status=get("status", lambda f: self.read.word(f, V.STATUSES)) or "unverified",
            about=get("about", self.read.text),
            gpus=gpus,
            nodes=nodes,
            compare_to=compare_to,
        )

    def claim_scope(self, name, scope, normalize, gpus, nodes, field, kind) -> None:
        """A claim compared with per-unit figures must carry the facts that convert its scope."""
        if kind == "revenue":
            self.fail(
                "E115",
                f"claim `{name}` is revenue and cannot be compared with cost or throughput",
                field.value_span,
                label="revenue, not cost",
                help="keep the claim as a stated figure; remove `compare_to`",
            )
            return
        per = normalize.per
        if scope == per:
            return
        missing = None
        if per == "gpu" and gpus is None:
            missing = "gpus"
        elif per == "node" and nodes is None:
            missing = "nodes"
        elif per not in ("gpu", "node"):
            missing = "a conversion"
        if missing:
            self.fail(
                "E116",
                f"claim `{name}` is per {scope} but is compared per {per}",
                field.value_span,
                label=f"needs the {scope}'s `{missing}` to convert",
                notes=(f"a per-{per} figure needs the number of {per}s in the {scope}",),
                help=f"add `{missing} N` to the claim, or drop `compare_to`",
            )

    def sensitivity(self, field: Field, systems) -> tuple[ir.SensitivityAxis, ...]:
        self.origin("/sensitivity", field.span)
        found = self.read.block(field, V.SENSITIVITY_KEYS)
        axes = []
        for key, fields in found.items():
            assert V.is_word(key, V.SENSITIVITY_PARAMETERS)  # block() keeps only these keys
            f = fields[0]
            alts = []
            for alt in f.alternatives:
                value = self.sensitivity_value(key, alt, systems)
                if value is not None:
                    alts.append(ir.Alternative(" ".join(_atom_text(a) for a in alt.atoms), value))
            axes.append(ir.SensitivityAxis(key, tuple(alts)))
        return tuple(axes)

    def sensitivity_value(self, key: str, alt: st.Alternative, systems):
        sub = Field(key, alt.atoms, alt.span, alt.span)
        if key == "tokens":
            return list(self.token_sum(alt.atoms, key, alt.span) or ()) or None
        if key == "statistic":
            if len(alt.atoms) != 1:
                self.read.expect(sub, "a statistic", "p50 | p90")
                return None
            stat = self.statistic(alt.atoms[0], key)
            for s in systems:
                rep = s.reported
                if stat and rep is not None and rep.statistic and rep.statistic != stat:
                    self.fail(
                        "E118",
                        f"sensitivity asks `{stat}` of `{s.name}`, whose reported figures are at "
                        f"`{rep.statistic}`",
                        alt.span,
                        notes=("reported values cannot be re-aggregated into another statistic",),
                        help=f"drop `{stat}` from the alternatives",
                    )
                    return None
            return stat
        if key == "utilization":
            return self.read.fraction(sub)
        if key == "read":
            return self.read.word(sub, V.READ_METHODS, V.READ_ALIASES)
        if key == "normalize":
            return self.read.word(sub, V.NORMALIZATIONS)
        if key == "target":
            got = self.read.quantity(sub, units.INTERACTIVITY, units.TIME)
            if got is None:
                return None
            value, dim, _ = got
            return value if dim == units.INTERACTIVITY else 1.0 / value
        if key == "price":
            if len(alt.atoms) != 1 or not isinstance(alt.atoms[0], st.Name):
                self.read.expect(sub, "a price scenario", "owning | rental")
                return None
            scenario = alt.atoms[0].value
            if scenario == "tco":
                lacking = [s.name for s in systems if s.tco is None]
                if lacking:
                    self.fail(
                        "E105",
                        f"price scenario `tco` needs a `tco` block on {listing(lacking)}",
                        alt.span,
                    )
                    return None
                return scenario
            known = {p.scenario for s in systems for p in s.prices}
            missing = [
                s.name
                for s in systems
                if s.prices and scenario not in {p.scenario for p in s.prices}
            ]
            if missing:
                close = suggest(scenario, known)
                self.fail(
                    "E105",
                    f"price scenario `{scenario}` is missing on {listing(missing)}",
                    alt.span,
                    notes=(f"declared scenarios: {listing(sorted(known))}",),
                    help=f"did you mean `{close}`?"
                    if close
                    else "declare it with `price ... scenario NAME`",
                )
                return None
            return scenario
        return None

    def disclosure(self, field: Field) -> tuple[tuple[str, str], ...]:
        self.origin("/disclosure", field.span)
        found = self.read.block(field, dict.fromkeys(V.CHECKLIST, False))
        out = []
        for key, fields in found.items():
            value = self.read.text(fields[0], '"closed loop, concurrency 1-70"')
            if value is not None:
                out.append((key, value))
        return tuple(sorted(out))


def _is_unknown(field: Field | None) -> bool:
    atoms = field.atoms if field else ()
    return len(atoms) == 1 and isinstance(atoms[0], st.Name) and atoms[0].value == "unknown"


def _atom_text(atom: st.Atom) -> str:
    return atom.value if isinstance(atom, st.String) else atom_text(atom)


def _escapes(glob: str) -> bool:
    """True when a run glob is absolute or has a `..` segment anywhere.

    Any `..`, not only one that climbs out once normalized: `**/..` normalizes away, yet the walk
    lists the parent of every folder it meets, the same files under ever longer names.
    """
    if glob.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:", glob):
        return True
    return ".." in glob.replace("\\", "/").split("/")
