"""Helpers for the review verbs: a spec with reported figures, and throwaway git repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

# Two systems with reported throughput and declared prices: x leads y by 120 / 100 = 1.2x per
# GPU, and costs (2.00 / 120) / (3.00 / 100) = 0.5556x per token.
SPEC = """comparison "X vs Y" {
  question "Which serves more tokens per GPU?"
  baseline y

  source lab {
    title "Lab runs"
    role self
    run_date 2026-10-01
    status self_reported
  }

  latency {
    metric tpot
    statistic median
  }

  tokens {
    count input + output
    reused excluded
  }

  normalize per gpu

  system x {
    accelerator "GPU X" x 8
    cache_hit_rate 0%
    price 2.00 USD/gpu/h basis on_demand source lab as_of 2026-10-01
    reported {
      source lab
      throughput 120 tok/s/gpu
    }
  }

  system y {
    accelerator "GPU Y" x 8
    cache_hit_rate 0%
    price 3.00 USD/gpu/h basis on_demand source lab as_of 2026-10-01
    reported {
      source lab
      throughput 100 tok/s/gpu
    }
  }

  cost {
    utilization 100%
    per_million total
  }

  disclosure {
    load_conditions "closed loop, concurrency 64"
  }
}
"""

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **GIT_ENV},
        check=True,
        timeout=60,
    )
    return done.stdout


class Repo:
    """A git repository holding specs/s.cmp, committed one version at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.spec = root / "specs" / "s.cmp"
        self.spec.parent.mkdir(parents=True)
        git(root, "init", "-q", "-b", "main")

    def commit(self, text: str, message: str) -> str:
        self.spec.write_text(text, encoding="utf-8")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)
        return git(self.root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """A fresh repository as the working directory, its first commit the base spec."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)
    made = Repo(tmp_path / "repo")
    made.commit(SPEC, "spec: first version")
    monkeypatch.chdir(made.root)
    return made
