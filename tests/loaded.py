"""Which modules a cmpc command loads, run in a fresh interpreter; scripts loaded as modules."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

PROBE = """
import sys
from cmpc import lazy
from cmpc.cli import main
if sys.argv[1] == "settled":
    from cmpc.ingest import cache
    cache.RACY_SECONDS = -10.0  # files just written count as settled, as a kept sweep's are
try:
    code = main(sys.argv[2:])
except SystemExit as exit:
    code = exit.code
import json
print(json.dumps([code, sorted(m for m in sys.modules if lazy.loaded(m))]))  # not stand-ins
"""


def modules_loaded(*args: str, cwd: Path, settled: bool = False) -> tuple[int, set[str]]:
    """`cmpc ARGS` in a child run from `cwd`: its exit code and the modules it really loaded."""
    run = subprocess.run(
        [sys.executable, "-c", PROBE, "settled" if settled else "-", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    assert run.returncode == 0, run.stderr
    code, modules = json.loads(run.stdout.strip().splitlines()[-1])
    return code, set(modules)


def script_module(path: Path) -> ModuleType:
    """A script of the repository imported as a module of its file's name."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module
