"""`cmpc diff`: what a change does to a comparison, from two builds or a git revision."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from cmpc.cli import main
from cmpc.verbs.diff import compute_diff, diff_documents, diff_revision, render_markdown

from .conftest import SPEC, git

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "compiler/cmpc/schemas/diff.schema.json").read_text()
)
PRICED = SPEC.replace("price 2.00 USD/gpu/h", "price 2.50 USD/gpu/h")
FLIPPED = SPEC.replace("throughput 120 tok/s/gpu", "throughput 80 tok/s/gpu")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def build(capsys, spec: str, out: str, *extra: str) -> dict:
    code, _, err = run(capsys, "build", spec, "-o", out, "--quiet", *extra)
    assert code == 0, err
    return json.loads((Path(out) / "results.json").read_text())


def test_a_price_change_prints_the_cost_ratio_change(repo, capsys):
    """Done when: changing a price and `cmpc diff --rev HEAD~1 spec.cmp` prints the cost-ratio
    change. x's price 2.00 -> 2.50: cost ratio (2.00/120)/(3.00/100) = 0.5556 becomes
    (2.50/120)/(3.00/100) = 0.6944, +25%; throughput is unchanged, so is every winner."""
    repo.commit(PRICED, "price: x at 2.50")
    code, out, err = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp")
    assert code == 0, err
    assert "cost-per-token ratio ×0.556 → ×0.694 (+25.0%)" in out
    assert "| cost-per-token ratio, x vs y | ×0.556 | ×0.694 | +25.0% |" in out
    assert "| x: price (USD/GPU-hour) | $2.00 | $2.50 | +25.0% |" in out
    assert "the winner stays x" in out
    assert "No change in conclusions" in out
    assert "**" not in out.split("\n", 1)[1]  # no flip, so nothing in bold below the sentence
    code, _, _ = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp", "--fail-on", "flip")
    assert code == 0
    # the temporary worktree is gone again
    assert git(repo.root, "worktree", "list").count("\n") == 1


def test_a_winner_flip_fails_on_flip_with_exit_3(repo, capsys):
    """Done when: a change that flips the winner makes `--fail-on flip` exit 3. x's throughput
    120 -> 80: ratio 1.2 -> 0.8, so y wins on throughput (x stays cheaper per token:
    2.00/80 < 3.00/100, a cost ratio of 0.833)."""
    repo.commit(FLIPPED, "throughput: x at 80")
    code, out, err = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp", "--fail-on", "flip")
    assert code == 3, err
    assert "error[E810]" in err and "flips from x to y" in err
    assert "**the winner flips from x to y**" in out
    assert "| **throughput winner, x vs y** | **x** | **y** | **changed** |" in out
    assert "| cost winner, x vs y | x | x |  |" in out
    assert "**The conclusions change:**" in out
    code, out, _ = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp")
    assert code == 0  # without a policy a flip is news, not a failure


def test_working_tree_edits_are_the_head(repo, capsys):
    """--rev compares the revision with the spec as it is on disk, committed or not."""
    repo.spec.write_text(PRICED, encoding="utf-8")
    code, out, _ = run(capsys, "diff", "--rev", "HEAD", "specs/s.cmp", "--format", "json")
    assert code == 0
    document = json.loads(out)
    jsonschema.validate(document, SCHEMA)
    assert document["headline"]["cost_ratio"]["base"] == pytest.approx(2.00 / 120 / (3.00 / 100))
    assert document["headline"]["cost_ratio"]["head"] == pytest.approx(2.50 / 120 / (3.00 / 100))
    assert document["headline"]["cost_ratio"]["change"] == pytest.approx(0.25)
    assert document["base"]["results"] == "specs/s.cmp@HEAD"
    assert document["conclusions_changed"] is False and document["changed"] is True


def test_disclosure_drop_and_expressions_over_base_and_head(repo, capsys):
    block = '\n  disclosure {\n    load_conditions "closed loop, concurrency 64"\n  }\n'
    assert block in SPEC
    dropped = SPEC.replace(block, "\n")
    repo.commit(dropped, "disclosure: drop the load conditions")
    argv = ["diff", "--rev", "HEAD~1", "specs/s.cmp"]
    code, _, err = run(capsys, *argv, "--fail-on", "disclosure-drop")
    assert code == 3 and "disclosure score drops" in err
    assert run(capsys, *argv, "--fail-on", "verdict-drop")[0] == 0
    expr = "head.headline.throughput_ratio < base.headline.throughput_ratio"
    assert run(capsys, *argv, "--fail-on", expr)[0] == 0
    assert run(capsys, *argv, "--fail-on", "headline.throughput_ratio == 1.2")[0] == 3


def test_a_revision_without_the_spec_or_a_bad_revision_is_e803(repo, capsys):
    code, _, err = run(capsys, "diff", "--rev", "no-such-rev", "specs/s.cmp")
    assert code == 2 and "E803" in err
    (repo.root / "specs" / "new.cmp").write_text(SPEC, encoding="utf-8")
    code, _, err = run(capsys, "diff", "--rev", "HEAD", "specs/new.cmp")
    assert code == 2 and "E803" in err and "does not exist at `HEAD`" in err
    # argparse refuses an option as GITREV; the verb refuses it too, before git sees it
    outcome = diff_revision("--output=/tmp/x", "specs/s.cmp")
    assert outcome.code == 2 and "cannot start with `-`" in outcome.diagnostics[0].message


def test_build_folders_and_results_files(repo, capsys, tmp_path):
    base = build(capsys, "specs/s.cmp", str(tmp_path / "a"))
    build(capsys, "specs/s.cmp", str(tmp_path / "b"), "--set", "system.y.price=1.50 USD/gpu/h")
    code, out, err = run(capsys, "diff", str(tmp_path / "a"), str(tmp_path / "b/results.json"))
    assert code == 0, err
    # y at 1.50: cost ratio (2/120)/(1.5/100) = 1.111, so y is now cheaper per token: a flip
    assert "**the cost winner flips from x to y**" in out
    assert "| overrides (`--set`) | none | system.y.price=1.50 USD/gpu/h | changed |" in out
    same = run(capsys, "diff", str(tmp_path / "a"), str(tmp_path / "a"))[1]
    assert same.endswith("No change in conclusions: no figure, warning or input changed.\n")
    assert base["headline"]["throughput_ratio"] == pytest.approx(1.2)


def test_unreadable_builds_are_e802(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    code, _, err = run(capsys, "diff", str(tmp_path / "x.json"), str(tmp_path / "nothing"))
    assert code == 2 and err.count("E802") == 2
    assert run(capsys, "diff", str(tmp_path))[0] == 2  # one build is a usage error


def test_two_specs_are_told_to_build_or_use_rev(in_repo, capsys):
    """A newcomer's first try: `cmpc diff a.cmp b.cmp` (not a JSON parse error)."""
    code, _, err = run(capsys, "diff", "specs/mi355x-vs-b300.cmp", "specs/llama70b-newcomer.cmp")
    assert code == 2 and err.count("E802") == 2
    assert "a spec, not a build: build each side first" in err
    assert "`cmpc diff --rev GITREV SPEC`" in err and "Expecting value" not in err


