"""How cmpc._fastdraw is compiled: no fused multiply-add, whatever the target has."""

from __future__ import annotations

import ast
import platform
import subprocess
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "compiler" / "cmpc" / "_fastdraw.c"
# a target with FMA, and its fused multiply-add mnemonics (aarch64 always has them)
X86 = platform.machine().lower() in ("x86_64", "amd64")
TARGET, FUSED = (
    (["-mfma"], ("vfmadd", "vfmsub", "vfnm")) if X86 else ([], ("fmadd", "fmsub", "fnm"))
)


def _setup_flags() -> list[str]:
    """setup.py's NO_CONTRACTION, read without running setup()."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NO_CONTRACTION":
            flags: list[str] = ast.literal_eval(node.value)
            return flags
    raise AssertionError("setup.py has no NO_CONTRACTION")


def _fused_multiply_adds(*flags: str) -> int:
    """Fused multiply-add instructions in _fastdraw.c compiled for an FMA target."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    include = sysconfig.get_paths()["include"]
    done = subprocess.run(
        [compiler, "-O2", *TARGET, "-S", "-o", "-", f"-I{include}", *flags, str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return sum(line.lstrip().startswith(FUSED) for line in done.stdout.splitlines())


def test_the_build_flags_not_a_compiler_pragma_keep_numpys_roundings():
    # the source alone contracts (no GCC-only pragma); setup.py's flags stop every contraction
    assert _fused_multiply_adds() > 0
    assert _fused_multiply_adds(*_setup_flags()) == 0
