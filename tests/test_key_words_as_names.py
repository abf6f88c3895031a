"""A name that is also a key word (a source called `runs`) is read as the name where one is due."""

from __future__ import annotations

from cmpc.compile import compile_source
from cmpc.source import SourceFile

SPEC = """comparison "key words as names" {
  baseline a
  source runs { role self }
  source format { role third_party }
  latency {
    metric tpot
    statistic p90
  }
  system a {
    accelerator "A100" x 8
    parallel tp 8
    runs "data/a/*.json" format vllm source runs
  }
  system b {
    accelerator "A100" x 8
    parallel tp 8
    runs "data/b/*.json" source format format vllm where tp 8
  }
}
"""


def test_a_source_named_like_a_key_word_is_resolved():
    comparison, diagnostics = compile_source(SourceFile("kw.cmp", SPEC))
    assert [d.code for d in diagnostics] == []
    assert comparison is not None
    a, b = comparison.systems
    assert a.runs is not None and a.runs.source == "runs" and a.runs.format == "vllm"
    assert b.runs is not None and b.runs.source == "format" and b.runs.format == "vllm"
    assert b.runs.where == (("tp", "8"),)


def test_entries_run_together_are_still_e005():
    text = SPEC.replace("metric tpot\n    statistic p90", "metric tpot statistic p90")
    _, diagnostics = compile_source(SourceFile("kw.cmp", text))
    assert [d.code for d in diagnostics] == ["E005"]
