"""detect._sglang_keys_in: the SGLang signature's regex search, found from the keys' underscores."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cmpc.traces import detect

KEYS = ("total_output_tokens_retokenized", "mean_e2e_latency_ms", "output_throughput_retokenized")
PIECES = [
    *(f'"{k}"' for k in KEYS),
    *(f'"{k}' for k in KEYS),
    *(k for k in KEYS),
    "_", "__", '"', ":", " ", "\n", "\x0b", "\x1c", "\u2003", "\u3000", "\xa0", "é",
    '"mean_', '"total_', '"output_', "mean_e2e", "_retokenized", '"mean__e2e_latency_ms"',
    "0.25, ", "[8000, ", "]", "{", "}", ",",
]  # fmt: skip


def _regex(text: str) -> bool:
    return re.search(detect._SGLANG_KEYS, text) is not None


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_the_same_answer_as_the_regex_on_texts_of_keys_quotes_and_spaces(pieces):
    text = "".join(pieces)
    assert detect._sglang_keys_in(text) == _regex(text), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='_": \t\n\u2028ameno', max_size=80), st.sampled_from(KEYS))
def test_the_same_answer_around_a_key(noise, key):
    for text in (noise + f'"{key}"' + noise + ":", f'"{key}"' + noise, noise + f'"{key}":'):
        assert detect._sglang_keys_in(text) == _regex(text), text


def test_past_the_underscores_tried_one_by_one_the_rest_is_searched():
    many = "_" * (detect._UNDERSCORES + 5)
    for text in (
        many + '"mean_e2e_latency_ms" :',
        "x_" * detect._UNDERSCORES + '"total_output_tokens_retokenized":',
        many + '"mean_e2e_latency_ms"',  # no colon: no match
        '"mean_e2e_latency_ms":' + many,
        "_" * (detect._UNDERSCORES - 2) + '"output_throughput_retokenized"\u3000:',
    ):
        assert detect._sglang_keys_in(text) == _regex(text), text[-60:]


def test_a_vllm_head_is_no_sglang_file_and_an_sglang_line_is():
    vllm = '{"backend": "vllm", "completed": 3, "duration": 1.5, "request_throughput": 2.0, '
    vllm += '"input_lens": [' + ", ".join(["8000"] * 5000) + "]}"
    assert detect.candidates(vllm.encode(), among="vllm") == ["vllm"]
    sglang = '{"completed": 3, "duration": 1.5, "request_throughput": 2.0, '
    sglang += '"total_output_tokens_retokenized": 30}\n{"completed": 1}\n'
    assert detect.candidates(sglang.encode(), among="vllm") == ["sglang"]
