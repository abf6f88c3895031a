"""A small two-system sweep in cmpc JSONL, written fresh for each test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

SPEC = """comparison "Cache test sweep" {
  baseline beta
  latency {
    metric tpot
    statistic p90
    target 30 tok/s/user
  }
  tokens {
    count input + output
    reused included
  }
  system alpha {
    accelerator "A" x 8
    parallel tp 8
    price 2.00 USD/gpu/h basis assumed
    runs "data/alpha/*.jsonl" format cmpc
  }
  system beta {
    accelerator "B" x 8
    parallel tp 8
    price 2.50 USD/gpu/h basis assumed
    runs "data/beta/*.jsonl" format cmpc
  }
  sensitivity { statistic median | p90 | p99 }
}
"""


def write_run(path: Path, *, conc: int, speed: float, seed: int, requests: int = 6) -> None:
    """A closed-loop run: `conc` lanes, each sending `requests` streamed requests in turn."""
    rng = np.random.default_rng(seed)
    lines = [json.dumps({"cmpc_trace": 1, "fields": {"conc": conc, "tp": 8}})]
    for _lane in range(conc):
        t = 0.0
        for _ in range(requests):
            out = int(rng.integers(20, 60))
            ttft = float(rng.gamma(2.0, 0.05))
            gaps = rng.gamma(4.0, 0.0025 * (1 + conc / 8) / speed, out)
            times = np.round(t + ttft + np.cumsum(gaps), 6)
            lines.append(
                json.dumps(
                    {
                        "start": round(t, 6),
                        "input_tokens": 1000,
                        "cached_input_tokens": 400,
                        "output_tokens": out,
                        "chunk_times": times.tolist(),
                    }
                )
            )
            t = float(times[-1])
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def sweep(tmp_path: Path, monkeypatch) -> Path:
    """A spec folder: `sweep.cmp` over data/{alpha,beta}/conc-*.jsonl; returns the spec."""
    monkeypatch.delenv("CMPC_CACHE_DIR", raising=False)
    for s, (name, speed) in enumerate((("alpha", 1.3), ("beta", 1.0))):
        folder = tmp_path / "data" / name
        folder.mkdir(parents=True)
        for c in (1, 4, 16, 64):
            write_run(folder / f"conc-{c:02d}.jsonl", conc=c, speed=speed, seed=100 * s + c)
    spec = tmp_path / "sweep.cmp"
    spec.write_text(SPEC)
    return spec
