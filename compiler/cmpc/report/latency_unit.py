"""The unit a latency axis is shown in: seconds when the spec's target is, else milliseconds.

The display unit follows the unit the author gave the target (`target 2 s`), not the data's
magnitude: the axis, the target line and every read then say `2 s` as the spec does, and adding
a run never changes the report's units. results.json keeps milliseconds (`latency_ms`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cmpc.jsontypes import JsonObject
from cmpc.language.units import shown_in_seconds


@dataclass(frozen=True, slots=True)
class LatencyUnit:
    """A display unit of latency: its symbol and how many milliseconds one of it is."""

    symbol: str
    ms_per_unit: float

    def of_ms(self, ms: object) -> float | None:
        """A latency in ms, in this unit."""
        if isinstance(ms, bool) or not isinstance(ms, int | float) or not math.isfinite(ms):
            return None
        return ms / self.ms_per_unit  # one division: 150 ms is 0.15 s, not 0.15000000000000002

    def of_interactivity(self, interactivity: object) -> float | None:
        """A point's latency from its interactivity (1 / latency in s), in this unit."""
        if isinstance(interactivity, bool) or not isinstance(interactivity, int | float):
            return None
        if not (math.isfinite(interactivity) and interactivity > 0):
            return None
        return 1000.0 / self.ms_per_unit / interactivity


MS = LatencyUnit("ms", 1.0)
S = LatencyUnit("s", 1000.0)


def latency_unit(latency: JsonObject) -> LatencyUnit:
    """The unit of the latency axis of `conditions.latency`: `s` for a target given in s, min
    or h, else ms (a tok/s/user target's TPOT, a ms target, no target)."""
    target = latency.get("target") or {}
    if target.get("given_as") != "latency":
        return MS
    return S if shown_in_seconds(str(target.get("unit") or "")) else MS


def along_latency(latency: JsonObject) -> bool:
    """True when `conditions.latency` reads along latency (its `axis`): a duration target, or
    ttft or e2el with no target, whose 1 / latency is no interactivity."""
    if "axis" in latency:
        return latency.get("axis") == "latency"
    return (latency.get("target") or {}).get("given_as") == "latency"
