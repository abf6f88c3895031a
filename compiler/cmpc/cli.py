"""Command line: argv to verbs; the only module that prints or exits."""

from __future__ import annotations

import gc

# What start-up makes lives to the end (modules, classes, codes): a garbage collection there
# finds nothing to free. Collections resume once the command line's modules are imported.
_COLLECTING = gc.isenabled()
gc.disable()

import atexit  # noqa: E402
import contextlib  # noqa: E402
import functools  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Iterator, Sequence  # noqa: E402
from typing import TYPE_CHECKING, Any, NoReturn  # noqa: E402

from cmpc import __version__, _classcache, _recache, lazy  # noqa: E402

if TYPE_CHECKING:
    import argparse
else:  # with gettext and locale, a twentieth of `cmpc check`: plain check arguments skip it
    argparse = lazy.module("argparse")
# pathlib imports ntpath (with five failed imports of Windows modules) for PureWindowsPath, and
# urllib.parse imports ipaddress for URLs with a bracketed host: a build uses neither (2 ms)
lazy.module("ntpath")
lazy.module("ipaddress")

# The command line, not `import cmpc`, hands dataclasses the caching exec: a program that uses
# the API keeps the standard library as it is (see cmpc/_classcache.py).
_classcache.install()

from cmpc.outcome import Outcome  # noqa: E402  (after install: a record class)

if _COLLECTING:
    gc.enable()

BUG_URL = "https://github.com/cmpc-dev/cmpc/issues"
DIAGNOSTIC_FORMATS = ("human", "short", "json", "github")
TEXT_DIAGNOSTICS = ("human", "short", "github")  # for verbs whose standard output is their own


def _percentiles(text: str) -> list[str]:
    items = [p.strip() for p in text.split(",") if p.strip()]
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"`{item}` is not a number") from None
        if not 0 < value < 100:
            raise argparse.ArgumentTypeError(f"percentile `{item}` is outside (0, 100)")
    return items


