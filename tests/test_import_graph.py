"""The import graph of `attnbook/` and `autograder/grader/` has no circle (issue 28, item 4).

Every `import` statement counts, at module level and inside functions alike: a function-level
import is still a dependency, only a later one, and it is how a circle hides (the grader's
`execute` imported `forkserver`, whose server imported `execute` back inside `serve`).
Not counted: imports under `if TYPE_CHECKING:` (they never run). An edge goes to the module
named, and for `from package import name` also to `package.name` when that is a module; a
parent package's `__init__` is not an edge of its own (importing `attnbook.lm.model` runs
`attnbook/__init__.py`, but that is the package's business, not this module's).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

TREES = {"attnbook": ROOT / "attnbook", "grader": ROOT / "autograder" / "grader"}


def module_files(trees: dict[str, Path] = TREES) -> dict[str, Path]:
    """Module name -> file, for every .py file of the trees (a package is its __init__)."""
    found = {}
    for package, root in trees.items():
        for path in sorted(root.rglob("*.py")):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of `modules` that the file `path` (module `name`) imports."""
    is_package = path.name == "__init__.py"
    edges = set()
    for node in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` is an edge to the module alone (its package's
            # __init__ runs, but that is no edge: see the module docstring)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        edges |= {target for target in targets if target in modules and target != name}
    return edges


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    return {name: imports_of(name, path, set(files)) for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_finder_sees_a_circle_and_a_function_level_import(tmp_path):
    """The check can fail: a two-module circle closed by an import inside a function, and a
    relative import, are found; an import under TYPE_CHECKING is not an edge."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from . import a\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import d\n"
    )
    (pkg / "d.py").write_text("import pkg.c\n")
    files = module_files({"pkg": pkg})
    graph = {name: imports_of(name, path, set(files)) for name, path in files.items()}
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.c"] == set()
    assert circles(graph) == [frozenset({"pkg.a", "pkg.b"})]


def test_the_grader_has_no_import_circle():
    """execute -> forkserver -> testprocess: the test process's module imports neither."""
    graph = import_graph()
    assert "grader.execute" not in graph["grader.forkserver"]
    assert {"grader.forkserver", "grader.testprocess"} <= graph["grader.execute"]
    grader = [c for c in circles(graph) if any(m.startswith("grader.") for m in c)]
    assert grader == [], grader


def test_the_import_graph_has_no_circle():
    assert circles(import_graph()) == []
