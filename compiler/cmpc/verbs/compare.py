"""The `cmpc compare` verb: two run files, no spec; the headline, and the spec it would take."""

from __future__ import annotations

import datetime
import glob
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cmpc.build.pipeline import build_spec
from cmpc.diagnostics import Diagnostic, error, has_errors
from cmpc.files import display_path
from cmpc.language.vocabulary import METRICS
from cmpc.outcome import Outcome
from cmpc.report.latency_unit import MS, along_latency
from cmpc.report.text import number, usd
from cmpc.report.words import latency_name
from cmpc.safe_text import terminal_text
from cmpc.safefs import create_file
from cmpc.source import SourceFile
from cmpc.syntax.parser import parse_spec
from cmpc.syntax.printer import format_spec
from cmpc.traces import detect

MAX_FILES = 10_000  # per side: a first look, not a fleet corpus
HEAD_BYTES = 64 << 10  # what format detection reads of each file
_TARGET = re.compile(r"\d+(\.\d+)?\s*(tok/s/user|ms|s)")
_STATISTIC = re.compile(r"median|mean|p\d{1,2}(\.\d{1,3})?")
_TOKENS = re.compile(r"(input|output)(\s*\+\s*(input|output))?")
_PRICE = re.compile(r"\d+(\.\d+)?")
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class CompareRequest:
    """What the command line says: two sides' files and the facts a comparison needs."""

    a: str
    b: str
    gpus_a: int | None = None
    gpus_b: int | None = None
    trace_format: str | None = None
    target: str | None = None
    statistic: str | None = None
    metric: str | None = None
    tokens: str | None = None
    price_a: str | None = None
    price_b: str | None = None


@dataclass(frozen=True)
class Side:
    """One side: its name in the spec, its files, the glob the spec reads them with."""

    name: str
    given: str
    files: tuple[str, ...]
    glob: str
    format: str
    gpus: int
    price: str | None


def compare_runs(request: CompareRequest, *, save_spec: str | None = None) -> Outcome:
    """Build the equivalent spec in memory and print its headline; `save_spec` writes the spec."""
    folder = Path(save_spec).resolve().parent if save_spec else None
    spec_text, spec_dir, problems = equivalent_spec(request, folder)
    if spec_text is None or spec_dir is None:
        return Outcome(diagnostics=tuple(problems), checked=2)
    spec_name = Path(save_spec).name if save_spec else "compare.cmp"
    results, report, outcome = build_equivalent(spec_text, spec_dir / spec_name)
    if results is None:
        return outcome
    text = render_terminal(results, report)
    diagnostics = list(outcome.diagnostics)
    if save_spec:
        try:
            create_file(Path(save_spec), spec_text.encode("utf-8"))
        except OSError as exc:
            reason = "it already exists" if isinstance(exc, FileExistsError) else exc.strerror
            diagnostics.append(
                error(
                    "E090",
                    f"cannot write spec: {reason}",
                    file=display_path(save_spec),
                    help="choose a new file name; cmpc compare never overwrites a file",
                )
            )
        else:
            text += (
                f"\nwrote {terminal_text(display_path(save_spec))}: fill in its TODOs, then "
                f"`cmpc build {terminal_text(display_path(save_spec))}`\n"
            )
    return Outcome(stdout=text, diagnostics=tuple(diagnostics), sources=outcome.sources, checked=2)


def build_equivalent(spec_text: str, spec_path: Path) -> tuple[dict[str, Any] | None, str, Outcome]:
    """Build the spec text as if it were at `spec_path` (without the cache, into a temporary
    folder); its results.json and report.md, and the build's outcome."""
    scratch = Path(tempfile.mkdtemp(prefix="cmpc-compare-"))
    try:
        out = scratch / "build"
        outcome = build_spec(str(spec_path), out_dir=str(out), text=spec_text, use_cache=False)
        if has_errors(outcome.diagnostics):
            return None, "", outcome
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        report = (out / "report.md").read_text(encoding="utf-8")
        return results, report, outcome
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The equivalent spec


