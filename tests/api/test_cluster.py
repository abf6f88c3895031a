"""The per-file reduction on a real Dask LocalCluster: separate worker processes, loopback only."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading

import dask
import pytest
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import SchedulerPlugin

from cmpc.build.model import Options
from cmpc.build.pipeline import build_spec
from cmpc.cli import main

from .helpers import cli_build, repetitions_copy, sweep_copy


def _cluster(**config: object) -> LocalCluster:
    with dask.config.set(config):
        return LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",  # no fixed port: other builds may run beside
            scheduler_kwargs={"dashboard": False},  # dashboard off
            protocol="tcp",
        )


@pytest.fixture(scope="module")
def cluster():
    found = _cluster()
    yield found
    found.close()


@pytest.fixture
def local(tmp_path):
    """The sweep built on local cores, from the spec the test builds (results.json names the
    spec's path): what every cluster build must equal byte for byte."""
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "local") == 0
    return tmp_path / "local"


class _Reduced(SchedulerPlugin):
    """Counts the `reduce_file` tasks whose results reached the scheduler (LocalCluster's
    scheduler runs in the test's process, so the count is readable here)."""

    name = "cmpc-reduced"

    def __init__(self) -> None:
        self.count = 0

    def transition(self, key, start, finish, *args, **kwargs) -> None:
        if finish == "memory" and str(key).startswith("reduce_file"):
            self.count += 1


def _reduced_on(cluster: LocalCluster) -> int:
    """How many `reduce_file` tasks the cluster's scheduler has run so far."""
    plugins = cluster.scheduler.plugins
    if _Reduced.name not in plugins:
        cluster.scheduler.add_plugin(_Reduced())
    return plugins[_Reduced.name].count


def test_a_cluster_build_is_byte_identical_to_a_local_build(cluster, local, tmp_path):
    spec = tmp_path / "specs" / "synthetic-sweep.cmp"  # the `local` fixture's copy
    before = _reduced_on(cluster)
    assert cli_build(spec, tmp_path / "out", "--scheduler", cluster.scheduler_address) == 0
    assert _reduced_on(cluster) - before == 14  # every run file went to the workers
    for name in ("results.json", "report.md", "figures.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (local / name).read_bytes(), name


def test_pooled_sketches_from_the_workers_equal_the_local_sketch_path(cluster, tmp_path):
    """Each worker returns its run's DDSketch; the client merges them per load: the same bytes
    as sketching and merging on local cores (and within α of exact, tests/api/test_pooled.py)."""
    spec = repetitions_copy(tmp_path)  # three seeded repetitions of each concurrency
    assert cli_build(spec, tmp_path / "local", "--sketch", "0.01") == 0
    before = _reduced_on(cluster)
    extra = ("--sketch", "0.01", "--scheduler", cluster.scheduler_address)
    assert cli_build(spec, tmp_path / "out", *extra) == 0
    assert _reduced_on(cluster) - before == 42  # every run file went to the workers
    local = (tmp_path / "local" / "results.json").read_bytes()
    assert (tmp_path / "out" / "results.json").read_bytes() == local
    pooled = json.loads(local)["systems"]["alpha"]["pooled"]
    assert len(pooled) == 7 and {g["method"] for g in pooled} == {"ddsketch"}
    for name in ("report.md", "figures.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


def test_the_environment_variable_names_the_scheduler(cluster, local, tmp_path, monkeypatch):
    spec = tmp_path / "specs" / "synthetic-sweep.cmp"  # the `local` fixture's copy
    monkeypatch.setenv("CMPC_SCHEDULER", cluster.scheduler_address)
    before = _reduced_on(cluster)
    assert cli_build(spec, tmp_path / "out") == 0
    assert _reduced_on(cluster) - before == 14
    assert (tmp_path / "out" / "results.json").read_bytes() == (local / "results.json").read_bytes()


def test_workers_fill_a_shared_cache_that_a_local_build_then_reads(
    cluster, local, tmp_path, monkeypatch
):
    spec = tmp_path / "specs" / "synthetic-sweep.cmp"  # the `local` fixture's copy
    monkeypatch.setenv("CMPC_CACHE_DIR", str(tmp_path / "shared-cache"))
    args = ["build", str(spec), "--quiet", "--scheduler", cluster.scheduler_address]
    assert main([*args, "-o", str(tmp_path / "a")]) == 0
    entries = [e for e in (tmp_path / "shared-cache" / "entries").rglob("*") if e.is_file()]
    assert len(entries) == 14  # written by the workers

    def no_reading(task):
        raise AssertionError(f"{task.rel} was reduced again, not read from the cache")

    monkeypatch.setattr("cmpc.ingest.reduce._reduce", no_reading)  # forked pool workers too
    assert main(["build", str(spec), "--quiet", "-o", str(tmp_path / "b")]) == 0
    for out in ("a", "b"):
        written = (tmp_path / out / "results.json").read_bytes()
        assert written == (local / "results.json").read_bytes()


def _kill_a_busy_worker(client: Client, killed: list[str]):
    """A progress callback that SIGKILLs a worker process while it is reducing a file."""
    lock = threading.Lock()

    def progress(done: int, total: int) -> None:
        with lock:
            if killed or done == 0 or done >= total:
                return
            busy = {w: keys for w, keys in client.processing().items() if keys}
            if not busy:
                return
            worker = max(busy, key=lambda w: len(busy[w]))
            pid = client.run(os.getpid, workers=[worker])[worker]
            os.kill(pid, signal.SIGKILL)
            killed.append(worker)

    return progress


@pytest.mark.parametrize("allowed_failures", [3, 0])
def test_a_worker_killed_mid_build_is_retried_or_reported(allowed_failures, local, tmp_path):
    """Retried by the scheduler (default), or past its retries reduced by cmpc and named in a
    W702 warning; the results are the local build's either way, nothing silently dropped."""
    spec = tmp_path / "specs" / "synthetic-sweep.cmp"  # the `local` fixture's copy
    cluster = _cluster(**{"distributed.scheduler.allowed-failures": allowed_failures})
    try:
        with Client(cluster) as client:
            killed: list[str] = []
            options = Options(
                scheduler=cluster.scheduler_address, progress=_kill_a_busy_worker(client, killed)
            )
            outcome = build_spec(str(spec), out_dir=str(tmp_path / "out"), options=options)
    finally:
        cluster.close()
    assert killed, "no worker was busy when the build reported progress"
    assert outcome.code == 0
    lost = [d for d in outcome.diagnostics if d.code == "W702"]
    if allowed_failures == 0:
        assert lost and all("reduced it here instead" in d.message for d in lost)
        assert all(d.file and d.file.startswith("data/synthetic/") for d in lost)
    else:
        assert not lost  # the scheduler re-ran the task on the other worker
    assert (tmp_path / "out" / "results.json").read_bytes() == (local / "results.json").read_bytes()


def test_an_unreachable_scheduler_is_a_diagnostic(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("cmpc.ingest.cluster.CONNECT_TIMEOUT_S", 2)
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "out", "--scheduler", "tcp://127.0.0.1:9") == 1
    err = capsys.readouterr().err
    assert "E510" in err and "tcp://127.0.0.1:9" in err
    assert not (tmp_path / "out").exists()


def test_without_distributed_the_scheduler_option_says_which_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    spec = sweep_copy(tmp_path)
    assert cli_build(spec, tmp_path / "out", "--scheduler", "tcp://127.0.0.1:9") == 1
    err = capsys.readouterr().err
    assert "E509" in err and "cmpc[cluster]" in err