def test_warnings_inputs_and_verdicts_are_reported(in_repo, capsys, tmp_path):
    """From a real build (llama70b, two vLLM runs): a head whose input hash, warnings and
    verdict differ, edited by hand here, is reported row by row."""
    base = build(capsys, "specs/llama70b-a100-tp8-vs-tp4pp2.cmp", str(tmp_path / "l"))
    head = copy.deepcopy(base)
    head["inputs"][0]["sha256"] = "0" * 64
    head["warnings"] = [{"code": "W130", "message": "a stale price"}]
    base["disclosure"]["verdict"] = "comparable"  # so the head's real verdict is a drop
    diff = compute_diff(base, head)
    jsonschema.validate(diff, SCHEMA)
    assert [w["code"] for w in diff["warnings"]["gained"]] == ["W130"]
    assert [w["code"] for w in diff["warnings"]["lost"]] == ["W515"]
    assert diff["inputs"]["changed"][0]["head_sha256"] == "0" * 64
    assert diff["disclosure"]["verdict_dropped"] and diff["conclusions_changed"]
    text = render_markdown(diff)
    assert "| warning gained |  | W130: a stale price | gained |" in text
    assert f"| input {head['inputs'][0]['path'].replace('_', chr(92) + '_')} |" in text
    outcome = diff_documents(base, head, fail_on=["verdict-drop"])
    assert outcome.code == 3


@pytest.fixture
def results_with_intervals(in_repo, capsys, tmp_path) -> tuple[dict, dict]:
    """A real build of specs/mi355x-vs-b300-per-dollar.cmp plus, by hand, the interval keys
    engineer i16's repetitions add to the headline (throughput_ratio_ci, cost_ratio_ci,
    confidence, within_noise): this is a test fixture, not a measurement."""
    base = build(capsys, "specs/mi355x-vs-b300-per-dollar.cmp", str(tmp_path / "p"))
    head = copy.deepcopy(base)
    base["headline"] |= {
        "throughput_ratio_ci": [1.40, 1.52],
        "cost_ratio_ci": [0.66, 0.71],
        "confidence": 0.95,
        "within_noise": False,
    }
    head["headline"] |= {
        "throughput_ratio_ci": [0.97, 1.61],
        "cost_ratio_ci": [0.62, 1.03],
        "confidence": 0.95,
        "within_noise": True,
    }
    return base, head


