"""Work done by one forked child on a free core while this process does the rest.

Below POOL_MIN_BYTES (ingest/reduce.py) a process pool costs more than it saves: its imports,
its workers' start and the results sent back one by one. A single fork of this process, whose
readers are already imported, costs about 2 ms; the child does its share (a cold reduction's
files, their cache entries written as a pool's worker writes them) and sends its results back
through a pipe, pickled, when it is done. Forked only where that is safe and likely to pay:
on Linux (macOS's system frameworks do not survive a fork; elsewhere there is none), with no
other thread alive (a fork copies only the calling thread, and any lock another one held), two
or more cores this process may run on, and the machine's load leaving one free (a child with
no core of its own only slows the parent: benchmarks/README.md).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

FREE_CORE = 0.5  # runnable processes (1-minute load) below the cores less this: one is free


class Child:
    """A forked child's pending result: `result()` once this process has done its own share."""

    def __init__(self, pid: int, pipe: int) -> None:
        self._pid = pid
        self._pipe = pipe

    def result(self) -> Any | None:
        """What the child's work returned, or None if it failed, died or sent nothing whole
        (then the caller does that work itself)."""
        try:
            with open(self._pipe, "rb") as pipe:
                data = pipe.read()
        except OSError:
            data = b""
        if not self._reaped():
            return None
        try:
            return pickle.loads(data) if data else None
        except Exception:  # a child killed mid-write leaves a truncated pickle
            return None

    def stop(self) -> None:
        """Kill the child and reap it (this process failed or was interrupted)."""
        with contextlib.suppress(OSError):
            os.kill(self._pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.close(self._pipe)
        self._reaped()

    def _reaped(self) -> bool:
        """Wait for the child; whether it exited with status 0."""
        try:
            _, status = os.waitpid(self._pid, 0)
        except ChildProcessError:
            return False
        return os.waitstatus_to_exitcode(status) == 0


def possible() -> bool:
    """Whether a fork is safe here and a core is likely free for the child."""
    if not sys.platform.startswith("linux") or threading.active_count() > 1:
        return False
    try:
        cores = len(os.sched_getaffinity(0))
        load = os.getloadavg()[0]
    except OSError:
        return False
    return cores >= 2 and load < cores - FREE_CORE


def start(work: Callable[[], Any]) -> Child | None:
    """Run `work` in a forked child; None when no child could be forked."""
    try:
        readable, writable = os.pipe()
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    # objects made so far move out of the collector's sight: a collection in the child would
    # otherwise write to every page of them, copying the whole heap (a program that froze
    # objects itself keeps them frozen)
    freezing = gc.get_freeze_count() == 0
    if freezing:
        gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid == 0:  # pragma: no cover - the child; its work is tested through the parent
        _child(work, readable, writable)
    if freezing:
        gc.unfreeze()
    os.close(writable)
    if pid < 0:
        os.close(readable)
        return None
    return Child(pid, readable)


def _child(work: Callable[[], Any], readable: int, writable: int) -> None:
    """The child: do `work`, send its result whole, and exit without the parent's handlers."""
    code = 1
    try:
        os.close(readable)
        data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        with open(writable, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:  # any failure: the parent does the work itself
        pass
    finally:
        os._exit(code)
