#!/usr/bin/env python3
"""Build the conformance suite's offline tokenizer (stdlib only; no model hub).

The tokenizer is a Hugging Face ``tokenizers`` WordLevel model behind the ``Whitespace``
pre-tokenizer (regex ``\\w+|[^\\w\\s]+``) with a ``Lowercase`` normalizer, written as
``tokenizer.json`` + ``tokenizer_config.json`` + ``config.json`` +
``special_tokens_map.json`` so that ``transformers.AutoTokenizer.from_pretrained(path)``
loads it as a ``PreTrainedTokenizerFast``.  Every pre-tokenizer piece is exactly one
token (unknown words become ``[UNK]``, itself one added special token), so the mock
server counts tokens with the same regex and gets the same numbers as the tokenizer.

The vocabulary is the mock server's output words plus the most frequent words of the
text corpora that the harnesses bundle for synthetic prompts (found in the harness
virtualenvs when the tokenizer is built) plus a fixed word list, so prompts decode to
words rather than to ``[UNK]``.  The committed copy under ``conformance/tokenizer/`` is
what the fixtures were made with; ``run.py`` rebuilds it only when it is missing.
"""

from __future__ import annotations

import collections
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from mock_server import OUTPUT_WORDS, SPECIALS  # noqa: E402

WORD = re.compile(r"\w+|[^\w\s]+")
CORPUS_NAMES = ("shakespeare.txt", "sonnet.txt", "sonnets.txt", "pride_and_prejudice.txt")
VOCAB_SIZE = 6000
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
)


def corpora(venvs: pathlib.Path) -> list[pathlib.Path]:
    found = []
    if venvs.is_dir():
        for name in CORPUS_NAMES:
            found.extend(sorted(venvs.glob(f"*/lib/python3*/site-packages/**/{name}")))
    return found


def build(out: pathlib.Path, venvs: pathlib.Path) -> dict:
    counts: collections.Counter[str] = collections.Counter()
    used = []
    for path in corpora(venvs):
        try:
            text = path.read_text(encoding="utf-8", errors="replace").lower()
        except OSError:
            continue
        used.append(str(path.relative_to(venvs)))
        counts.update(WORD.findall(text))
    words = list(dict.fromkeys(OUTPUT_WORDS))
    punctuation = [*".,;:!?'\"()-[]", "'s", "--", "...", "\n"]
    for w in punctuation:
        if WORD.fullmatch(w) and w not in words:
            words.append(w)
    for w, _ in counts.most_common():
        if len(words) >= VOCAB_SIZE - len(SPECIALS):
            break
        if w not in words:
            words.append(w)
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for w in words:
        vocab.setdefault(w, len(vocab))
    added = [
        {
            "id": vocab[s],
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s in SPECIALS
    ]
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False, indent=0) + "\n")
    (out / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "PreTrainedTokenizerFast",
                "unk_token": "[UNK]",
                "pad_token": "[PAD]",
                "bos_token": "<s>",
                "eos_token": "</s>",
                "model_max_length": 32768,
                "clean_up_tokenization_spaces": False,
                "add_bos_token": False,
                "add_eos_token": False,
                "chat_template": CHAT_TEMPLATE,
            },
            indent=1,
        )
        + "\n"
    )
    (out / "special_tokens_map.json").write_text(
        json.dumps(
            {
                "unk_token": "[UNK]",
                "pad_token": "[PAD]",
                "bos_token": "<s>",
                "eos_token": "</s>",
            },
            indent=1,
        )
        + "\n"
    )
    (out / "config.json").write_text(
        json.dumps(
            {
                "model_type": "gpt2",
                "architectures": ["GPT2LMHeadModel"],
                "vocab_size": len(vocab),
                "n_positions": 32768,
                "max_position_embeddings": 32768,
                "bos_token_id": vocab["<s>"],
                "eos_token_id": vocab["</s>"],
                "n_embd": 64,
                "n_layer": 1,
                "n_head": 1,
            },
            indent=1,
        )
        + "\n"
    )
    (out / "SOURCES.json").write_text(
        json.dumps(
            {
                "built_by": "conformance/tokenizer.py",
                "vocab_size": len(vocab),
                "corpora": used,
            },
            indent=1,
        )
        + "\n"
    )
    return {"vocab_size": len(vocab), "corpora": used}


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "tokenizer"
    print(json.dumps(build(out, HERE / ".venvs")))
