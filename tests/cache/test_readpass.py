"""SHA-256 in the reading pass: each byte of a run file read once, the digest unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from cmpc.ingest import cache as cache_module
from cmpc.ingest import reduce as ingest
from cmpc.ingest.cache import Cache
from cmpc.traces import load_runs, readpass


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def big_vllm(tmp_path: Path, latencies: bool) -> Path:
    """A synthetic (seeded) vLLM `--save-detailed` file whose chunk gaps are its bulk."""
    rng = np.random.default_rng(7)
    requests, gaps = 200, 500
    ttfts = rng.gamma(2.0, 0.05, requests).round(6)
    itls = rng.gamma(4.0, 0.005, (requests, gaps)).round(6)
    doc = {
        "backend": "vllm",
        "model_id": "synthetic",
        "duration": 60.0,
        "completed": requests,
        "failed": 0,
        "request_throughput": requests / 60.0,
        "input_lens": [512] * requests,
        "output_lens": [gaps + 1] * requests,
        "ttfts": ttfts.tolist(),
        "itls": itls.tolist(),
        **({"latencies": (ttfts + itls.sum(axis=1)).tolist()} if latencies else {}),
        "errors": [""] * requests,
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("gaps", [True, False])
def test_the_reading_pass_reads_each_byte_about_once_and_hashes_all(tmp_path, gaps):
    path = big_vllm(tmp_path, latencies=True)
    with readpass.hashing(str(path)) as current:
        load_runs(str(path), format="vllm", gaps=gaps)
    assert current.digest == sha256(path)
    assert path.stat().st_size <= current.read < 1.1 * path.stat().st_size


def test_a_file_the_reader_left_mostly_unread_is_hashed_whole(tmp_path):
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": 1}' + b" " * (3 << 20))
    with readpass.hashing(str(path)) as current, readpass.open_input(str(path)) as handle:
        handle.seek(2 << 20)
        handle.read(10)  # jumps ahead: the skipped bytes are hashed where it lands
    assert current.digest == sha256(path)
    assert current.read == path.stat().st_size


def test_only_the_first_open_of_the_named_file_is_hashed(tmp_path):
    path, other = tmp_path / "a", tmp_path / "b"
    path.write_bytes(b"a" * 100)
    other.write_bytes(b"b")
    with readpass.hashing(str(path)) as current:
        with readpass.open_input(str(other)) as handle:
            handle.read()
        assert not current.claimed
        for _ in range(2):
            with readpass.open_input(str(path)) as handle:
                handle.read(10)
    assert current.digest == sha256(path)
    assert current.read == 100


def test_a_cold_reduction_hashes_in_the_read_and_remembers_it(tmp_path, monkeypatch):
    path = big_vllm(tmp_path, latencies=False)
    cache = Cache(tmp_path / "cache")
    cache.prepare()
    later = time.time() + 10  # the file has settled: its hash may be remembered
    monkeypatch.setattr(cache_module.time, "time", lambda: later)
    monkeypatch.setattr(ingest, "sha256_of", lambda p: pytest.fail("hashed in a second pass"))
    monkeypatch.setattr(cache_module, "sha256_of", lambda p: pytest.fail("hashed in a 2nd pass"))
    task = ingest.Task(str(path), "run.json", "vllm", (), "tpot", ("p90",))
    done = ingest.reduce_file(task, cache)
    assert done.sha256 == sha256(path) and not done.cached and done.reduced.runs == 1
    assert cache.known_sha256(path) == done.sha256
    again = ingest.reduce_file(task, cache)
    assert again.cached and again.reduced == done.reduced and again.sha256 == done.sha256


def test_an_entry_made_elsewhere_is_found_by_the_hash_of_the_read(tmp_path):
    path = big_vllm(tmp_path, latencies=True)
    cache = Cache(tmp_path / "cache")
    cache.prepare()
    task = ingest.Task(str(path), "run.json", "vllm", (), "tpot", ("p90",))
    first = ingest.reduce_file(task, cache)
    for memo in (cache.root / "hashes").iterdir():
        memo.unlink()  # as after a fresh checkout: the entry is there, the stat memo is not
    os.utime(path)
    again = ingest.reduce_file(task, cache)
    assert again.cached and again.sha256 == first.sha256 == sha256(path)


def test_an_unreadable_file_still_names_no_hash_and_the_reason(tmp_path):
    task = ingest.Task(str(tmp_path / "missing.json"), "missing.json", "vllm", (), "tpot", ("p90",))
    done = ingest.reduce_file(task, None)
    assert done.sha256 == "" and [d.code for d in done.diagnostics] == ["E300"]
