"""cmpc: compile LLM-inference comparison specs into footnoted reports."""

__version__ = "0.1.0"
