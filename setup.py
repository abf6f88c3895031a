"""The optional C number scanner; everything else is in pyproject.toml."""

from setuptools import Extension, setup

# optional: without a compiler the install goes on and cmpc uses its pure-numpy reader
setup(ext_modules=[Extension("cmpc._fastscan", ["compiler/_fastscan.c"], optional=True)])
