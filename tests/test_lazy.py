"""`cmpc.lazy.module`: imported on the first attribute read, and seen by the layer rules."""

from __future__ import annotations

import ast
import subprocess
import sys

import test_layers

from cmpc import lazy


def test_the_module_is_imported_when_an_attribute_is_first_read():
    code = (
        "import sys; from cmpc import lazy; m = lazy.module('colorsys');"
        "before = 'colorsys' in sys.modules; value = m.rgb_to_hsv(1, 0, 0);"
        "print(before, 'colorsys' in sys.modules, value)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip().split(maxsplit=2) == ["False", "True", "(0.0, 1.0, 1)"]


def test_a_missing_attribute_is_an_attribute_error():
    try:
        lazy.module("colorsys").no_such_name  # noqa: B018
    except AttributeError:
        return
    raise AssertionError("expected AttributeError")


def test_the_layer_rules_read_a_deferred_import_as_an_import():
    statement = ast.parse('capacity = lazy.module("cmpc.check.capacity")').body[0]
    assert test_layers._lazy_import(statement) == "cmpc.check.capacity"
    found = test_layers._imports("cmpc.check.comparison")
    assert ("cmpc.check.capacity", False) in {(target, inside) for target, _, inside in found}
