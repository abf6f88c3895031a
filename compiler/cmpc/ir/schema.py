"""The IR's JSON Schema (schemas/ir.schema.json): validation with errors mapped to spec spans."""

from __future__ import annotations

import json
import os
import stat
from functools import cache
from typing import TYPE_CHECKING

from cmpc.diagnostics import Diagnostic, error
from cmpc.ir.accept import accepts
from cmpc.ir.model import Comparison
from cmpc.jsontypes import JsonObject
from cmpc.source import Span

if TYPE_CHECKING:  # jsonschema is imported only when an IR is validated (see validate_ir)
    from jsonschema import Draft202012Validator, ValidationError

# The interpreter's own SHA-256 for the memo's few kilobytes: hashlib loads OpenSSL, a
# thirtieth of `cmpc check`'s start-up. Same digest; hashlib where the module is not built in.
try:
    from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
except ImportError:  # pragma: no cover - the name since 3.12, or a build without it
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import sha256


# Beside the modules, as cmpc's other package data: read as a file, not through
# importlib.resources (its import is a tenth of `cmpc check`'s start-up). Paths here are
# strings: pathlib (with urllib.parse and ipaddress) is a twentieth of it.
_SCHEMA = os.path.join(
    os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "schemas", "ir.schema.json"
)


@cache
def _schema_bytes() -> bytes:
    with open(_SCHEMA, "rb") as handle:
        return handle.read()


@cache
def ir_schema() -> JsonObject:
    """The schema document shipped with the package."""
    schema: JsonObject = json.loads(_schema_bytes().decode("utf-8"))
    return schema


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(ir_schema())


def _memo_path(document: JsonObject) -> str:
    """Where a previous run noted that exactly this IR, under exactly this schema, was valid."""
    digest = sha256()
    digest.update(_schema_bytes())  # its text: a memo hit parses no schema
    digest.update(json.dumps(document, sort_keys=True).encode())
    name: str = digest.hexdigest()
    return os.path.join(_memo_dir(), name)


def _memo_dir() -> str:
    # Per user and private: on a shared machine nobody else can mark an IR valid for us.
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(_temporary_root(), f"cmpc-valid-ir-{uid}")


def _temporary_root() -> str:
    """The first of $TMPDIR, $TEMP, $TMP that is a folder, else /tmp: tempfile's candidates.

    Not `tempfile.gettempdir()`: it imports shutil, random and the compressors, and writes a
    probe file, at every start. Where it would differ (an unusable $TMPDIR) the memo is not
    written, which costs only speed.
    """
    for variable in ("TMPDIR", "TEMP", "TMP"):
        folder = os.environ.get(variable)
        if folder and os.path.isdir(folder):
            return folder
    return "/tmp"


def _memo_trusted(folder: str) -> bool:
    """The memo folder exists, is a real folder, ours, and writable by nobody else."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _touch(path: str) -> None:
    """Path.touch: the time of a file set to now, the file made if missing."""
    try:
        os.utime(path, None)
    except OSError:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o666))


def validate_ir(comparison: Comparison, origins: dict[str, Span]) -> list[Diagnostic]:
    """Schema errors of the IR, each placed at the spec text its IR path came from.

    A valid IR is remembered by content hash (like lark's grammar cache), so re-checking an
    unchanged spec skips even the walk; a changed one that `accepts` finds valid skips
    importing jsonschema, which is asked only to word the problems of an invalid IR.
    """
    document = comparison.to_json()
    memo = _memo_path(document)
    folder = os.path.dirname(memo)
    if _memo_trusted(folder) and os.path.exists(memo):
        return []
    if accepts(document, ir_schema()):
        problems = []  # certainly valid: jsonschema (and its import) only to word problems
    else:
        problems = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.path)))
    if not problems:
        try:
            if not os.path.isdir(folder):
                os.mkdir(folder, 0o700)
            if _memo_trusted(folder):
                _touch(memo)
        except OSError:
            pass  # a read-only temp dir only costs speed
    return [_diagnostic(e, origins, comparison.file) for e in problems]


def _diagnostic(problem: ValidationError, origins: dict[str, Span], file: str) -> Diagnostic:
    parts = [str(p) for p in problem.absolute_path]
    pointer = "/" + "/".join(parts) if parts else ""
    span = None
    for end in range(len(parts), -1, -1):
        candidate = "/" + "/".join(parts[:end]) if end else ""
        if candidate in origins:
            span = origins[candidate]
            break
    return error(
        "E200",
        f"IR value at `{pointer or '/'}` breaks the IR schema: {problem.message}",
        span,
        file=None if span else file,
        label="this produced the invalid value",
        notes=(f"schema rule: {'/'.join(map(str, problem.absolute_schema_path))}",),
        help="this is a cmpc bug if the spec passed every other check; please report it",
    )
