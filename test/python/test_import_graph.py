"""The import graph of tensorad: layers run frontend -> passes -> dialects, with no cycles.

Every ``import`` statement of every module is read with :mod:`ast`, lazy
imports inside functions included (a cycle closed inside a function is still a
cycle). Three rules (DESIGN.md, "One record per op"):

* no module under ``passes/`` or ``dialects/`` imports the frontend
  (``python/tensorad/``), and no module under ``dialects/`` imports ``passes/``;
* no import cycles among tensorad's modules;
* no module imports another module's private (``_underscored``) names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Folder -> package, as pyproject.toml's package-dir assembles them.
PACKAGE_DIRS = {"python/tensorad": "tensorad", "dialects": "tensorad.dialects",
                "passes": "tensorad.passes", "tools": "tensorad.tools"}


def _modules() -> dict:
    """Module name -> (path, is_package) for every tensorad module."""
    found = {}
    for folder, package in PACKAGE_DIRS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join([package, *parts])] = (path, is_package)
    return found


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str) -> list:
    """(imported module, imported name or None, line) for every import in ``module``."""
    path, is_package = MODULES[module]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.extend((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:
                    out.append((submodule, None, node.lineno))
                else:
                    out.append((target, alias.name, node.lineno))
    return [(target, name, line) for target, name, line in out
            if target == "tensorad" or target.startswith("tensorad.")]


GRAPH = {module: _imports(module) for module in MODULES}


def _layer(module: str) -> str:
    for layer in ("dialects", "passes", "tools"):
        if module == f"tensorad.{layer}" or module.startswith(f"tensorad.{layer}."):
            return layer
    return "frontend"


def test_the_compiler_does_not_import_the_frontend():
    wrong = [f"{MODULES[module][0].relative_to(ROOT)}:{line}: {module} imports {target}"
             for module, imports in GRAPH.items() if _layer(module) in ("dialects", "passes")
             for target, _, line in imports
             if _layer(target) == "frontend" or (_layer(module) == "dialects" and _layer(target) == "passes")]
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_private_names_of_another():
    wrong = [f"{MODULES[module][0].relative_to(ROOT)}:{line}: imports {target}.{name}"
             for module, imports in GRAPH.items() for target, name, line in imports
             if name is not None and name.startswith("_") and not name.startswith("__")
             and target != module]
    assert not wrong, "\n".join(wrong)


def _cycles() -> list:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    edges = {m: sorted({t for t, _, _ in GRAPH[m] if t in MODULES and t != m}) for m in MODULES}
    index, low, on_stack, stack, components = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in MODULES:
        if v not in index:
            visit(v)
    return components


def test_there_are_no_import_cycles():
    cycles = _cycles()
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, expected", [
    ("from .a import b", ("tensorad.x.a", "b")),
    ("from .. import y", ("tensorad", "y")),
])
def test_relative_imports_resolve_like_python(source, expected):
    node = ast.parse(source).body[0]
    assert (_resolve("tensorad.x.mod", False, node), node.names[0].name) == expected