def equivalent_spec(
    request: CompareRequest, folder: Path | None
) -> tuple[str | None, Path | None, list[Diagnostic]]:
    """The formatted spec text and the folder it reads its runs from (`folder`, or the deepest
    folder holding both sides' files), or diagnostics saying what is missing."""
    problems = _check_facts(request)
    if problems:
        return None, None, problems
    matched: list[tuple[str, list[str]]] = []
    for given in (request.a, request.b):
        files = sorted(os.path.abspath(p) for p in glob.glob(given, recursive=True))
        files = [p for p in files if os.path.isfile(p)][: MAX_FILES + 1]
        if not files:
            problems.append(
                _usage(f"`{given}` matches no file", "give a run file or a quoted glob")
            )
        elif len(files) > MAX_FILES:
            problems.append(_usage(f"`{given}` matches more than {MAX_FILES} files", "narrow it"))
        matched.append((given, files))
    if problems:
        return None, None, problems
    everything = [p for _, files in matched for p in files]
    root = Path(folder or os.path.commonpath([os.path.dirname(p) for p in everything]))
    outside = [p for p in everything if not _inside(p, root)]
    if outside:
        return (
            None,
            None,
            [
                _usage(
                    f"`{display_path(outside[0])}` is not under the spec's folder "
                    f"`{display_path(str(root))}`",
                    "save the spec in a folder that holds both sides' files: a spec reads only "
                    "its own folder tree",
                )
            ],
        )
    sides = []
    for (given, files), name, gpus, price in (
        (matched[0], "a", request.gpus_a, request.price_a),
        (matched[1], "b", request.gpus_b, request.price_b),
    ):
        fmt, problem = _format(files, request.trace_format)
        if problem:
            return None, None, [problem]
        sides.append(
            Side(name, given, tuple(files), _spec_glob(given, files, root), fmt, gpus or 0, price)
        )
    text = _spec_text(request, sides)
    spec, parse_problems = parse_spec(SourceFile("compare.cmp", text))
    if spec is None:  # cannot happen for validated facts; kept a diagnostic, not a traceback
        return None, None, parse_problems
    return format_spec(spec, text), root, []


def _check_facts(request: CompareRequest) -> list[Diagnostic]:
    problems = []
    if not request.gpus_a or not request.gpus_b:
        problems.append(
            _usage(
                "the GPUs behind each side's runs are not given",
                "pass `--gpus N` (both sides) or `--gpus-a N --gpus-b M`",
            )
        )
    checks = (
        ("--target", request.target, _TARGET, "`50 tok/s/user` or `20 ms`"),
        ("--statistic", request.statistic, _STATISTIC, "`median`, `mean` or `p90`"),
        ("--tokens", request.tokens, _TOKENS, "`output` or `input + output`"),
        ("--price-a", request.price_a, _PRICE, "USD per GPU-hour, e.g. `2.50`"),
        ("--price-b", request.price_b, _PRICE, "USD per GPU-hour, e.g. `2.50`"),
    )
    for flag, value, pattern, example in checks:
        if value is not None and not pattern.fullmatch(value.strip()):
            problems.append(_usage(f"`{flag} {value}` is not understood", f"write it as {example}"))
    if request.metric is not None and request.metric not in METRICS:
        problems.append(
            _usage(f"`--metric {request.metric}` is not a metric", "one of " + ", ".join(METRICS))
        )
    if bool(request.price_a) != bool(request.price_b):
        problems.append(_usage("a price is given for one side only", "give both, or neither"))
    return problems


def _usage(message: str, help: str) -> Diagnostic:
    return error("E804", message, help=help)


def _inside(path: str, root: Path) -> bool:
    try:
        Path(path).relative_to(root)
    except ValueError:
        return False
    return True


def _spec_glob(given: str, files: list[str], root: Path) -> str:
    """The glob the spec writes: the one given, relative to the spec's folder, or the file."""
    if len(files) == 1 and not _GLOB_CHARS.search(given):
        return Path(files[0]).relative_to(root).as_posix()
    return Path(os.path.relpath(os.path.abspath(given), root)).as_posix()


def _format(files: list[str], given: str | None) -> tuple[str, Diagnostic | None]:
    if given:
        return given, None
    seen: set[str] = set()
    for path in files:
        try:
            with open(path, "rb") as handle:
                head = handle.read(HEAD_BYTES)
            found = detect.candidates(head)
        except Exception:  # unreadable or too deeply nested: the build names it precisely
            found = []
        if len(found) != 1:
            return "", _usage(
                f"cannot tell the format of `{display_path(path)}`"
                + (f" (it fits {', '.join(found)})" if found else ""),
                "pass `--format F`; `cmpc stats FILE` says how cmpc reads one file",
            )
        seen.add(found[0])
    if len(seen) > 1:
        return "", _usage(
            "one side's files are in several formats: " + ", ".join(sorted(seen)),
            "compare one format per side, or pass `--format F`",
        )
    return seen.pop(), None


