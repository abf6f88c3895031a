"""Regenerate the diagnostic-code tables of docs/language.md from compiler/cmpc/codes/*.toml.

python scripts/codes_table.py          # rewrite the section between the markers
python scripts/codes_table.py --check  # exit 1 if the docs are out of date
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "language.md"
START, END = "<!-- codes:start -->", "<!-- codes:end -->"
GROUPS = (
    ("Syntax and text (E0xx, W0xx)", lambda c: c[1] == "0" and c[2] != "9"),
    ("Files and limits (E09x)", lambda c: c[1:3] == "09"),
    ("Semantics (E1xx, W1xx warnings)", lambda c: c[1] == "1"),
    ("IR schema (E2xx)", lambda c: c[1] == "2"),
    ("Traces (E3xx)", lambda c: c[1] == "3"),
    ("Compute (E4xx, W4xx)", lambda c: c[1] == "4"),
    ("Build (E5xx, W5xx)", lambda c: c[1] == "5"),
    ("Report (E6xx)", lambda c: c[1] == "6"),
    ("Cache (E7xx, W7xx)", lambda c: c[1] == "7"),
    ("Review and policies (E8xx; E810 exits 3)", lambda c: c[1] == "8"),
)


def table() -> str:
    codes = {}
    for path in sorted((ROOT / "compiler" / "cmpc" / "codes").glob("*.toml")):
        codes |= tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for title, belongs in GROUPS:
        rows = [c for c in sorted(codes, key=lambda c: (c[1:], c)) if belongs(c)]
        if not rows:
            continue
        out += [f"### {title}", "", "| Code | Name | Summary |", "|---|---|---|"]
        out += [f"| {c} | {codes[c]['name']} | {codes[c]['summary']} |" for c in rows]
        out.append("")
    orphans = [c for c in sorted(codes) if not any(belongs(c) for _, belongs in GROUPS)]
    if orphans:  # a code no group takes would be missing from the reference, silently
        raise SystemExit(f"codes in no group of scripts/codes_table.py: {', '.join(orphans)}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    new = f"{head}{START}\n{table()}{END}{tail}"
    if args.check:
        if new != text:
            print("docs/language.md: code tables are out of date; run scripts/codes_table.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