def _slo(text: str) -> tuple[str, float]:
    metric, sep, value = text.partition("=")
    if not sep or metric not in ("ttft", "tpot", "e2el"):
        raise argparse.ArgumentTypeError(f"`{text}` is not METRIC=MS with ttft, tpot or e2el")
    try:
        ms = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{value}` is not a number of milliseconds") from None
    if not ms > 0:
        raise argparse.ArgumentTypeError(f"an SLO limit must be positive, not `{value}`")
    return metric, ms / 1000.0


def _accuracy(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"a relative accuracy is in (0, 1), not `{text}`")
    return value


def _export(name: str) -> str:
    from cmpc.build.exports import EXPORTS  # only when --export is given: check stays fast

    if name not in EXPORTS:
        known = ", ".join(sorted(EXPORTS))
        raise argparse.ArgumentTypeError(f"unknown export `{name}` (known: {known})")
    return name


def _gpus(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a whole number of GPUs") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"a GPU count must be at least 1, not `{text}`")
    return value


def _terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, without importing shutil (and its compressors)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (ValueError, OSError):
            columns = 0
    return columns or 80


@functools.cache
def _help_formatter() -> type[argparse.HelpFormatter]:
    """The formatter class, made with the first parser (argparse is imported then)."""

    class _HelpFormatter(argparse.HelpFormatter):
        """argparse's formatter, measuring the terminal as it does, minus its `import shutil`."""

        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:  # fmt: skip
            if width is None:
                width = _terminal_columns() - 2
            super().__init__(prog, indent_increment, max_help_position, width)

    return _HelpFormatter


class _Unbuilt:
    """A verb's parser while another verb runs: its arguments are not built (start-up time)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


@functools.cache
def _verb_parsers() -> Any:
    """The sub-parsers action class, made with the first parser (argparse is imported then)."""

    class _VerbParsers(argparse._SubParsersAction):
        """The verbs: every one listed (for help and errors), only `verb`'s arguments built."""

        def __init__(self, *args: Any, verb: str | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.verb = verb

        def add_parser(self, name: str, **kwargs: Any) -> Any:
            kwargs.setdefault("formatter_class", _help_formatter())
            parser = super().add_parser(name, **kwargs)
            return parser if self.verb in (None, name) else _Unbuilt()

    return _VerbParsers


def _plain_check(words: list[str]) -> Any:
    """`cmpc check`'s arguments read without argparse when they are plain: one run of SPECs and
    `--format F` / `--format=F` before or after it. argparse reads such arguments the same way
    (tests/test_cli_verb_parser.py); anything else (help, an error, an abbreviation, `--`) is
    None and goes to argparse. The answer has the attributes argparse's Namespace would."""
    if words[:1] != ["check"]:
        return None
    specs: list[str] = []
    diagnostic_format, ended, at = "human", False, 1
    while at < len(words):
        word = words[at]
        if word == "--format" and words[at + 1 : at + 2] and words[at + 1] in DIAGNOSTIC_FORMATS:
            diagnostic_format, ended, at = words[at + 1], bool(specs), at + 2
        elif word.startswith("--format=") and word[len("--format=") :] in DIAGNOSTIC_FORMATS:
            diagnostic_format, ended, at = word[len("--format=") :], bool(specs), at + 1
        elif (word.startswith("-") and word != "-") or ended:
            return None  # an option argparse reads, or SPECs in two runs (argparse's error)
        else:
            specs.append(word)
            at += 1
    if not specs:
        return None
    return types.SimpleNamespace(verb="check", specs=specs, format=diagnostic_format)


# `cmpc build`'s options a plain line may hold, by kind, and the Namespace argparse makes of none
_BUILD_FLAGS = {"--quiet": "quiet", "--no-cache": "no_cache", "--png": "png"}
_BUILD_FLAGS["--allow-remote"] = "allow_remote"
_BUILD_VALUES = {"-o": "output", "--output": "output", "--template": "template"}
_BUILD_VALUES["--scheduler"] = "scheduler"
_BUILD_LISTS = {"--set": "sets", "--unset": "unsets", "--require": "require"}
_BUILD_CHOICES: dict[str, tuple[str, tuple[str, ...]]] = {
    "--format": ("report_format", ("md", "html"))
}
_BUILD_CHOICES["--diagnostics"] = ("format", DIAGNOSTIC_FORMATS)


def _build_defaults() -> dict[str, Any]:
    values: dict[str, Any] = {"verb": "build", "spec": None, "exports": [], "sketch": None}
    values |= {name: False for name in _BUILD_FLAGS.values()}
    values |= {name: None for name in _BUILD_VALUES.values()}
    values |= {name: [] for name in _BUILD_LISTS.values()}
    return values | {"report_format": "md", "format": "human"}


def _plain_build(words: list[str]) -> Any:
    """`cmpc build`'s arguments read without argparse (and gettext, locale) when they are
    plain: one SPEC and options spelled in full, each value after it (`--set V`) or an `=`
    (`--set=V`), none starting with `-`. Anything else (help, errors, abbreviations,
    `--export`, `--sketch`, `-oDIR`) is None and goes to argparse, which reads the plain ones
    the same way (tests/test_cli_verb_parser.py)."""
    if words[:1] != ["build"]:
        return None
    values = _build_defaults()
    at = 1
    while at < len(words):
        word, at = words[at], at + 1
        option, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if option in _BUILD_FLAGS and not equals:
            values[_BUILD_FLAGS[option]] = True
            continue
        if not word.startswith("-"):
            if values["spec"] is not None:
                return None  # a second SPEC: argparse's error
            values["spec"] = word
            continue
        if not equals:
            if at == len(words) or words[at].startswith("-"):
                return None
            value, at = words[at], at + 1
        if option in _BUILD_VALUES:
            values[_BUILD_VALUES[option]] = value
        elif option in _BUILD_LISTS:
            values[_BUILD_LISTS[option]].append(value)
        elif option in _BUILD_CHOICES and value in _BUILD_CHOICES[option][1]:
            values[_BUILD_CHOICES[option][0]] = value
        else:
            return None
    return None if values["spec"] is None else types.SimpleNamespace(**values)


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The command line; given `verb`, the other verbs are listed but get no arguments."""
    parser = argparse.ArgumentParser(
        prog="cmpc",
        description="Compile LLM-inference comparison specs into footnoted reports.",
        formatter_class=_help_formatter(),
    )
    parser.add_argument("--version", action="version", version=f"cmpc {__version__}")
    # typeshed types `action` as a class; argparse calls it, so a partial serves
    verbs = parser.add_subparsers(  # type: ignore[call-overload]
        dest="verb", metavar="VERB", action=functools.partial(_verb_parsers(), verb=verb)
    )
    verbs.required = True

    check = verbs.add_parser("check", help="validate specs statically (no trace I/O)")
    check.add_argument("specs", nargs="+", metavar="SPEC")
    check.add_argument("--format", choices=DIAGNOSTIC_FORMATS, default="human")

    fmt = verbs.add_parser("fmt", help="rewrite specs in canonical layout")
    fmt.add_argument("specs", nargs="+", metavar="SPEC", help="spec files, or - for stdin")
    mode = fmt.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="list files that would change")
    mode.add_argument("--diff", action="store_true", help="print a unified diff, change nothing")

    init = verbs.add_parser("init", help="write a commented starter spec")
    init.add_argument("name", nargs="?", default="comparison", metavar="NAME")

    explain = verbs.add_parser("explain", help="explain a diagnostic code")
    explain.add_argument("code", metavar="CODE")

    stats = verbs.add_parser("stats", help="canonical metrics of benchmark output files")
    stats.add_argument("files", nargs="+", metavar="FILE")
    stats.add_argument("--format", dest="trace_format", default=None, metavar="F")
    stats.add_argument("--percentiles", type=_percentiles, default=["50", "90", "99"])
    stats.add_argument(
        "--percentile-method",
        default="linear",
        help="numpy percentile method (default: linear)",
    )
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.add_argument(
        "--slo",
        type=_slo,
        action="append",
        default=[],
        metavar="METRIC=MS",
        help="an SLO for goodput, e.g. --slo ttft=2000 --slo tpot=50 (ttft, tpot or e2el, in ms)",
    )

    build = verbs.add_parser("build", help="build the report of a spec")
    build.add_argument("spec", metavar="SPEC")
    build.add_argument("-o", "--output", metavar="DIR", help="default: build/<spec-stem>/")
    build.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="replace a value of the spec, e.g. system.b300.price.as_of=2026-10-01",
    )
    build.add_argument(
        "--unset",
        dest="unsets",
        action="append",
        default=[],
        metavar="PATH",
        help="remove a key of the spec (applied after every --set)",
    )
    build.add_argument(
        "--format",
        dest="report_format",
        choices=("md", "html"),
        default="md",
        help="html also writes report.html beside report.md",
    )
    build.add_argument(
        "--png",
        action="store_true",
        help="also write a PNG beside each SVG figure (needs the png extra: cmpc[png])",
    )
    build.add_argument("--template", metavar="DIR", help="render your own jinja2 templates")
    build.add_argument("--diagnostics", dest="format", choices=DIAGNOSTIC_FORMATS, default="human")
    build.add_argument(
        "--no-cache", action="store_true", help="read every run file; neither use nor fill cache"
    )
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="EXPR",
        help="a policy over results.json paths; a valid build that fails it exits 3",
    )
    build.add_argument(
        "--export",
        dest="exports",
        action="append",
        default=[],
        type=_export,
        metavar="NAME",
        help="also write an export beside results.json (repeatable): github-benchmark, "
        "parquet (runs, figures), requests (per request)",
    )
    build.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="reduce run files on a Dask cluster (default: $CMPC_SCHEDULER, else local cores)",
    )
    build.add_argument(
        "--allow-remote",
        action="store_true",
        help="let run globs name fsspec URLs (s3://, gs://, https://): reads the network",
    )
    build.add_argument(
        "--sketch",
        type=_accuracy,
        metavar="ALPHA",
        help="percentiles from a DDSketch of relative accuracy ALPHA (e.g. 0.01); default: exact",
    )

    diff = verbs.add_parser("diff", help="what a change does to a comparison's conclusions")
    diff.add_argument("builds", nargs="*", metavar="BUILD", help="BASE HEAD: folders or results")
    diff.add_argument(
        "--rev",
        nargs=2,
        metavar=("GITREV", "SPEC"),
        help="build SPEC as it was at GITREV (a temporary worktree) against the working tree",
    )
    diff.add_argument("--format", dest="output_format", choices=("md", "json"), default="md")
    diff.add_argument("--set", dest="sets", action="append", default=[], metavar="PATH=VALUE")
    diff.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="POLICY",
        help="flip | verdict-drop | disclosure-drop | EXPR (true fails); exit 3",
    )
    # no `json`: standard output carries the diff itself (`--format json`)
    diff.add_argument("--diagnostics", dest="format", choices=TEXT_DIAGNOSTICS, default="human")

    compare = verbs.add_parser("compare", help="compare two run files without a spec")
    compare.add_argument("a", metavar="A", help="run file or glob of side A (the system)")
    compare.add_argument("b", metavar="B", help="run file or glob of side B (the baseline)")
    compare.add_argument("--gpus", type=_gpus, default=None, metavar="N")
    compare.add_argument("--gpus-a", type=_gpus, default=None, metavar="N")
    compare.add_argument("--gpus-b", type=_gpus, default=None, metavar="N")
    compare.add_argument("--format", dest="trace_format", default=None, metavar="F")
    compare.add_argument("--target", default=None, metavar="TARGET", help="e.g. '50 tok/s/user'")
    compare.add_argument("--statistic", default=None, help="median | mean | pNN")
    compare.add_argument("--metric", default=None, help="tpot (default) | ttft | e2el | ...")
    compare.add_argument("--tokens", default=None, help="output | input + output")
    compare.add_argument("--price-a", default=None, metavar="USD", help="USD per GPU-hour")
    compare.add_argument("--price-b", default=None, metavar="USD", help="USD per GPU-hour")
    compare.add_argument("--save-spec", default=None, metavar="FILE")
    compare.add_argument("--diagnostics", dest="format", choices=TEXT_DIAGNOSTICS, default="human")

    cache = verbs.add_parser("cache", help="manage the cache of reduced runs")
    cache_verbs = cache.add_subparsers(dest="cache_verb", metavar="ACTION")
    cache_verbs.required = True
    clear = cache_verbs.add_parser("clear", help="delete .cmpc-cache/ there (or $CMPC_CACHE_DIR)")
    clear.add_argument("spec_dir", nargs="?", default=".", metavar="SPEC_DIR")

    sweep = verbs.add_parser("sweep", help="frontier and reads at targets on a latency axis")
    sweep.add_argument("files", nargs="+", metavar="FILE")
    sweep.add_argument("--format", dest="trace_format", default=None, metavar="F")
    sweep.add_argument("--where", action="append", default=[], metavar="KEY=VALUE")
    sweep.add_argument("--statistic", default="median", help="median | mean | pNN")
    sweep.add_argument(
        "--metric",
        default="tpot",
        help="the latency axis: tpot (default) | ttft | e2el | chunk_gap | e2e_per_token",
    )
    sweep.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="X",
        help="targets on the axis: 50 or 20tok/s/user (per-token metrics); 500ms,1s (any)",
    )
    sweep.add_argument(
        "--method", choices=("steffen", "linear", "nearest", "calculator"), default="steffen"
    )
    sweep.add_argument(
        "--gpus",
        type=int,
        default=None,
        metavar="N",
        help="GPUs behind each run whose file does not state them (vLLM result files)",
    )
    sweep.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """No garbage collection in the block: what imports make is never garbage, and collecting
    while 200 modules load costs a warm rebuild about 3 ms."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> Outcome:
    if args.verb == "check":
        from cmpc.verbs.check import check_specs

        stdin = _read_stdin() if "-" in args.specs else None
        return check_specs(args.specs, stdin=stdin)
    if args.verb == "fmt":
        from cmpc.verbs.fmt import format_specs

        stdin = _read_stdin() if "-" in args.specs else None
        return format_specs(args.specs, check=args.check, diff=args.diff, stdin=stdin)
    if args.verb == "init":
        from cmpc.verbs.init import init_spec

        return init_spec(args.name)
    if args.verb == "explain":
        from cmpc.verbs.explain import explain_code

        return explain_code(args.code)
    if args.verb == "stats":
        from cmpc.verbs.stats import run_stats

        return run_stats(
            args.files,
            trace_format=args.trace_format,
            percentiles=args.percentiles,
            method=args.percentile_method,
            as_json=args.json,
            slos=dict(args.slo),
        )
    if args.verb == "build":
        lazy.module("numpy")  # a rebuild from cached runs may do no array arithmetic at all
        with _no_collection():  # the build's modules live to the end, as the ones above
            from cmpc.build.model import Options
            from cmpc.build.pipeline import build_spec

        options = Options(
            html=args.report_format == "html",
            template_dir=args.template,
            use_cache=not args.no_cache,
            progress=None if args.quiet or not sys.stderr.isatty() else _ProgressBar(),
            scheduler=args.scheduler,
            remote=args.allow_remote,
            sketch=args.sketch,
            exports=tuple(args.exports),
            png=args.png,
        )
        return build_spec(
            args.spec,
            out_dir=args.output,
            sets=args.sets,
            unsets=args.unsets,
            require=args.require,
            options=options,
        )
    if args.verb == "diff":
        from cmpc.verbs import diff

        if args.rev and args.builds:
            raise _Usage("give BASE HEAD or --rev GITREV SPEC, not both")
        if args.rev:
            rev, spec = args.rev
            return diff.diff_revision(
                rev, spec, output_format=args.output_format, fail_on=args.fail_on, sets=args.sets
            )
        if len(args.builds) != 2:
            raise _Usage("give two builds, BASE HEAD (or --rev GITREV SPEC)")
        if args.sets:
            raise _Usage("--set applies to --rev builds; BASE and HEAD are already built")
        base, head = args.builds
        return diff.diff_paths(base, head, output_format=args.output_format, fail_on=args.fail_on)
    if args.verb == "compare":
        from cmpc.verbs.compare import CompareRequest, compare_runs

        return compare_runs(
            CompareRequest(
                a=args.a,
                b=args.b,
                gpus_a=args.gpus_a or args.gpus,
                gpus_b=args.gpus_b or args.gpus,
                trace_format=args.trace_format,
                target=args.target,
                statistic=args.statistic,
                metric=args.metric,
                tokens=args.tokens,
                price_a=args.price_a,
                price_b=args.price_b,
            ),
            save_spec=args.save_spec,
        )
    if args.verb == "cache":
        from cmpc.ingest.cache import clear_cache

        return clear_cache(args.spec_dir)
    if args.verb == "sweep":
        from cmpc.verbs.sweep import run_sweep

        return run_sweep(
            args.files,
            trace_format=args.trace_format,
            where=args.where,
            statistic=args.statistic,
            at=args.at,
            method=args.method,
            as_json=args.json,
            gpus=args.gpus,
            metric=args.metric,
        )
    raise AssertionError(f"unhandled verb {args.verb}")


class _Usage(Exception):
    """A combination of options argparse cannot express; reported as argparse reports its own."""


class _ProgressBar:
    """Files reduced so far, on one stderr line, once a build has run for a second."""

    DELAY_S = 1.0
    WIDTH = 30

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self._start = self._clock()
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if done >= total:
            if self._shown:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            return
        if self._clock() - self._start < self.DELAY_S:
            return
        filled = self.WIDTH * done // total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        sys.stderr.write(f"\rreading runs [{bar}] {done}/{total} files")
        sys.stderr.flush()
        self._shown = True


def _read_stdin() -> str:
    """Standard input, at most the spec size limit (plus one byte, so the excess is seen)."""
    from cmpc.limits import current

    return sys.stdin.read(current().spec_bytes + 1)


def _emit(outcome: Outcome, diagnostic_format: str, verb: str) -> None:
    from cmpc import diagnostics as diag

    if diagnostic_format == "json":
        sys.stdout.write(diag.render_json(outcome.diagnostics, outcome.sources, outcome.checked))
    elif outcome.stdout:
        sys.stdout.write(outcome.stdout)
    if outcome.stderr:
        sys.stderr.write(outcome.stderr)
    if outcome.diagnostics and diagnostic_format != "json":
        render = diag.RENDERERS[diagnostic_format]
        sys.stderr.write(render(outcome.diagnostics, outcome.sources))
        if diagnostic_format == "human":
            noun = {"stats": "file", "sweep": "file", "compare": "file", "diff": "build"}
            text = diag.summary_line(outcome.diagnostics, outcome.checked, noun.get(verb, "spec"))
            sys.stderr.write(("\n" if text else "") + text)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `cmpc` console script."""
    words = list(sys.argv[1:] if argv is None else argv)
    # here, not at import: a program importing cmpc.cli keeps its regexes out of cmpc's folder
    _recache.install()  # re gets the kept programs of module bodies' patterns (cmpc/_recache.py)
    collecting = gc.isenabled()
    thresholds = gc.get_threshold()
    if words[:1] == ["check"]:
        # check's imports are most of its time, and what its run makes is bounded by the spec
        # size limit (cmpc/limits.py): no collection until it returns
        gc.disable()
    else:
        # a build makes many short-lived containers (documents read, figures, report parts)
        # and few cycles: a young collection every 700 of them walked them for nothing (29 M
        # instructions, 1.7% of a cold 10^6-token build); collections still bound memory
        gc.set_threshold(100_000, 50, 50)
    try:
        return _main(words)
    finally:
        gc.set_threshold(*thresholds)
        if collecting:
            gc.enable()


def _main(words: list[str]) -> int:
    args = _plain_check(words) or _plain_build(words)
    args = args or build_parser(words[0] if words else None).parse_args(words)
    try:
        with warnings.catch_warnings():
            # numpy's overflow and invalid-value warnings on hostile traces are not diagnostics:
            # the figures they touch are checked or shown as n/a, and stderr stays for diagnostics
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                outcome = _run(args)
            except _Usage as usage:
                sys.stderr.write(f"cmpc {args.verb}: error: {usage}\n")
                return 2
        _emit(outcome, getattr(args, "format", None) or "human", args.verb)
        sys.stdout.flush()
        return outcome.code
    except KeyboardInterrupt:
        sys.stderr.write("cmpc: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug in cmpc, never a user error: one line, exit 2
        where = ""
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
        sys.stderr.write(
            f"cmpc: internal error: {type(exc).__name__}: {exc}{where}; "
            f"please report it at {BUG_URL} with the command you ran\n"
        )
        return 2


def _one_blas_thread() -> None:
    """OpenBLAS on one thread in cmpc's own process, unless the user set its thread count."""
    # numpy's OpenBLAS starts a thread per core at import that spins for about 70 ms of CPU,
    # on the core a cold build's forked child reduces on (ingest/split.py), whose fork that
    # thread would also prevent; cmpc makes no BLAS call worth a thread
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def run() -> NoReturn:
    """The `cmpc` console script: main(), then exit without tearing the interpreter down.

    Freeing every module and object of a process that ends anyway cost 30-45 ms of a build
    and 12 ms of a check (benchmarks/README.md). Exit handlers still run and output is
    flushed first; while another thread is alive the normal exit waits for it, and under a
    profiler or a coverage tracer the program returns as usual.
    """
    _one_blas_thread()
    try:
        code = main()
        threads = sys.modules.get("threading")
        if threads is not None and threads.active_count() > 1:
            sys.exit(code)
        if sys.gettrace() is not None or sys.getprofile() is not None:
            sys.exit(code)  # a profiler or coverage writes its data once the program returns
        atexit._run_exitfuncs()
    except KeyboardInterrupt:  # a Ctrl-C after main() returned: the same one line as within
        sys.stderr.write("cmpc: interrupted\n")
        code = 130
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing left to hear it
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
