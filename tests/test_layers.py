"""The layer contract: each stage imports only the stages below it, with no cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "compiler"

# Each layer and the layers it may import (besides itself). Order follows the pipeline:
# spec text -> syntax -> check -> IR; run files -> traces -> metrics -> ingest; both meet in
# analysis, which report renders and build drives; verbs and cli sit on top.
BASE = {"base"}
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "language": BASE,
    "syntax": BASE | {"language"},
    "ir": BASE | {"language"},
    "compute": BASE | {"language"},
    "check": BASE | {"language", "syntax", "ir", "compute"},
    "compile": BASE | {"language", "syntax", "ir", "check"},
    "traces": BASE | {"language"},
    "metrics": BASE | {"language", "traces"},
    "ingest": BASE | {"language", "ir", "traces", "metrics", "compute"},
    "analysis": BASE | {"language", "ir", "compute", "metrics", "ingest"},
    "report": BASE | {"language", "ir", "compute", "analysis"},
    "build": BASE | {"language", "syntax", "ir", "compile", "ingest", "analysis", "report"},
    "verbs": BASE
    | {"language", "syntax", "ir", "check", "compile", "traces", "metrics", "compute"}
    | {"ingest", "analysis", "report", "build"},
    "api": BASE
    | {"language", "syntax", "ir", "check", "compile", "traces", "metrics", "compute"}
    | {"ingest", "analysis", "report", "build"},
    "cli": BASE | {"verbs", "build", "ingest"},
}
BASE_MODULES = {"cmpc", "source", "diagnostics", "outcome", "limits", "codes", "files"}
BASE_MODULES |= {"safe_text", "safefs", "jsontypes", "_fastscan", "_fastdraw", "callable_package"}
BASE_MODULES |= {"_classcache", "lazy", "digests", "_fastswap", "_pycfinder", "_recache"}
# Imports inside functions are for the CLI's start-up (a verb loads only what it runs).
LAZY_ALLOWED = {"cmpc.cli"}
# optional C modules: absent without a compiler
OPTIONAL = {"cmpc._fastscan", "cmpc._fastdraw", "cmpc._fastswap"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / "cmpc").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The cmpc module an import names (a name imported from a package may be a module)."""
    if name in MODULES or name in OPTIONAL:
        return name
    parent = name.rpartition(".")[0]
    return _resolve(parent) if parent else None


def _top_level(tree: ast.Module) -> set[int]:
    """The statements run at import: the module's own, and those of its top-level `if`s."""
    top: set[int] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        top.add(id(node))
        if isinstance(node, ast.If):
            todo += node.body + node.orelse
    return top


def _lazy_import(node: ast.AST) -> str | None:
    """The module a `lazy.module("cmpc....")` call (cmpc/lazy.py) defers, else None."""
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    func = call.func
    named = isinstance(func, ast.Attribute) and func.attr == "module"
    named = named and isinstance(func.value, ast.Name) and func.value.id == "lazy"
    if not named or len(call.args) != 1 or not isinstance(call.args[0], ast.Constant):
        return None
    return str(call.args[0].value)


def _imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported cmpc module, line, inside a function) for every import in a module.

    A `lazy.module("cmpc.x")` assignment counts as importing cmpc.x (layers, cycles).
    """
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    top = _top_level(tree)
    found = []
    for node in ast.walk(tree):
        if (deferred := _lazy_import(node)) is not None:
            names = [deferred]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] != "cmpc":
                continue
            target = _resolve(name)
            if target and target != module:
                found.append((target, node.lineno, id(node) not in top))
    return found


def layer(module: str) -> str:
    """The layer a module belongs to."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in BASE_MODULES:
        return "base"
    return parts[1]


def test_every_module_has_a_layer():
    unknown = {m for m in MODULES if layer(m) not in ALLOWED}
    assert not unknown, f"modules outside every layer (add them to ALLOWED): {sorted(unknown)}"


def test_each_layer_imports_only_the_layers_below_it():
    wrong = [
        f"{MODULES[m].relative_to(ROOT)}:{line} imports {target} "
        f"({layer(m)} may import {sorted(ALLOWED[layer(m)]) or 'nothing'})"
        for m in MODULES
        for target, line, _ in _imports(m)
        if layer(target) != layer(m) and layer(target) not in ALLOWED[layer(m)]
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    graph = {m: {t for t, _, _ in _imports(m) if t in MODULES} for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert not cycles, f"import cycles: {cycles}"


def test_cmpc_modules_are_imported_at_the_top():
    lazy = {
        f"{MODULES[m].relative_to(ROOT)}:{line} imports {target} inside a function"
        for m in MODULES
        if m not in LAZY_ALLOWED
        for target, line, inside in _imports(m)
        if inside and target not in OPTIONAL
    }
    assert not lazy, "\n".join(sorted(lazy))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.count(".") == 1))
def test_each_stage_says_its_job(module):
    path = MODULES[module]
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring, f"{path.relative_to(ROOT)} has no docstring"
    assert "\n" not in docstring.strip().split("\n\n")[0], "the first paragraph is one line"
