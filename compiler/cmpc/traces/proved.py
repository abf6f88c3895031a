"""Which tool versions and file layouts each reader is proved on, and the warning for others."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """One file layout a reader knows, and the tool releases it was proved on (inclusive)."""

    tool: str
    name: str
    lowest: str
    highest: str

    @property
    def proved_on(self) -> str:
        span = self.lowest if self.lowest == self.highest else f"{self.lowest} to {self.highest}"
        return f"{self.tool} {span}"

    def covers(self, version: str) -> bool:
        """Whether `version` lies in the proved range; a version cmpc cannot parse does not."""
        stated, low, high = release(version), release(self.lowest), release(self.highest)
        if stated is None or low is None or high is None:
            return False
        return low <= stated <= high


@dataclass(frozen=True)
class Reading:
    """How a reader read one file: the layout it used (None: not one it knows) and the
    version the file (or the file the tool writes beside it) states, if any."""

    tool: str
    layout: Layout | None
    version: str | None = None

    def problem(self) -> str | None:
        """The text of the layout-not-proved warning, or None when the reading is proved."""
        if self.layout is None:
            stated = f" {self.version}" if self.version else ""
            return (
                f"the layout of this {self.tool}{stated} file is not one cmpc knows; "
                "read with the fields found"
            )
        if self.version is not None and not self.layout.covers(self.version):
            return (
                f"read as the {self.layout.name} layout, not proved on {self.tool} {self.version}"
            )
        return None


_RELEASE = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def release(version: str) -> tuple[int, int, int] | None:
    """`0.13.0` as (0, 13, 0); pre-release and local suffixes are ignored; None if no number."""
    match = _RELEASE.match(version.strip())
    if match is None:
        return None
    return tuple(int(part or 0) for part in match.groups())  # type: ignore[return-value]
