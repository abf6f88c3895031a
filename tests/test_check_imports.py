"""`cmpc check` of a valid spec imports only what it runs (issue 19: start-up <= 6x python)."""

from __future__ import annotations

import secrets
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "specs" / "mi355x-vs-b300.cmp"
# Each was on the path of `cmpc check` and is not needed there: the parser's generator, package
# data readers, what only builds, schema failures or diagnostics use.
NOT_ON_THE_CHECK_PATH = (
    *("lark", "importlib.resources", "jsonschema", "numpy", "jinja2", "tomllib"),
    *("difflib", "tempfile", "shutil", "secrets"),  # did-you-mean, writes, tempfile's probe
    *("inspect", "ast", "dis", "tokenize"),  # dataclasses' import, for an undocumented class only
    *("hashlib", "importlib.util"),  # OpenSSL for the IR memo's name; lazy's spec search
    *("argparse", "gettext", "locale"),  # plain check arguments are read without argparse
    *("pathlib", "urllib.parse", "ipaddress"),  # the spec and the memo are read by string paths
    *("cmpc.check.capacity", "cmpc.check.claims", "cmpc.check.uncertainty", "cmpc.check.fleet"),
)
PROBE = """
import sys, cmpc.cli
from cmpc import lazy
code = cmpc.cli.main(["check", sys.argv[1]])
print(code, " ".join(sorted(m for m in sys.argv[2:] if lazy.loaded(m))))
"""


@pytest.fixture(scope="module")
def imported() -> tuple[str, set[str]]:
    run = [sys.executable, "-c", PROBE, str(SPEC), *NOT_ON_THE_CHECK_PATH]
    subprocess.run(run, capture_output=True, check=True)  # notes the IR valid (ir/schema.py)
    out = subprocess.run(run, capture_output=True, text=True, check=True).stdout.split()
    return out[0], set(out[1:])


@pytest.mark.parametrize("module", NOT_ON_THE_CHECK_PATH)
def test_check_of_a_valid_spec_does_not_import(imported, module):
    code, modules = imported
    assert code == "0", "the spec should check cleanly"
    assert module not in modules


def test_check_of_an_edited_spec_does_not_import_jsonschema(tmp_path):
    """An IR the memo has not seen (a price edited) is found valid without jsonschema."""
    price = f"1.{secrets.randbelow(10**6):06d} USD"  # a new IR: the memo cannot know it
    edited = tmp_path / "edited.cmp"
    edited.write_text(SPEC.read_text(encoding="utf-8").replace("1.50 USD", price, 1))
    run = [sys.executable, "-c", PROBE, str(edited), "jsonschema"]
    out = subprocess.run(run, capture_output=True, text=True, check=True, cwd=REPO).stdout.split()
    assert out == ["0"]
