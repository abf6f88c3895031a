"""The Python API: load runs, check and build specs; results as typed objects and tables.

Stable names (also on `cmpc` itself): `load_runs`, `check`, `build`, `Runs`, `Checked`,
`Results`, `CmpcError`, `PolicyFailed`. Tables (`to_pandas`, `to_arrow`) need the `dataframe` extra.
"""

from cmpc.api.errors import CmpcError, PolicyFailed
from cmpc.api.results import Results, build
from cmpc.api.runs import Runs, load_runs
from cmpc.api.specs import Checked, check

__all__ = ["Checked", "CmpcError", "PolicyFailed", "Results", "Runs", "build", "check", "load_runs"]
