"""Work done by one forked child on a free core while this process does the rest.

Below POOL_MIN_BYTES (ingest/reduce.py) a process pool costs more than it saves: its imports,
its workers' start and the results sent back one by one. A single fork of this process, whose
readers are already imported, costs about 2 ms; the child does its share (a cold reduction's
files, their cache entries written as a pool's worker writes them) and sends its result back
through a pipe, pickled, when it is done. Forked only where that is safe and likely to pay:
on Linux (macOS's system frameworks do not survive a fork; elsewhere there is none), with no
other thread in the process, not even a native one (a fork copies only the calling thread, and
any lock another one held), SIGCHLD not ignored (the child must be reaped by us), two or more
cores this process may use (affinity and the cgroup's CPU quota), and the machine's load
leaving one free: a child with no core of its own only slows the parent (benchmarks/README.md).
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

FREE_CORE = 0.5  # a core is free while the 1-minute load is below the cores less this
STOP_SECONDS = 2.0  # an interrupted child's time to finish its cache writes before SIGKILL
_STOPPING = (signal.SIGINT, signal.SIGTERM)  # held back across the fork (see `start`)


class Child:
    """A forked child's pending result: `result()` once this process has done its own share.

    Not frozen: it records that the child was reaped, after which its pid may name another
    process and is never signalled."""

    def __init__(self, pid: int, pipe: int) -> None:
        self._pid = pid
        self._pipe = pipe
        self._reaped = False

    def result(self) -> Any | None:
        """What the child's work returned, or None when none came whole (do the work here)."""
        data = b""
        with contextlib.suppress(OSError), open(self._take_pipe(), "rb") as pipe:
            data = pipe.read()
        self._reap(0)
        try:  # the whole pickle is the child's success, whatever its exit status says
            return pickle.loads(data) if data else None
        except Exception:  # a child killed mid-write leaves a truncated pickle
            return None

    def stop(self) -> None:
        """Interrupt the child unless reaped (SIGINT, then SIGKILL), and reap it."""
        with contextlib.suppress(OSError):
            os.close(self._take_pipe())
        if self._reaped:
            return
        with contextlib.suppress(OSError):  # its writer thread finishes the entries queued
            os.kill(self._pid, signal.SIGINT)
        deadline = time.monotonic() + STOP_SECONDS
        while not self._reap(os.WNOHANG) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not self._reaped:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap(0)

    def _take_pipe(self) -> int:
        pipe, self._pipe = self._pipe, -1
        return pipe

    def _reap(self, options: int) -> bool:
        """Whether the child has exited (and is reaped now, or was)."""
        if not self._reaped:
            try:
                pid, _ = os.waitpid(self._pid, options)
            except ChildProcessError:  # reaped elsewhere
                pid = self._pid
            self._reaped = pid == self._pid
        return self._reaped


def possible() -> bool:
    """Whether a fork is safe here and a core is likely free for the child."""
    if not sys.platform.startswith("linux") or _threads() != 1:
        return False
    if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN:
        return False  # the kernel would reap the child, and its exit could not be waited for
    try:
        cores = min(len(os.sched_getaffinity(0)), _quota())
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
    # a Ctrl-C between the fork and the child's own handler would unwind the caller's stack
    # in the child, running its handlers as a second copy of the program: held back until then
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; its work is tested through the parent
            _child(work, readable, writable, held)
        os.close(writable)
        return Child(pid, readable)
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _child(work: Callable[[], Any], readable: int, writable: int, mask: set[int]) -> None:
    """The child: do `work`, send its result whole, and exit without the parent's handlers."""
    code = 1
    try:
        # what the parent made stays out of the collector's sight: a collection would write
        # to every page of it, copying the whole heap
        gc.freeze()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(readable)
        data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        with open(writable, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:  # any failure or interruption: the parent does the work itself
        pass
    finally:
        os._exit(code)


def _threads() -> int:
    """The process's threads, native ones included (0 when it cannot be told)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 0


def _quota(path: str = "/sys/fs/cgroup/cpu.max") -> int:
    """The whole CPUs the cgroup's quota allows this process (cgroup v2), else a large number."""
    try:
        with open(path, encoding="ascii") as limit:
            quota, period = limit.read().split()[:2]
        return int(quota) // int(period) if quota != "max" else 1 << 30
    except (OSError, ValueError, ZeroDivisionError):
        return 1 << 30
