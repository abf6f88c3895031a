"""A Dask distributed scheduler as the executor of the per-file reduction (`--scheduler`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cmpc.diagnostics import Diagnostic, error

if TYPE_CHECKING:
    from concurrent.futures import Executor  # logging and more: 5 ms, for a type

ENV = "CMPC_SCHEDULER"  # the scheduler's address when `--scheduler` is not given
CONNECT_TIMEOUT_S = 30


def scheduler_address(given: str | None) -> str | None:
    """`--scheduler ADDRESS`, else $CMPC_SCHEDULER, else None (reduce on local cores)."""
    return given or os.environ.get(ENV) or None


@contextlib.contextmanager
def connected(address: str) -> Iterator[tuple[Executor | None, list[Diagnostic]]]:
    """An executor whose tasks run on the cluster at `address`, or None and why not.

    Workers receive each task's path and options, never the file's bytes: they read the files
    themselves, so the run files (and a shared cache) must sit at the same paths on them.
    """
    try:
        import distributed
    except ImportError:
        yield (
            None,
            [
                error(
                    "E509",
                    "`--scheduler` needs dask.distributed, which is not installed",
                    help="pip install 'cmpc[cluster]'",
                )
            ],
        )
        return
    try:
        make_client: Any = distributed.Client  # untyped in part
        client = make_client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        yield (
            None,
            [
                error(
                    "E510",
                    f"cannot reach the Dask scheduler at `{address}`: {type(exc).__name__}: {exc}",
                    help=f"check the address (`tcp://HOST:8786`) in --scheduler or ${ENV}",
                )
            ],
        )
        return
    try:
        yield client.get_executor(pure=False), []
    finally:
        client.close()
