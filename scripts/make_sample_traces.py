"""Write the SYNTHETIC sample sweep used by specs/synthetic-sweep.cmp (seeded, reproducible).

Two made-up systems, `alpha` and `beta`, are simulated serving a closed-loop concurrency sweep.
Nothing here was measured on hardware: each request's timing comes from a small model (prefill
rate, per-token decode time growing with concurrency, lognormal noise, tokens per streamed chunk),
so the files exercise cmpc's readers, frontier reads, sensitivity and goodput on known inputs.
The parameters are chosen so that counting output tokens only and counting input + output tokens
pick different winners (beta's runs stop generating earlier, so more of its tokens are input).

    python scripts/make_sample_traces.py [--out specs/data/synthetic] [--seed 20261129]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SEED = 20261129
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Model:
    """How one synthetic system serves a request."""

    name: str
    prefill_tok_s: float  # uncached input tokens per second, one request alone
    tpot_base_s: float  # decode time per token at concurrency 1
    tpot_per_conc_s: float  # added per concurrent request
    input_tokens: int  # mean prompt length
    cached_share: float  # mean prefix-cache hit share of the prompt
    output_tokens: int  # mean generated length
    tokens_per_chunk: int  # tokens per streamed chunk (2 with speculative decoding)
    error_rate: float


MODELS = (
    Model("alpha", 24_000, 0.008, 0.00060, 2000, 0.50, 200, 1, 0.01),
    Model("beta", 30_000, 0.008, 0.00090, 2000, 0.90, 100, 2, 0.02),
)


def simulate(model: Model, conc: int, rng: np.random.Generator) -> tuple[dict, list[dict]]:
    """One closed-loop run: `conc` workers, each sending requests back to back."""
    per_worker = max(2, 64 // conc)
    requests = []
    for _worker in range(conc):
        clock = float(rng.uniform(0, 0.05))
        for _ in range(per_worker):
            prompt = int(rng.integers(int(model.input_tokens * 0.8), int(model.input_tokens * 1.2)))
            cached = int(prompt * min(0.99, max(0.0, rng.normal(model.cached_share, 0.03))))
            start = clock
            if rng.random() < model.error_rate:
                end = start + float(rng.uniform(0.05, 0.3))
                requests.append(_failed(start, end, prompt))
                clock = end
                continue
            queue = 0.002 * conc * float(rng.exponential(1.0))
            ttft = (prompt - cached) / model.prefill_tok_s + queue
            out = max(2, int(rng.normal(model.output_tokens, model.output_tokens * 0.15)))
            tpot = (model.tpot_base_s + model.tpot_per_conc_s * conc) * float(
                rng.lognormal(0.0, 0.10)
            )
            gaps = tpot * rng.lognormal(0.0, 0.25, size=out - 1)
            token_times = start + ttft + np.concatenate(([0.0], np.cumsum(gaps)))
            k = model.tokens_per_chunk
            chunk_end = np.arange(0, out, k)  # the first token of each chunk
            times = token_times[np.minimum(chunk_end + k - 1, out - 1)]
            times[0] = token_times[0]
            tokens = np.diff(np.append(chunk_end, out)).astype(int)
            tokens[0] = 1  # the first token arrives alone (TTFT)
            tokens[-1] += out - int(tokens.sum())
            requests.append(
                {
                    "start": round(start, 6),
                    "first_token": round(float(times[0]), 6),
                    "end": round(float(times[-1]), 6),
                    "chunk_times": [round(float(t), 6) for t in times],
                    "chunk_tokens": [int(t) for t in tokens],
                    "input_tokens": prompt,
                    "cached_input_tokens": cached,
                    "output_tokens": out,
                    "error": None,
                }
            )
            clock = float(times[-1]) + float(rng.uniform(0.0, 0.01))
    requests.sort(key=lambda r: r["start"])
    duration = max(r["end"] for r in requests) - min(r["start"] for r in requests)
    header = {
        "cmpc_trace": 1,
        "synthetic": True,
        "generator": "scripts/make_sample_traces.py",
        "duration_s": round(duration, 6),
        "fields": {"system": model.name, "conc": conc, "tp": 8, "seed": SEED, "synthetic": "yes"},
    }
    return header, requests


def _failed(start: float, end: float, prompt: int) -> dict:
    return {
        "start": round(start, 6),
        "end": round(end, 6),
        "input_tokens": prompt,
        "output_tokens": 0,
        "error": "HTTP 503: server overloaded (synthetic)",
    }


def write_all(out: Path, seed: int = SEED) -> list[Path]:
    """Write every run file; the same seed always gives byte-identical files."""
    written = []
    for index, model in enumerate(MODELS):
        folder = out / model.name
        folder.mkdir(parents=True, exist_ok=True)
        for conc in CONCURRENCY:
            rng = np.random.default_rng([seed, index, conc])
            header, requests = simulate(model, conc, rng)
            path = folder / f"conc-{conc:02d}.jsonl"
            lines = [json.dumps(header, sort_keys=True)]
            lines += [json.dumps(r, sort_keys=True, separators=(",", ":")) for r in requests]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            written.append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parents[1]
    parser.add_argument("--out", type=Path, default=root / "specs" / "data" / "synthetic")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    for path in write_all(args.out, args.seed):
        print(path)


if __name__ == "__main__":
    main()
