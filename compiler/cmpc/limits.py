"""Resource limits for untrusted input, each overridable by an environment variable."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    """Bounds that turn hostile or runaway input into a diagnostic instead of exhaustion."""

    spec_bytes: int = 256 << 10  # CMPC_MAX_SPEC_BYTES: 60x the largest real spec; ~10 s to check
    depth: int = 16  # CMPC_MAX_DEPTH: nested `{` blocks
    systems: int = 64  # CMPC_MAX_SYSTEMS
    claims: int = 256  # CMPC_MAX_CLAIMS
    run_files: int = 10_000  # CMPC_MAX_RUN_FILES: files one system's glob may match
    walk_entries: int = 200_000  # CMPC_MAX_WALK_ENTRIES: files and folders one glob's walk lists
    record_bytes: int = 64 << 20  # CMPC_MAX_RECORD_BYTES: one JSON document or JSONL line

    @classmethod
    def from_env(cls, environ=os.environ) -> Limits:
        """The defaults, with any `CMPC_MAX_*` variable that holds a positive integer."""
        values = {}
        for f in fields(cls):
            raw = environ.get(f"CMPC_MAX_{f.name.upper()}")
            if raw is not None and raw.strip().isdigit() and int(raw) > 0:
                values[f.name] = int(raw)
        return cls(**values)

    @staticmethod
    def variable(name: str) -> str:
        return f"CMPC_MAX_{name.upper()}"


def current() -> Limits:
    return Limits.from_env()
