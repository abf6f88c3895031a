"""The price-independent analysis, remembered: what a build reads from its runs, without prices.

A build records each data-reading step of the analysis (a system's frontier read, its replicate
reads and intervals, the load and workload checks) under a key made of the step's name, the
IR with every price-dependent field removed (`price_free`) and the step's own arguments. A later
build of the same runs finds them there (`ingest/stagefile.py` stores them in the cache), so
`--set` a price recomputes only economics: no run is decoded and numpy is not loaded.

Only steps that never read a price are recorded; a step that does (capacity at SLO, the fleet's
cost caps) reads the runs as before, so the stage changes how fast, never what, a build computes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from cmpc.diagnostics import Diagnostic, Severity
from cmpc.digests import sha256
from cmpc.ir import model as ir
from cmpc.jsontypes import JsonObject

V = TypeVar("V")

# What the analysis reads only to cost a system (analysis/economics.py, the `cost` terms, the
# sensitivity rows of price and utilization, the fleet's cost cap): nothing else reads them.
SYSTEM_PRICE_FIELDS = ("prices", "tco")
PRICE_AXES = ("price", "utilization")
FLEET_PRICE_FIELDS = ("cost_cap_usd_per_million_tokens",)


def price_free(doc: JsonObject) -> JsonObject:
    """The IR's JSON without the fields only economics reads (`cost`, prices, TCO, ...)."""
    out = {k: v for k, v in doc.items() if k != "cost"}
    out["systems"] = [
        {k: v for k, v in s.items() if k not in SYSTEM_PRICE_FIELDS} for s in doc["systems"]
    ]
    sensitivity = doc.get("sensitivity")
    if isinstance(sensitivity, list):
        out["sensitivity"] = [a for a in sensitivity if a.get("parameter") not in PRICE_AXES]
    fleet = doc.get("fleet")
    if isinstance(fleet, dict):
        out["fleet"] = {k: v for k, v in fleet.items() if k not in FLEET_PRICE_FIELDS}
    return out


