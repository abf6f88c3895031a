"""The optional C scanner, bootstrap counter and path exchange; the grammar copied in."""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

# _fastdraw's frontier_reads repeats numpy's float operations one by one: a fused multiply-add
# would round once where numpy rounds twice (GCC contracts by default where the target has FMA);
# MSVC gets `#pragma fp_contract(off)` in the source
NO_CONTRACTION = ["-ffp-contract=off"]


class BuildWithGrammar(build_py):
    """Ship grammar/cmp.lark (the language's own file, kept at the top) as cmpc/grammar/cmp.lark."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "cmpc" / "grammar"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).parent / "grammar" / "cmp.lark", target / "cmp.lark")


class BuildWithoutContraction(build_ext):
    """_fastdraw compiled with NO_CONTRACTION by GCC and clang (the "unix" compilers)."""

    def build_extensions(self):
        if self.compiler.compiler_type == "unix":
            for extension in self.extensions:
                if extension.name == "cmpc._fastdraw":
                    extension.extra_compile_args = [*extension.extra_compile_args, *NO_CONTRACTION]
        super().build_extensions()


# optional: without a compiler the install goes on and cmpc uses its pure-numpy code
setup(
    cmdclass={"build_py": BuildWithGrammar, "build_ext": BuildWithoutContraction},
    ext_modules=[
        Extension("cmpc._fastscan", ["compiler/cmpc/_fastscan.c"], optional=True),
        Extension("cmpc._fastdraw", ["compiler/cmpc/_fastdraw.c"], optional=True),
        Extension("cmpc._fastswap", ["compiler/cmpc/_fastswap.c"], optional=True),
    ],
)
