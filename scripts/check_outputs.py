"""Record or compare what `cmpc check` prints for every spec of the tree (issue 19: start-up work
must leave each diagnostic, output byte and exit code as it was).

    python scripts/check_outputs.py --save /tmp/check-before     # on the code before a change
    python scripts/check_outputs.py --compare /tmp/check-before  # after it: lists any difference
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("human", "short", "json", "github")


def specs() -> list[str]:
    """Every `*.cmp` under specs/, tests/ and compiler/, relative to the repository."""
    found = (p for top in ("specs", "tests", "compiler") for p in (REPO / top).rglob("*.cmp"))
    return sorted(str(p.relative_to(REPO)) for p in found)


def outputs() -> dict[str, dict[str, object]]:
    """`cmpc check --format F SPEC`'s exit code, stdout and stderr for every spec and format."""
    cmpc = str(Path(sys.executable).parent / "cmpc")
    seen: dict[str, dict[str, object]] = {}
    for spec in specs():
        for fmt in FORMATS:
            run = subprocess.run(
                [cmpc, "check", "--format", fmt, spec], cwd=REPO, capture_output=True, text=True
            )
            seen[f"{fmt} {spec}"] = {"code": run.returncode, "out": run.stdout, "err": run.stderr}
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save", type=Path, metavar="DIR")
    mode.add_argument("--compare", type=Path, metavar="DIR")
    args = parser.parse_args()
    seen = outputs()
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        (args.save / "check-outputs.json").write_text(json.dumps(seen, indent=1, sort_keys=True))
        print(f"{len(seen)} outputs saved in {args.save}")
        return 0
    before = json.loads((args.compare / "check-outputs.json").read_text())
    differ = sorted(k for k in before.keys() | seen.keys() if before.get(k) != seen.get(k))
    for key in differ:
        print(f"differs: {key}")
    print(f"{len(seen)} outputs compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