def canonical(doc: object) -> bytes:
    """The JSON text a digest is taken of: sorted keys, no spaces."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=True).encode()


def price_free_digest(comparison: ir.Comparison) -> str:
    """SHA-256 of the IR without its price-dependent fields."""
    return sha256(canonical(price_free(comparison.to_json()))).hexdigest()


@dataclass
class Memo:
    """Recorded steps: {step key: the step's value as JSON text}; `changed` once one is added."""

    steps: dict[str, str] = field(default_factory=dict)
    changed: bool = False
    stored: bool = True  # False: nothing to keep (the steps are computed, never recorded)
    hits: int = 0
    _digests: dict[int, tuple[ir.Comparison, str]] = field(default_factory=dict)

    def key(self, step: str, comparison: ir.Comparison, extra: object) -> str:
        found = self._digests.get(id(comparison))
        if found is None or found[0] is not comparison:
            found = (comparison, self._cost_variant(comparison) or price_free_digest(comparison))
            self._digests[id(comparison)] = found
        digest = sha256(f"{step}\0{found[1]}\0".encode() + canonical(extra))
        return digest.hexdigest()

    def _cost_variant(self, comparison: ir.Comparison) -> str | None:
        """The digest of a keyed comparison that differs from this one in `cost` alone."""
        # a sensitivity row of price or utilization: `price_free` drops the cost, and every
        # other field is the same object
        for known, digest in self._digests.values():
            if all(getattr(known, name) is getattr(comparison, name) for name in _NOT_COST):
                return digest
        return None


_NOT_COST = tuple(f.name for f in dataclasses.fields(ir.Comparison) if f.name != "cost")
_ACTIVE: list[Memo] = []


class StageUnusable(Exception):
    """The block failed after a step came from the stage: build again without it."""


@contextlib.contextmanager
def recording(memo: Memo) -> Iterator[Memo]:
    """Within the block, `recall` looks steps up in `memo` and records those it computes.

    A stage comes from a folder someone else may have written: if the block raises once a
    step was found there, StageUnusable says so, and the build runs again without the stage
    (an error that is not the stage's raises again then).
    """
    _ACTIVE.append(memo)
    try:
        yield memo
    except Exception as exc:
        if memo.hits:
            raise StageUnusable(str(exc)) from exc
        raise
    finally:
        _ACTIVE.remove(memo)


class Unstageable(Exception):
    """A value the stage cannot store exactly (the step is then computed at every build)."""


def recall(
    step: str,
    comparison: ir.Comparison,
    extra: object,
    compute: Callable[[], V],
    encode: Callable[[V], Any],
    decode: Callable[[Any], V],
) -> V:
    """`compute()`, or its value recorded under the same key (`encode`d to JSON, `decode`d back).

    `comparison` and `extra` must be all the step reads besides the runs, prices excepted.
    """
    if not _ACTIVE or not _ACTIVE[-1].stored:
        return compute()
    memo = _ACTIVE[-1]
    key = memo.key(step, comparison, extra)
    text = memo.steps.get(key)
    if text is not None:
        try:
            found = decode(json.loads(text))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
            del memo.steps[key]  # a damaged (or hostile, deeply nested) step is computed again
        else:
            memo.hits += 1
            return found
    value = compute()
    try:
        memo.steps[key] = json.dumps(encode(value), allow_nan=True)
        memo.changed = True
    except (Unstageable, TypeError, ValueError):
        pass
    return value


def record(step: str, comparison: ir.Comparison, extra: object, encoded: Any) -> None:
    """Record a step's value (`encode`d) computed by another step, as `recall` would have."""
    # a step recorded already is left as it is
    if not _ACTIVE or not _ACTIVE[-1].stored:
        return
    memo = _ACTIVE[-1]
    key = memo.key(step, comparison, extra)
    if key not in memo.steps:
        memo.steps[key] = json.dumps(encoded, allow_nan=True)
        memo.changed = True


def recall_exact(
    step: str, inputs: object, compute: Callable[[], list[float]], size: int
) -> list[float]:
    """`compute()`, `size` floats, remembered under `inputs` (JSON): all it reads."""
    if not _ACTIVE or not _ACTIVE[-1].stored:
        return compute()
    memo = _ACTIVE[-1]
    key = sha256(f"{step}\0".encode() + canonical(inputs)).hexdigest()
    text = memo.steps.get(key)
    if text is not None:
        try:
            found: object = json.loads(text)
        except (ValueError, RecursionError):
            found = None
        shaped = isinstance(found, list) and len(found) == size
        if isinstance(found, list) and shaped and all(isinstance(v, float) for v in found):
            memo.hits += 1
            return [float(v) for v in found]
    value = [float(v) for v in compute()]
    memo.steps[key] = json.dumps(value, allow_nan=True)
    memo.changed = True
    return value


def same(value: V) -> V:
    """The identity: values that are JSON already."""
    return value


def diagnostics_json(found: list[Diagnostic]) -> list[JsonObject]:
    """Diagnostics as JSON; Unstageable if one points into a source (spans are not stored)."""
    out: list[JsonObject] = []
    for d in found:
        if d.span is not None or d.secondary:
            raise Unstageable(d.code)
        out.append(
            {
                "code": d.code,
                "severity": d.severity.value,
                "message": d.message,
                "label": d.label,
                "notes": list(d.notes),
                "help": d.help,
                "file": d.file,
                "record": d.record,
                "origin": d.origin,
            }
        )
    return out


def diagnostics_of(doc: list[JsonObject]) -> list[Diagnostic]:
    """`diagnostics_json`, decoded."""
    return [
        Diagnostic(
            code=str(d["code"]),
            severity=Severity(d["severity"]),
            message=str(d["message"]),
            label=str(d["label"]),
            notes=tuple(str(n) for n in d["notes"]),
            help=_text(d["help"]),
            file=_text(d["file"]),
            record=_text(d["record"]),
            origin=_text(d["origin"]),
        )
        for d in doc
    ]


def _text(value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError("not a string")
