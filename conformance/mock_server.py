#!/usr/bin/env python3
"""A small OpenAI-compatible mock server for the conformance suite (stdlib only).

It serves ``/v1/models``, ``/v1/completions`` and ``/v1/chat/completions`` (plus
``/health``, ``/v1/health`` and ``/ping``), non-streaming and SSE streaming
(``stream: true``; ``stream_options.include_usage`` adds a final usage-only chunk with
``prompt_tokens``, ``completion_tokens`` and ``prompt_tokens_details.cached_tokens``).

Timing is drawn per request from a seeded generator: time to first token ~ lognormal,
inter-token gaps ~ gamma.  The output length honours ``max_tokens`` /
``max_completion_tokens`` / ``max_new_tokens``; ``min_tokens`` and ``ignore_eos`` are
honoured too (without ``ignore_eos`` a seeded fraction of requests stops early, with
``finish_reason: "stop"``, never below ``min_tokens``).  A seeded fraction of requests
fails with HTTP 500 (request number n fails when ``Random(seed, n) < fail_rate``; the
number counts generation requests in arrival order).  A seeded fraction of streamed
chunks carries two tokens instead of one, so per-chunk and per-token definitions of
inter-token latency differ measurably.

Tokens are counted with the conformance tokenizer's own rule (see ``tokenizer.py``):
the tokenizer is a WordLevel model behind the ``Whitespace`` pre-tokenizer, so the
number of tokens of a text is the number of ``\\w+|[^\\w\\s]+`` pieces (special tokens
such as ``[UNK]`` count as one).  Generated text is one vocabulary word per token,
so re-tokenizing the output with the same tokenizer gives ``completion_tokens``.

Prompt caching is simulated: the prompt's tokens are split into blocks of
``--cache-block`` tokens and ``cached_tokens`` is the length of the longest prefix of
whole blocks that an earlier request already sent.

The server listens on 127.0.0.1 only, on a free port unless ``--port`` is given, and
stops by itself after ``--max-seconds`` (or when it is sent SIGTERM/SIGINT).  It prints
``LISTENING <port>`` on stdout once ready, writes a JSON line per request to
``--log`` if given, and a summary JSON to ``--summary`` on exit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"
SPECIALS = ("[UNK]", "[PAD]", "<s>", "</s>")
PIECE = re.compile("|".join(re.escape(s) for s in SPECIALS) + r"|\w+|[^\w\s]+")

# Words the server generates (all of them are in the conformance tokenizer's vocabulary).
OUTPUT_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "it",
    "for",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "at",
    "from",
    "or",
    "an",
    "have",
    "not",
    "but",
    "all",
    "they",
    "which",
    "one",
    "were",
    "their",
    "there",
    "been",
    "has",
    "more",
    "will",
    "would",
    "when",
    "what",
    "so",
    "if",
    "out",
    "about",
    "up",
    "into",
    "than",
    "them",
    "can",
    "only",
    "other",
    "new",
    "some",
    "time",
    "could",
    "these",
    "two",
    "may",
    "then",
    "first",
    "any",
    "like",
    "now",
    "my",
    "such",
    "make",
    "over",
    "our",
    "even",
    "most",
    "after",
    "also",
    "made",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "here",
    "get",
    "both",
    "between",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "small",
    "light",
    "water",
    "model",
    "token",
    "server",
    "latency",
    "request",
    "stream",
    "cache",
    "prompt",
    "answer",
    "question",
    "system",
    "number",
    "value",
    "result",
    "test",
    "window",
    "measure",
    "sample",
    "signal",
]


def count_tokens(text: str) -> list[str]:
    return PIECE.findall(text)


def prompt_text(body: dict, chat: bool) -> str:
    if chat:
        parts = []
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                for item in content:
                    if isinstance(item, dict) and isinstance(item.get("text"), str):
                        parts.append(item["text"])
        return "\n".join(parts)
    prompt = body.get("prompt", "")
    if isinstance(prompt, list):
        if prompt and all(isinstance(p, int) for p in prompt):
            return " ".join("x" for _ in prompt)  # token ids: one token each
        return "\n".join(str(p) for p in prompt)
    return str(prompt)


class PrefixCache:
    def __init__(self, block: int, capacity: int = 200_000):
        self.block = block
        self.capacity = capacity
        self.seen: set[bytes] = set()
        self.lock = threading.Lock()

    def lookup_and_insert(self, tokens: list[str]) -> int:
        digest = hashlib.blake2b(digest_size=16)
        cached = 0
        hits = True
        keys = []
        for start in range(0, len(tokens) - self.block + 1, self.block):
            for tok in tokens[start : start + self.block]:
                digest.update(tok.encode())
                digest.update(b"\x00")
            keys.append(digest.copy().digest())
        with self.lock:
            for i, key in enumerate(keys):
                if hits and key in self.seen:
                    cached = (i + 1) * self.block
                else:
                    hits = False
                if len(self.seen) < self.capacity:
                    self.seen.add(key)
        return cached


class State:
    def __init__(self, args):
        self.args = args
        self.counter = 0
        self.lock = threading.Lock()
        self.cache = PrefixCache(args.cache_block)
        self.stats = {
            "requests": 0,
            "failed": 0,
            "streamed": 0,
            "completion_tokens": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "by_path": {},
        }
        self.log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115 (open for the server's life)

    def next_index(self, path: str) -> int:
        with self.lock:
            n = self.counter
            self.counter += 1
            self.stats["requests"] += 1
            self.stats["by_path"][path] = self.stats["by_path"].get(path, 0) + 1
            return n

    def record(self, entry: dict):
        with self.lock:
            if entry.get("status") != 200:
                self.stats["failed"] += 1
            else:
                self.stats["completion_tokens"] += entry.get("completion_tokens", 0)
                self.stats["prompt_tokens"] += entry.get("prompt_tokens", 0)
                self.stats["cached_tokens"] += entry.get("cached_tokens", 0)
            if entry.get("stream"):
                self.stats["streamed"] += 1
            if self.log:
                self.log.write(json.dumps(entry) + "\n")
                self.log.flush()


def plan(args, n: int, body: dict, prompt_tokens: int):
    """Everything random about request n, drawn from Random(seed, n)."""
    rng = random.Random(f"{args.seed}:{n}")
    fail = rng.random() < args.fail_rate
    max_tokens = None
    for key in ("max_completion_tokens", "max_tokens", "max_new_tokens"):
        if isinstance(body.get(key), int) and body[key] > 0:
            max_tokens = body[key]
            break
    if max_tokens is None:
        max_tokens = args.default_max_tokens
    max_tokens = min(max_tokens, args.max_output_cap)
    min_tokens = body.get("min_tokens") if isinstance(body.get("min_tokens"), int) else 0
    min_tokens = max(0, min(min_tokens, max_tokens))
    ignore_eos = bool(body.get("ignore_eos"))
    length, finish = max_tokens, "length"
    if not ignore_eos and min_tokens < max_tokens and rng.random() < args.eos_rate:
        length = rng.randint(max(min_tokens, 1), max_tokens)
        finish = "stop"
    # lognormal TTFT with the given median, growing mildly with the uncached prompt.
    ttft = args.ttft_median * math.exp(args.ttft_sigma * rng.gauss(0, 1))
    ttft += prompt_tokens * args.prefill_per_token
    shape = args.itl_shape
    gaps = [rng.gammavariate(shape, args.itl_mean / shape) for _ in range(length)]
    words = [OUTPUT_WORDS[rng.randrange(len(OUTPUT_WORDS))] for _ in range(length)]
    # group tokens into chunks: mostly one token per chunk, sometimes two.
    chunks = []
    i = 0
    while i < length:
        k = 2 if (i + 1 < length and rng.random() < args.multi_token_chunk_rate) else 1
        chunks.append(words[i : i + k])
        i += k
    return fail, ttft, gaps, chunks, finish, length


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cmpc-mock/1"
    state: State = None  # set by main

    def log_message(self, fmt, *a):  # quiet
        pass

    # ---- helpers -------------------------------------------------------------------
    def send_json(self, status: int, obj: dict):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def sse(self, obj):
        payload = obj if isinstance(obj, str) else json.dumps(obj)
        self.chunk(f"data: {payload}\n\n".encode())

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return None

    # ---- routes --------------------------------------------------------------------
    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self.send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": self.state.args.model,
                            "object": "model",
                            "created": 0,
                            "owned_by": "cmpc-mock",
                            "max_model_len": 32768,
                        }
                    ],
                },
            )
        elif path in ("/health", "/v1/health", "/ping", "/health_generate"):
            self.send_json(200, {"status": "ok"})
        elif path in ("/get_server_info", "/server_info"):
            self.send_json(200, {"model_path": self.state.args.model, "mock": True})
        else:
            self.send_json(404, {"error": {"message": f"no route {path}", "code": 404}})

    def do_POST(self):
        path = self.path.split("?")[0].rstrip("/")
        chat = path in ("/v1/chat/completions", "/chat/completions")
        if not chat and path not in ("/v1/completions", "/completions"):
            self.send_json(404, {"error": {"message": f"no route {path}", "code": 404}})
            return
        body = self.read_body()
        if not isinstance(body, dict):
            self.send_json(400, {"error": {"message": "invalid JSON body", "code": 400}})
            return
        self.generate(path, chat, body)

    def generate(self, path: str, chat: bool, body: dict):
        st = self.state
        args = st.args
        t0 = time.time()
        n = st.next_index(path)
        tokens = count_tokens(prompt_text(body, chat))
        prompt_tokens = len(tokens)
        fail, ttft, gaps, chunks, finish, length = plan(args, n, body, prompt_tokens)
        stream = bool(body.get("stream"))
        entry = {
            "n": n,
            "path": path,
            "stream": stream,
            "t_recv": t0,
            "prompt_tokens": prompt_tokens,
            "max_tokens": body.get("max_tokens"),
            "max_completion_tokens": body.get("max_completion_tokens"),
            "min_tokens": body.get("min_tokens"),
            "ignore_eos": body.get("ignore_eos"),
        }
        if fail:
            time.sleep(min(ttft, 0.05))
            entry["status"] = 500
            st.record(entry)
            self.send_json(
                500,
                {
                    "error": {
                        "message": f"mock failure (request {n})",
                        "type": "server_error",
                        "code": 500,
                    }
                },
            )
            return
        cached = st.cache.lookup_and_insert(tokens)
        # cached prompt tokens prefill for free
        ttft = max(0.001, ttft - cached * args.prefill_per_token)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": length,
            "total_tokens": prompt_tokens + length,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        rid = ("chatcmpl-" if chat else "cmpl-") + uuid.UUID(
            int=random.Random(f"id:{args.seed}:{n}").getrandbits(128)
        ).hex
        created = int(t0)
        model = body.get("model") or args.model
        obj = "chat.completion" if chat else "text_completion"
        entry.update(
            status=200,
            completion_tokens=length,
            cached_tokens=cached,
            finish_reason=finish,
            ttft_s=ttft,
            chunks=len(chunks),
        )
        if not stream:
            time.sleep(ttft + sum(gaps[1:]))
            text = "".join(" " + w for c in chunks for w in c)
            choice = {"index": 0, "finish_reason": finish, "logprobs": None}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
            else:
                choice["text"] = text
            st.record(entry)
            self.send_json(
                200,
                {
                    "id": rid,
                    "object": obj,
                    "created": created,
                    "model": model,
                    "choices": [choice],
                    "usage": usage,
                },
            )
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk_obj = obj + (".chunk" if chat else "")
        try:
            if chat:  # vLLM sends the role first, with empty content, without delay
                self.sse(
                    {
                        "id": rid,
                        "object": chunk_obj,
                        "created": created,
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"role": "assistant", "content": ""},
                                "logprobs": None,
                                "finish_reason": None,
                            }
                        ],
                    }
                )
            # token j is ready at ttft + sum(gaps[1..j]); a chunk is sent when its last token is.
            start = time.perf_counter()
            tok = 0
            for ci, words in enumerate(chunks):
                end = tok + len(words)
                delay = start + ttft + sum(gaps[1:end]) - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                tok = end
                text = "".join(" " + w for w in words)
                last = ci == len(chunks) - 1
                if chat:
                    choice = {
                        "index": 0,
                        "delta": {"content": text},
                        "logprobs": None,
                        "finish_reason": finish if last else None,
                    }
                else:
                    choice = {
                        "index": 0,
                        "text": text,
                        "logprobs": None,
                        "finish_reason": finish if last else None,
                    }
                self.sse(
                    {
                        "id": rid,
                        "object": chunk_obj,
                        "created": created,
                        "model": model,
                        "choices": [choice],
                    }
                )
            if include_usage:
                self.sse(
                    {
                        "id": rid,
                        "object": chunk_obj,
                        "created": created,
                        "model": model,
                        "choices": [],
                        "usage": usage,
                    }
                )
            self.sse("[DONE]")
            self.chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            entry["status"] = 499
        entry["t_done"] = time.time()
        st.record(entry)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, default=0, help="0 = a free port")
    p.add_argument("--model", default="cmpc-mock")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--ttft-median", type=float, default=0.040, help="seconds")
    p.add_argument("--ttft-sigma", type=float, default=0.35, help="lognormal sigma")
    p.add_argument(
        "--prefill-per-token", type=float, default=0.00005, help="s per uncached prompt token"
    )
    p.add_argument("--itl-mean", type=float, default=0.006, help="seconds, gamma mean")
    p.add_argument("--itl-shape", type=float, default=4.0, help="gamma shape k")
    p.add_argument("--fail-rate", type=float, default=0.05)
    p.add_argument(
        "--eos-rate",
        type=float,
        default=0.2,
        help="fraction stopping early when ignore_eos is not set",
    )
    p.add_argument("--multi-token-chunk-rate", type=float, default=0.1)
    p.add_argument("--cache-block", type=int, default=16)
    p.add_argument("--default-max-tokens", type=int, default=16)
    p.add_argument("--max-output-cap", type=int, default=512)
    p.add_argument("--max-seconds", type=float, default=600.0, help="stop by itself after this")
    p.add_argument("--log", help="append one JSON line per generation request")
    p.add_argument("--summary", help="write a JSON summary here on exit")
    args = p.parse_args(argv)

    state = State(args)
    Handler.state = state

    class Server(ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            exc = sys.exc_info()[1]
            if not isinstance(exc, (ConnectionError, TimeoutError)):
                super().handle_error(request, client_address)

    httpd = Server((HOST, args.port), Handler)
    httpd.daemon_threads = True
    port = httpd.server_address[1]
    stop = threading.Event()

    def shutdown(*_):
        if not stop.is_set():
            stop.set()
            threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    timer = threading.Timer(args.max_seconds, shutdown)
    timer.daemon = True
    timer.start()
    print(f"LISTENING {port}", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        timer.cancel()
        httpd.server_close()
        if args.summary:
            with open(args.summary, "w", encoding="utf-8") as f:
                json.dump({"port": port, "settings": vars(args), **state.stats}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
