"""`--where KEY=VALUE`: the one filter of run fields (`cmpc sweep`, a spec's `runs ... where`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Filter:
    """`--where KEY=VALUE`: keep runs whose field KEY equals VALUE (numbers as numbers)."""

    key: str
    value: str

    def matches(self, fields: Mapping[str, object]) -> bool:
        if self.key not in fields:
            return False
        actual = fields[self.key]
        if isinstance(actual, bool) or actual is None:
            return str(actual).casefold() == self.value.casefold()
        if isinstance(actual, int | float):
            try:
                return float(self.value) == float(actual)
            except ValueError:
                return False
        return str(actual).casefold() == self.value.casefold()
