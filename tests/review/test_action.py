"""The GitHub Action's steps (scripts/cmpc-review.sh, which action.yml runs) on a temporary
repository with two commits of a spec: the summary it writes and the exit codes it returns."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import GIT_ENV, SPEC, git

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "cmpc-review.sh"
ACTION = REPO / "action.yml"
PRICED = SPEC.replace("price 2.00 USD/gpu/h", "price 2.50 USD/gpu/h")
FLIPPED = SPEC.replace("throughput 120 tok/s/gpu", "throughput 80 tok/s/gpu")


def review(repo, tmp_path: Path, **env: str) -> tuple[int, str, str]:
    """Run the action's script as the action does: from the checkout, environment only."""
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    done = subprocess.run(
        ["bash", str(SCRIPT)],
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            **os.environ,
            **GIT_ENV,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "CMPC_BASE": "HEAD~1",
            "GITHUB_STEP_SUMMARY": str(summary),
            **env,
        },
    )
    return done.returncode, summary.read_text(encoding="utf-8"), done.stdout + done.stderr


def test_a_price_change_is_summarized_and_passes(repo, tmp_path):
    repo.commit(PRICED, "price: x at 2.50")
    code, summary, log = review(repo, tmp_path, CMPC_FAIL_ON="flip\nverdict-drop")
    assert code == 0, log
    assert summary.startswith("## cmpc: what this change does to the comparisons\n")
    assert "### `specs/s.cmp`" in summary
    assert "cost-per-token ratio ×0.556 → ×0.694 (+25%)" in summary
    assert "No change in conclusions" in summary
    comment = (repo.root / "cmpc-reports" / "comment.md").read_text(encoding="utf-8")
    assert comment == summary  # the file a comment step posts is the summary
    assert (repo.root / "cmpc-reports" / "specs_s" / "report.md").is_file()  # the rebuilt report
    assert "::group::cmpc diff --rev HEAD~1 specs/s.cmp" in log


def test_a_flip_under_fail_on_flip_exits_3(repo, tmp_path):
    repo.commit(FLIPPED, "throughput: x at 80")
    code, summary, log = review(repo, tmp_path, CMPC_FAIL_ON="flip")
    assert code == 3, log
    assert "**the winner flips from x to y**" in summary
    assert "**A `--fail-on` policy failed** (exit 3)" in summary
    assert "::error title=E810" in log  # the annotation GitHub shows
    assert review(repo, tmp_path)[0] == 0  # no policy, no failure


def test_require_failures_exit_3_and_input_errors_win_over_them(repo, tmp_path):
    repo.commit(PRICED, "price: x at 2.50")
    code, summary, _ = review(repo, tmp_path, CMPC_REQUIRE="headline.cost_ratio < 0.6")
    assert code == 3 and "**A `--require` policy failed** (exit 3)" in summary
    # an unformatted spec is an input error (1): it outranks a failed policy
    repo.commit(PRICED.replace("  baseline y", "  baseline   y"), "layout: not canonical")
    code, summary, log = review(repo, tmp_path, CMPC_REQUIRE="headline.cost_ratio < 0.6")
    assert code == 1, log
    assert "**Not in canonical layout**" in summary and "would reformat" in summary


def test_no_changed_spec_and_a_new_spec(repo, tmp_path):
    (repo.root / "README.md").write_text("notes\n", encoding="utf-8")
    git(repo.root, "add", "README.md")
    git(repo.root, "commit", "-q", "-m", "docs: notes")
    code, summary, _ = review(repo, tmp_path)
    assert code == 0 and "No spec matching `**/*.cmp` changed since `HEAD~1`." in summary
    (repo.root / "specs" / "new.cmp").write_text(SPEC, encoding="utf-8")
    git(repo.root, "add", "specs/new.cmp")
    git(repo.root, "commit", "-q", "-m", "spec: a new one")
    code, summary, log = review(repo, tmp_path)
    assert code == 0, log
    assert "### `specs/new.cmp`" in summary and "A new spec: nothing to compare with" in summary


def test_the_action_runs_the_script_with_inputs_in_the_environment_only():
    """Inputs never appear inside a `run:` line (a spec glob or policy from a pull request
    cannot become shell code); the script is what the action's review step runs."""
    text = ACTION.read_text(encoding="utf-8")
    assert "using: composite" in text
    runs = re.findall(r"run: \|\n((?:        .*\n)+)|run: (.*)\n", text)
    assert runs
    for block, line in runs:
        assert "${{" not in (block or line)
    assert 'run: bash "$GITHUB_ACTION_PATH/scripts/cmpc-review.sh"' in text
    for name in ("specs", "require", "fail-on", "cmpc-version", "base"):
        assert re.search(rf"^  {re.escape(name)}:\n    description:", text, re.M), name


@pytest.mark.parametrize("name", ["x\n::warning::injected.cmp", "-rf.cmp"])
def test_hostile_spec_names_stay_names(repo, tmp_path, name):
    """A changed file's name is data: it cannot start a workflow command or be an option."""
    (repo.root / "specs" / name).write_text(SPEC, encoding="utf-8")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "-m", "spec: an odd name")
    code, summary, log = review(repo, tmp_path)
    assert code == 0, log
    assert not re.search(r"^::warning::injected", log, re.M)
    assert "A new spec" in summary


def test_the_documented_pin_is_a_commit_that_ships_the_action():
    """docs/ci.md's `uses: cmpc-dev/cmpc@SHA`: GitHub fetches that commit, so it must exist
    here and hold action.yml and the script it runs, and the inputs it passes must exist."""
    text = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    pinned = re.search(r"uses: cmpc-dev/cmpc@(\S+)\n        with:\n((?:          .*\n)+)", text)
    assert pinned, "docs/ci.md has no pinned `uses: cmpc-dev/cmpc@...` example"
    sha, inputs = pinned.group(1), pinned.group(2)
    assert re.fullmatch(r"[0-9a-f]{40}", sha), f"`@{sha}` is not a pinned commit"
    for path in ("action.yml", "scripts/cmpc-review.sh"):
        shown = subprocess.run(
            ["git", "show", f"{sha}:{path}"], cwd=REPO, capture_output=True, text=True
        )
        assert shown.returncode == 0, shown.stderr
    at_pin = subprocess.run(
        ["git", "show", f"{sha}:action.yml"], cwd=REPO, capture_output=True, text=True
    ).stdout
    for name in re.findall(r"^          ([a-z-]+):", inputs, re.M):
        assert re.search(rf"^  {name}:\n", at_pin, re.M), name