def _q(text: str) -> str:
    """A spec string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _spec_text(request: CompareRequest, sides: list[Side]) -> str:
    today = datetime.date.today().isoformat()
    statistic = request.statistic or "median"
    metric = request.metric or "tpot"
    tokens = " + ".join(p.strip() for p in (request.tokens or "input + output").split("+"))
    lines = [
        f"# Written by `cmpc compare` on {today}. Every TODO marks a fact cmpc could not know",
        "# from the run files; fill them in before publishing what this spec builds.",
        f"comparison {_q('a vs b')} {{  # TODO: a title naming both systems and the model",
        f"  question {_q('TODO: the question this comparison answers')}",
        "  baseline b",
        "",
        "  # TODO: who measured the runs, and when (role self | third_party | vendor)",
        "  source measured {",
        f"    title {_q('not stated (cmpc compare)')}  # TODO: who ran these benchmarks",
        "    role self",
        "    status self_reported",
        "  }",
        "",
        "  latency {",
        f"    metric {metric}",
        f"    statistic {statistic}",
    ]
    if request.target:
        lines.append(f"    target {' '.join(request.target.split())}")
    lines += [
        "  }",
        "",
        "  # reused (prefix-cached) input counts, as in the harnesses' total token throughput",
        "  tokens {",
        f"    count {tokens}",
        "    reused included",
        "  }",
        "",
        "  normalize per gpu",
    ]
    for side in sides:
        lines += [
            "",
            f"  system {side.name} {{",
            f"    label {_q(side.name)}  # TODO: e.g. 8x H100 (TP8)",
            f"    accelerator {_q('TODO: accelerator model')} x {side.gpus}",
            "    cache_hit_rate unknown  # TODO: measured or declared prefix-cache hit rate",
        ]
        if side.price:
            lines.append(
                f"    price {side.price.strip()} USD/gpu/h basis assumed scenario assumed "
                f"source measured as_of {today}  # TODO: the price's basis, source and date"
            )
        lines += [
            f"    runs {_q(side.glob)} format {side.format} source measured",
            "  }",
        ]
    if request.price_a and request.price_b:
        lines += [
            "",
            "  cost {",
            "    utilization 100%  # TODO: the utilization you assume",
            "    per_million total",
            "    scenario assumed",
            "  }",
        ]
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The terminal


def render_terminal(results: dict[str, Any], report: str) -> str:
    """The report's headline sentence with the footnotes it cites, and a table per side."""
    sentence, notes = headline_paragraph(report)
    out = [_plain(sentence), ""]
    head = results.get("headline") or {}
    if head.get("throughput_ratio") is not None:
        line = f"throughput ratio a / b: x{head['throughput_ratio']:.4g}"
        if head.get("cost_ratio") is not None:
            line += f"; cost-per-token ratio: x{head['cost_ratio']:.4g}"
        out += [line, ""]
    latency = (results.get("conditions") or {}).get("latency") or {}
    along = along_latency(latency)  # ttft or e2el: the latency, never 1 / latency as tok/s/user
    axis = f"{latency_name(latency)} ms" if along else "tok/s/user"
    rows = [["side", "files", "GPUs", "throughput tok/s/gpu", axis, "USD/M tokens"]]
    inputs = results.get("inputs") or []
    for name in ("a", "b"):
        system = (results.get("systems") or {}).get(name) or {}
        at = system.get("at_target") or {}
        cost = system.get("cost") or {}
        count = sum(1 for i in inputs if i.get("system") == name)
        rows.append(
            [
                name + (" (baseline)" if name == results.get("baseline") else ""),
                str(count),
                str(system.get("gpus", "")),
                str(number(at.get("throughput_per_gpu"))),
                str(number(_axis_value(at, along))),
                str(usd(cost.get("usd_per_million_tokens"))),
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
    for side in ("a", "b"):
        globs = {i.get("path") for i in inputs if i.get("system") == side}
        if globs:
            out.append(f"  {side}: " + ", ".join(terminal_text(g) for g in sorted(globs)))
    if notes:
        out += ["", *(_plain(n) for n in notes)]
    return "\n".join(out) + "\n"


def _axis_value(at: dict[str, Any], along: bool) -> object:
    """A side's place on the axis: its interactivity, or along latency its latency in ms (a
    bound's as measured: the target is not where it was read)."""
    if not along:
        return _interactivity(at)
    found = at.get("measured_at_latency_ms") if at.get("bound") else at.get("latency_ms")
    return found if found is not None else MS.of_interactivity(_interactivity(at))


def _interactivity(at: dict[str, Any]) -> object:
    """At the target, or at the one point a side's peak was read from."""
    value = at.get("interactivity_tok_s_user")
    knots = at.get("knots") or []
    if value is None and len(knots) == 1:
        return knots[0].get("interactivity_tok_s_user")
    return value


def headline_paragraph(report: str) -> tuple[str, list[str]]:
    """The report's headline paragraph (the first bold one after the question) and the
    definitions of the footnotes it cites."""
    paragraphs = report.split("\n\n")
    sentence = next(
        (p for p in paragraphs if p.startswith("**") and not p.startswith("**Question.")), ""
    )
    keys = list(dict.fromkeys(re.findall(r"\[\^([^\]]+)\]", sentence)))
    definitions = {
        m.group(1): m.group(0) for m in re.finditer(r"^\[\^([^\]]+)\]: .*$", report, re.M)
    }
    return sentence, [definitions[k] for k in keys if k in definitions]


def _plain(markdown: str) -> str:
    """Report Markdown for a terminal: escapes and bold marks removed, hidden text shown."""
    text = markdown.replace("**", "")
    text = re.sub(r"\\([\\`*_{}\[\]<>|&~!$#+\-.])", r"\1", text)
    return terminal_text(" ".join(text.split()))
