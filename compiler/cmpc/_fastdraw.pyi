"""The optional C bootstrap counter (_fastdraw.c): the same counts as numpy's draws, faster."""

from typing import Any

def b64_ascii(data: Any, /) -> str: ...
def draw_counts(capsule: Any, n: int, rows: int, out: Any, /) -> None: ...
def draw_counts_pcg64(
    state: tuple[int, int, int, int, int, int], n: int, rows: int, out: Any, /
) -> tuple[int, int, int, int, int, int]: ...
def percentile_ranks(
    counts: Any, rows: int, m: int, qs: Any, low: Any, high: Any, sizes: Any, known: int = -1, /
) -> None: ...
def seed_state(words: Any, /) -> tuple[int, int, int, int]: ...
def verbatim_ascii(text: str, /) -> bytes | None: ...
def weighted_sums(counts: Any, rows: int, n: int, table: Any, out: Any, /) -> None: ...
def bootstrap_jackknife_pcg64(
    state: tuple[int, int, int, int, int, int],
    n: int,
    rows: int,
    table: Any,
    sums: Any,
    metrics: Any,
    jackknife: int = 0,
    /,
) -> tuple[int, int, int, int, int, int]: ...
def frontier_reads(
    x: Any,
    y: Any,
    rows: int,
    cols: int,
    target: float,
    at_knot: float,
    method: int,
    mirrored: bool,
    out: Any,
    /,
) -> None: ...