def test_intervals_are_shown_and_policies_read_them(results_with_intervals):
    base, head = results_with_intervals
    outcome = diff_documents(base, head)
    assert (
        "| throughput ratio, mi355x vs b300 | ×1.457 [1.400, 1.520] | ×1.457 [0.970, 1.610] |"
        in (outcome.stdout)
    )
    assert "| within measurement noise | false | true | changed |" in outcome.stdout
    document = compute_diff(base, head)
    jsonschema.validate(document, SCHEMA)
    assert document["headline"]["throughput_ratio"]["head_interval"] == [0.97, 1.61]
    assert document["headline"]["cost_ratio"]["base_interval"] == [0.66, 0.71]
    assert diff_documents(base, head, fail_on=["headline.within_noise == true"]).code == 3
    assert diff_documents(base, head, fail_on=["headline.throughput_ratio_ci[0] < 1"]).code == 3
    assert diff_documents(base, base, fail_on=["headline.throughput_ratio_ci[0] < 1"]).code == 0


def test_the_documented_comment_is_what_diff_prints(repo, capsys):
    """docs/review.md shows the comment for the flip above: it is that output, verbatim."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "review.md").read_text()
    shown = doc.split("One sentence, one table, one closing line:\n\n```\n", 1)[1]
    shown = shown.split("```", 1)[0]
    repo.commit(FLIPPED, "throughput: x at 80")
    code, out, _ = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp")
    assert code == 0
    assert out == shown


def test_diagnostics_never_take_the_diffs_standard_output(capsys):
    """`--diagnostics json` would print diagnostics where the diff goes: it is refused."""
    with pytest.raises(SystemExit) as exit:
        main(["diff", "a", "b", "--diagnostics", "json"])
    assert exit.value.code == 2
    assert "invalid choice: 'json'" in capsys.readouterr().err


def test_a_revision_is_built_confined_to_its_spec_folder(repo, capsys, tmp_path):
    """The base revision is untrusted too: a run file committed as a link out of the tree is
    refused there as in any build (E503), and the diff says the revision does not build."""
    secret = tmp_path / "secret.json"
    secret.write_text('{"not": "a run"}', encoding="utf-8")
    data = repo.root / "specs" / "data"
    data.mkdir()
    (data / "x.json").symlink_to(secret)
    linked = SPEC.replace(
        "    reported {\n      source lab\n      throughput 120 tok/s/gpu\n    }\n",
        '    runs "data/x.json" format vllm source lab\n',
        1,
    )
    repo.commit(linked, "runs: a link out of the tree")
    repo.commit(SPEC, "spec: back to reported figures")
    code, _, err = run(capsys, "diff", "--rev", "HEAD~1", "specs/s.cmp")
    assert code == 2
    assert "E503" in err and "E803" in err and "does not build" in err
    assert "not a run" not in err


def test_no_winner_is_not_called_a_tie(in_repo, capsys, tmp_path):
    """specs/llama70b-newcomer.cmp at 20 tok/s/user: TP4 x PP2 is unreachable (no ratio); at
    5 tok/s/user both reads are lower bounds (ratio 1.381, winner not settled): no tie."""
    spec = "specs/llama70b-newcomer.cmp"
    base = build(capsys, spec, str(tmp_path / "a"))
    head = build(capsys, spec, str(tmp_path / "b"), "--set", "latency.target=5 tok/s/user")
    assert base["headline"]["winner"] is None and head["headline"]["winner"] is None
    code, out, err = run(capsys, "diff", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 0, err
    first = out.splitlines()[0]
    assert "a tie" not in first
    assert first.endswith(
        "no winner (no ratio) before, no winner (the reads do not settle it) after."
    )


def test_a_bound_ratios_one_sided_bound_and_noise_are_diffed(in_repo, capsys, tmp_path):
    """A real build plus, by hand (a fixture, not a measurement), the keys a bound headline
    ratio carries: its one-sided bound moving from 0.978 to 1.020 across 1, and the verdict
    with it. The diff shows both, where it showed neither."""
    base = build(capsys, "specs/mi355x-vs-b300-per-dollar.cmp", str(tmp_path / "p"))
    head = copy.deepcopy(base)
    base["headline"] |= {"bound": "lower", "throughput_ratio_one_sided_ci": 0.978,
                         "within_noise": True, "cost_within_noise": False}  # fmt: skip
    head["headline"] |= {"bound": "lower", "throughput_ratio_one_sided_ci": 1.02,
                         "within_noise": False, "cost_within_noise": False}  # fmt: skip
    outcome = diff_documents(base, head)
    rows = [line for line in outcome.stdout.splitlines() if "one-sided bound" in line]
    assert rows == ["| throughput ratio, one-sided bound | ×0.978 | ×1.020 | +4.3% |"]
    assert "| within measurement noise | true | false | changed |" in outcome.stdout
    document = compute_diff(base, head)
    jsonschema.validate(document, SCHEMA)
    (found,) = [f for f in document["figures"] if f["path"].endswith("ratio_one_sided_ci")][:1]
    assert (found["base"], found["head"], found["changed"]) == (0.978, 1.02, True)
