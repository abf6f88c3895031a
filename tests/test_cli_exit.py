"""`cmpc` exits without tearing the interpreter down, yet runs exit handlers and flushes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# a module-level object whose finalizer only a teardown runs, an exit handler, then the CLI
PROBE = """
import atexit, sys
from cmpc import cli

class Torn:
    def __del__(self):
        print("torn down", flush=True)

kept = Torn()
atexit.register(lambda: print("exit handler ran"))
{before}
sys.argv = ["cmpc", *sys.argv[1:]]
cli.run()
"""


def _run(*args: str, before: str = "") -> subprocess.CompletedProcess[str]:
    code = PROBE.format(before=before)
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO
    )


def test_output_and_exit_handlers_survive_the_quick_exit():
    done = _run("explain", "E600")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("E600 (template-not-found)")  # a pipe: block-buffered output
    assert done.stdout.rstrip().endswith("exit handler ran")
    assert "torn down" not in done.stdout  # no teardown: the quick exit was taken


def test_the_exit_code_is_mains(tmp_path):
    spec = tmp_path / "bad.cmp"
    spec.write_text('comparison "x" {\n  baseline nowhere\n}\n', encoding="utf-8")
    done = _run("check", str(spec))
    assert done.returncode == 1
    assert "error[" in done.stderr
    assert _run("check").returncode == 2  # argparse's usage error exits before run() returns


def test_a_live_thread_gets_the_normal_exit(tmp_path):
    mark = tmp_path / "thread.txt"
    before = (
        "import threading, time\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        f"    open({str(mark)!r}, 'w').write('done')\n"
        "threading.Thread(target=late).start()\n"
    )
    done = _run("explain", "E600", before=before)
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "done"  # the interpreter waited for the thread
    assert "torn down" in done.stdout  # and tore down as usual


def test_a_profiler_still_gets_its_data(tmp_path):
    stats = tmp_path / "cli.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "cmpc.cli", "explain", "E600"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("E600")
    assert stats.stat().st_size > 0  # written after the program returned


def test_the_console_script_runs_openblas_on_one_thread_unless_the_user_chose():
    # main() shows the variable as it finds it: set before it runs, so before numpy's import
    show = (
        "import os\nreal = cli.main\n"
        "cli.main = lambda *a: print('blas', os.environ.get('OPENBLAS_NUM_THREADS')) or real(*a)"
    )
    code = PROBE.format(before=show)
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, want in ((None, "blas 1"), ("4", "blas 4")):
        done = subprocess.run(
            [sys.executable, "-c", code, "explain", "E600"],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env if given is None else {**env, "OPENBLAS_NUM_THREADS": given},
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(want), done.stdout


def test_a_ctrl_c_after_main_returned_is_one_line_not_a_traceback():
    # the signal lands in run() itself once main() is done: here, as it asks for a tracer
    before = "sys.gettrace = lambda: (_ for _ in ()).throw(KeyboardInterrupt)"
    done = _run("explain", "E600", before=before)
    assert done.returncode == 130
    assert done.stderr.endswith("cmpc: interrupted\n")
    assert "Traceback" not in done.stderr
