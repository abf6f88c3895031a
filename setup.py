"""The optional C scanner, bootstrap counter and path exchange; the grammar copied in."""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class BuildWithGrammar(build_py):
    """Ship grammar/cmp.lark (the language's own file, kept at the top) as cmpc/grammar/cmp.lark."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "cmpc" / "grammar"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).parent / "grammar" / "cmp.lark", target / "cmp.lark")


# optional: without a compiler the install goes on and cmpc uses its pure-numpy code
setup(
    cmdclass={"build_py": BuildWithGrammar},
    ext_modules=[
        Extension("cmpc._fastscan", ["compiler/cmpc/_fastscan.c"], optional=True),
        Extension("cmpc._fastdraw", ["compiler/cmpc/_fastdraw.c"], optional=True),
        Extension("cmpc._fastswap", ["compiler/cmpc/_fastswap.c"], optional=True),
    ],
)
