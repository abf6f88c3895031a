"""`cmpc.lazy.module`: imported on the first attribute read, and seen by the layer rules."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys

import test_layers

from cmpc import lazy


def _run(code: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


def test_the_module_is_imported_when_an_attribute_is_first_read():
    code = (
        "import sys; from cmpc import lazy; m = lazy.module('colorsys');"
        "before = lazy.loaded('colorsys'); value = m.rgb_to_hsv(1, 0, 0);"
        "print(before, lazy.loaded('colorsys'), value == (0.0, 1.0, 1))"
    )
    assert _run(code) == ["False", "True", "True"]


def test_an_import_statement_meanwhile_binds_the_stand_in_and_loads_once():
    code = (
        "import sys; from cmpc import lazy; m = lazy.module('colorsys');"
        "import colorsys; same = colorsys is m and not lazy.loaded('colorsys');"
        "value = colorsys.hls_to_rgb(0, 0.5, 0); real = sys.modules['colorsys'];"
        "print(same, real is not m, real.hls_to_rgb is m.hls_to_rgb, value == (0.5, 0.5, 0.5))"
    )
    assert _run(code) == ["True", "True", "True", "True"]


def test_a_deferred_submodule_is_reachable_from_its_package():
    code = (
        "import sys, json; from cmpc import lazy; m = lazy.module('json.tool');"
        "import json.tool; print(json.tool is m, callable(json.tool.main),"
        "lazy.loaded('json.tool'))"
    )
    assert _run(code) == ["True", "True", "True"]


def test_a_submodule_of_a_package_not_imported_yet_is_deferred_without_the_package():
    code = (
        "import sys; from cmpc import lazy; m = lazy.module('xml.dom.minidom');"
        "print('xml' in sys.modules, 'xml.dom' in sys.modules, lazy.loaded('xml.dom.minidom'));"
        "from xml.dom import minidom; same = minidom is m;"
        "doc = m.parseString('<a/>').documentElement.tagName;"
        "print(same, lazy.loaded('xml'), lazy.loaded('xml.dom.minidom'), doc)"
    )
    assert _run(code) == ["False", "False", "False", "True", "True", "True", "a"]


def test_an_imported_module_is_returned_as_it_is():
    assert lazy.module("ast") is ast and lazy.loaded("ast")


def test_a_missing_attribute_is_an_attribute_error():
    try:
        lazy.module("colorsys").no_such_name  # noqa: B018
    except AttributeError:
        return
    raise AssertionError("expected AttributeError")


def test_a_module_that_is_not_installed_fails_at_first_use_and_is_not_registered():
    missing = lazy.module("cmpc_no_such_module")
    assert "cmpc_no_such_module" not in sys.modules
    try:
        missing.anything  # noqa: B018
    except ImportError:
        return
    raise AssertionError("expected ImportError")


def test_the_layer_rules_read_a_deferred_import_as_an_import():
    statement = ast.parse('capacity = lazy.module("cmpc.check.capacity")').body[0]
    assert test_layers._lazy_import(statement) == "cmpc.check.capacity"
    found = test_layers._imports("cmpc.check.comparison")
    assert ("cmpc.check.capacity", False) in {(target, inside) for target, _, inside in found}


def test_the_spec_found_is_the_one_importlib_finds():
    for name in ("colorsys", "json.tool", "cmpc.check.capacity", "numpy", "cmpc_no_such_module"):
        ours, theirs = lazy._find_spec(name), importlib.util.find_spec(name)
        assert (ours and (ours.name, ours.origin)) == (theirs and (theirs.name, theirs.origin))


def test_a_submodule_imported_through_a_loaded_stand_in_is_on_the_real_package():
    code = (
        "import sys; from cmpc import lazy; m = lazy.module('xml');"
        "import xml.dom; real = sys.modules['xml'];"
        "print(real is not m, real.dom is sys.modules['xml.dom'], m.dom is real.dom)"
    )
    assert _run(code) == ["True", "True", "True"]
