"""No input makes a reader raise: truncations and byte flips of small valid traces."""

from __future__ import annotations

import json
import random

import pytest

from cmpc.traces import load_runs

VLLM = json.dumps(
    {
        "duration": 3.0,
        "completed": 2,
        "request_throughput": 0.6,
        "input_lens": [5, 6],
        "output_lens": [3, 1],
        "ttfts": [0.1, 0.2],
        "itls": [[0.01, 0.02], []],
        "latencies": [0.2, 0.3],
        "errors": ["", ""],
    }
)
CMPC = "\n".join(
    json.dumps(x)
    for x in (
        {"cmpc_trace": 1, "fields": {"tp": 8}},
        {"start": 0.0, "chunk_times": [0.1, 0.2], "chunk_tokens": [1, 1], "input_tokens": 4},
        {"start": 0.1, "chunk_times": [0.3], "chunk_tokens": [2], "error": None},
    )
)
AIPERF = json.dumps(
    {
        "metadata": {"x_request_id": "a", "timestamp_ns": 10},
        "metrics": {
            "ttft": {"value": 5.0, "unit": "ms"},
            "request_latency": {"value": 9.0, "unit": "ms"},
            "inter_chunk_latency": {"value": [1.0, 2.0], "unit": "ms"},
            "output_sequence_length": {"value": 3, "unit": "tokens"},
            "min_request_timestamp": {"value": 10, "unit": "ns"},
            "max_response_timestamp": {"value": 9000010, "unit": "ns"},
        },
        "error": None,
    }
)
CASES = {"vllm.json": VLLM, "trace.jsonl": CMPC, "aiperf.jsonl": AIPERF + "\n" + AIPERF}


def _check(tmp_path, name: str, text: str | bytes) -> None:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    runs, diags = load_runs(str(path))
    assert runs or diags


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_truncation(tmp_path, name):
    text = CASES[name]
    for cut in range(0, len(text), 3):
        _check(tmp_path, name, text[:cut])


@pytest.mark.parametrize("name", sorted(CASES))
def test_random_byte_changes(tmp_path, name):
    rng = random.Random(1234)
    data = CASES[name].encode()
    alphabet = b'0123456789.-eE,[]{}":naNI \n'
    for _ in range(300):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.choice(alphabet)
        _check(tmp_path, name, bytes(mutated))
