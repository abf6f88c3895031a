"""Disclosure facts from the run files: filled where the spec is silent, the spec's answer wins,
and a disagreement is W440. The runs are the real vLLM 0.8.3 result files of specs/data/llama70b
(`num_prompts` 200; `request_rate` 4.0 and inf; `burstiness` 1.0; `date`; `model_id`)."""

from __future__ import annotations

import json

from cmpc.build.pipeline import build_spec

LLAMA = "specs/llama70b-a100-tp8-vs-tp4pp2.cmp"


def _build(tmp_path, *sets: str):
    outcome = build_spec(LLAMA, out_dir=str(tmp_path / "out"), sets=list(sets))
    assert outcome.code == 0, outcome.diagnostics
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    items = {i["key"]: i for i in results["disclosure"]["items"]}
    return items, (tmp_path / "out" / "report.md").read_text(), outcome


def test_run_files_answer_what_the_spec_leaves_open(in_repo, tmp_path):
    items, report, outcome = _build(tmp_path)
    assert items["num_requests"]["from"] == "files"
    assert items["num_requests"]["from_files"] == "from the run files: 200 prompts per run"
    load = items["load_conditions"]
    assert load["answered"] and load["from"] == "files"
    assert load["from_files"] == (
        "from the run files: TP8, 1x ND96asr_v4: request rate 4 req/s; burstiness 1 (Poisson "
        "arrivals); TP4 x PP2, 2x ND96asr_v4 (InfiniBand): request rate inf (all requests at once)"
    )
    assert items["model_revision"]["from_files"] == (
        "from the run files: model meta-llama/Llama-3.3-70B-Instruct (no revision stated)"
    )
    # the source's run date is declared; the files' own timestamps are shown beside it
    assert items["measured_at"]["from"] == "spec"
    assert "2025-04-14 14:16:21" in items["measured_at"]["from_files"]
    assert (
        "| `num_requests` | How many requests, over how long? | from the run files: 200 prompts "
        "per run |"
    ) in report
    assert "W440" not in {d.code for d in outcome.diagnostics}


def test_the_spec_answer_wins_and_a_disagreement_is_w440(in_repo, tmp_path):
    items, report, outcome = _build(tmp_path, 'disclosure.num_requests="1000 requests per run"')
    item = items["num_requests"]
    assert item["from"] == "answer" and item["answer"] == "1000 requests per run"
    assert item["from_files"] is None
    row = "| `num_requests` | How many requests, over how long? | 1000 requests per run |"
    assert row in report
    w440 = [d for d in outcome.diagnostics if d.code == "W440"]
    assert len(w440) == 2  # both systems' files say 200
    assert "disagrees with the run files (200 prompts in data/llama70b/tp8_" in w440[0].message
    assert w440[0].file and w440[0].file.endswith("llama70b-a100-tp8-vs-tp4pp2.cmp")


def test_an_agreeing_answer_is_quiet(in_repo, tmp_path):
    _, _, outcome = _build(tmp_path, 'disclosure.num_requests="200 prompts per run"')
    assert "W440" not in {d.code for d in outcome.diagnostics}


def test_a_model_the_files_contradict_is_w440(in_repo, tmp_path):
    _, _, outcome = _build(tmp_path, 'system.tp8.model="Llama-3.1-8B"')
    (w440,) = [d for d in outcome.diagnostics if d.code == "W440"]
    assert "`tp8`" in w440.message and "meta-llama/Llama-3.3-70B-Instruct" in w440.message
