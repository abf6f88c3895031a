"""Replicate reads are computed once per build for equal inputs, with unchanged results."""

from __future__ import annotations

import hashlib
from pathlib import Path

from cmpc.analysis import readmemo, uncertainty
from cmpc.build.pipeline import build_spec

SPEC = Path(__file__).resolve().parents[2] / "specs" / "synthetic-sweep.cmp"


def _results(out: Path) -> bytes:
    outcome = build_spec(str(SPEC), out_dir=str(out))
    assert outcome.code == 0, outcome.diagnostics
    return (out / "results.json").read_bytes()


def test_equal_replicate_reads_run_once_per_build(tmp_path, monkeypatch):
    seen: list[str] = []
    batch = uncertainty.read_batch

    def counted(speed, through, at, method):
        seen.append(hashlib.sha256(f"{at} {method}".encode() + speed.tobytes()).hexdigest())
        seen[-1] += hashlib.sha256(through.tobytes()).hexdigest()
        return batch(speed, through, at, method)

    monkeypatch.setattr(uncertainty, "read_batch", counted)
    readmemo.forget()
    _results(tmp_path / "o")
    # the spec's sensitivity has utilization alternatives, whose reads equal the spec's own
    assert len(seen) > 4
    assert len(set(seen)) == len(seen)


def test_remembered_reads_give_the_results_computed_afresh(tmp_path, monkeypatch):
    readmemo.forget()
    remembered = _results(tmp_path / "memo")
    again = _results(tmp_path / "again")  # every read from the memo this time
    monkeypatch.setattr(uncertainty, "remembered", lambda key, compute: compute())
    assert remembered == again == _results(tmp_path / "afresh")


def test_a_remembered_read_is_a_copy_and_the_memo_is_bounded():
    readmemo.forget()
    first = readmemo.remembered("k", lambda: [1.0, 2.0])
    first[0] = 9.0
    assert readmemo.remembered("k", lambda: [0.0]).tolist() == [1.0, 2.0]
    for i in range(readmemo.LIMIT + 5):
        readmemo.remembered(str(i), lambda: [0.0])
    assert readmemo.remembered("k", lambda: [3.0]).tolist() == [3.0]  # dropped, recomputed
    readmemo.forget()
