"""cmpc: compile LLM-inference comparison specs into footnoted reports."""

from cmpc import _classcache

__version__ = "0.1.0"

_classcache.install()  # before any record class is defined: see cmpc/_classcache.py
