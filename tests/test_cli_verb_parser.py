"""The command line builds the arguments of the verb that runs only, and parses as before."""

from __future__ import annotations

import argparse

import pytest

from cmpc import cli

COMMAND_LINES = [
    ["check", "a.cmp", "b.cmp", "--format", "json"],
    ["fmt", "--check", "a.cmp"],
    ["init", "kimi"],
    ["explain", "E001"],
    ["stats", "run.json", "--percentiles", "50,99", "--slo", "ttft=2000", "--json"],
    ["build", "a.cmp", "--set", "cost.utilization=40%", "--unset", "x.y", "--quiet"],
    ["diff", "old", "new", "--format", "json", "--fail-on", "flip"],
    ["compare", "a.json", "b.json", "--gpus", "8", "--price-a", "2.5"],
    ["cache", "clear", "specs"],
    ["sweep", "r.json", "--at", "50", "--method", "linear", "--json"],
]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=lambda argv: argv[0])
def test_the_verbs_parser_reads_what_the_full_one_reads(argv):
    assert vars(cli.build_parser(argv[0]).parse_args(argv)) == vars(
        cli.build_parser().parse_args(argv)
    )


def test_only_the_running_verb_gets_its_arguments():
    built = _subparsers(cli.build_parser("check"))
    assert sorted(built) == sorted(argv[0] for argv in COMMAND_LINES)  # all listed, for help
    options = {name: {a.dest for a in p._actions} - {"help"} for name, p in built.items()}
    assert options["check"] == {"specs", "format"}
    assert not options["build"] and not options["stats"]


def test_help_and_unknown_verbs_list_every_verb(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    listed = capsys.readouterr().out
    assert all(f"    {argv[0]}" in listed for argv in COMMAND_LINES)


@pytest.mark.parametrize("columns", [None, "57", "0", "wide", "-3", "200"])
def test_help_is_as_wide_as_argparse_makes_it(monkeypatch, columns):
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._terminal_columns() == shutil.get_terminal_size().columns
    reference = cli.build_parser("build")
    for parser in [reference, *_subparsers(reference).values()]:
        parser.formatter_class = argparse.HelpFormatter
    assert cli.build_parser("build").format_help() == reference.format_help()
    build = _subparsers(cli.build_parser("build"))["build"]
    assert build.format_help() == _subparsers(reference)["build"].format_help()


def _check_lines() -> list[list[str]]:
    """`cmpc check` argument lists, plain and not: every order of up to four of these words."""
    words = ["a.cmp", "b c.cmp", "-", "", "--format", "json", "--format=short", "--format=x"]
    words += ["--form", "github", "-h", "--", "-x.cmp", "--format=", "human"]
    lines = [["check"]]
    for first in words:
        lines.append(["check", first])
        for second in words:
            lines.append(["check", first, second])
            lines += [["check", first, second, third] for third in words[:5]]
    return lines


def _agrees_with_argparse(plain: object, argv: list[str]) -> bool:
    """Whether the plain reading (None: left to argparse) is argparse's; False when argparse
    exits (help or an error), which a plain reading must then have left to it."""
    try:
        parsed = vars(cli.build_parser().parse_args(argv))
    except SystemExit:  # help or an error: argparse's own, so nothing is read without it
        assert plain is None
        return False
    assert plain is None or vars(plain) == parsed
    return True


@pytest.mark.parametrize("argv", _check_lines(), ids=" ".join)
def test_plain_check_arguments_are_read_as_argparse_reads_them(argv, capsys):
    plain = cli._plain_check(argv)
    if not _agrees_with_argparse(plain, argv):
        return
    simple = all(not w.startswith("-") or w == "-" or w.split("=")[0] == "--format" for w in argv)
    if simple and "--format=" not in argv and "--format=x" not in argv and "--" not in argv:
        assert plain is not None, "a plain check line should not need argparse"


def _build_lines() -> list[list[str]]:
    """`cmpc build` argument lists, plain and not: a SPEC among up to three of these words."""
    words = ["-o", "out", "--output=o d", "--quiet", "--quiet=1", "--no-cache", "--png"]
    words += ["--set", "cost.utilization=40%", "--set=system.a.price=1 USD/gpu/h", "--unset"]
    words += ["--format", "html", "--format=pdf", "--diagnostics=json", "--require", "-x"]
    words += ["--qui", "-oout", "--export", "--sketch=0.01", "-h", "--", "b.cmp", "", "-"]
    lines = [["build"], ["build", "a.cmp"]]
    for first in words:
        lines += [["build", first, "a.cmp"], ["build", "a.cmp", first]]
        for second in words:
            lines.append(["build", "a.cmp", first, second])
            lines += [["build", first, "a.cmp", second, third] for third in words[:8]]
    return lines


@pytest.mark.parametrize("argv", _build_lines(), ids=" ".join)
def test_plain_build_arguments_are_read_as_argparse_reads_them(argv, capsys):
    _agrees_with_argparse(cli._plain_build(argv), argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["build", "a.cmp"],
        ["build", "a.cmp", "-o", "out", "--quiet", "--set", "system.b.price=2.40 USD/gpu/h"],
        ["build", "--no-cache", "a.cmp", "--set=cost.utilization=40%", "--unset", "fleet"],
        ["build", "a.cmp", "--format", "html", "--diagnostics", "json", "--require", "x > 1"],
    ],
)
def test_a_plain_build_line_needs_no_argparse(argv):
    plain = cli._plain_build(argv)
    assert plain is not None
    assert vars(plain) == vars(cli.build_parser().parse_args(argv))
