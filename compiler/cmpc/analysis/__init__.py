"""IR and reduced runs to the results model: reads, economics, ratios, sensitivity, claims."""

from typing import TYPE_CHECKING

from cmpc import lazy

if TYPE_CHECKING:
    from cmpc.analysis import types
else:  # the results model's TypedDicts, read only as annotations: 3 ms off every build's import
    types = lazy.module("cmpc.analysis.types")
