"""`cmpc check` of a valid spec imports only what it runs (issue 19: start-up <= 6x python)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from tests.loaded import modules_loaded

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


@pytest.fixture(scope="module")
def imported() -> tuple[int, set[str]]:
    modules_loaded("check", str(SPEC), cwd=REPO)  # notes the IR valid (ir/schema.py)
    return modules_loaded("check", str(SPEC), cwd=REPO)


@pytest.mark.parametrize("module", NOT_ON_THE_CHECK_PATH)
def test_check_of_a_valid_spec_does_not_import(imported, module):
    code, modules = imported
    assert code == 0, "the spec should check cleanly"
    assert module not in modules


def test_check_of_an_edited_spec_does_not_import_jsonschema(tmp_path):
    """An IR the memo has not seen (a price edited) is found valid without jsonschema."""
    price = f"1.{secrets.randbelow(10**6):06d} USD"  # a new IR: the memo cannot know it
    edited = tmp_path / "edited.cmp"
    edited.write_text(SPEC.read_text(encoding="utf-8").replace("1.50 USD", price, 1))
    code, modules = modules_loaded("check", str(edited), cwd=REPO)
    assert code == 0 and "jsonschema" not in modules
