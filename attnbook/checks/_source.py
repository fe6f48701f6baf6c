"""Which names a learner's function uses, read from its source: the one rule for every place.

A few exercises forbid a shortcut (PyTorch's fused attention in `scaled_dot_product_attention`,
its layer norm in `layer_norm`, the step-by-step loop inside `linear_recurrence_parallel`).
The visible checks and the grader must agree on what counts, so both read the same thing:
the syntax tree of the function's last definition, plus the functions and classes of the
learner's own that it reaches, transitively. Names are the globals, attributes and imports
it reads, and string constants that are identifiers (so `getattr(F, "layer_norm")` counts).
Docstrings and comments never count.

In the notebook the source comes from `inspect.getsource`; in the grader from the
submission's code cells (`grader.execute.names_used`), never from the student's kernel.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign


def definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """Top-level functions, classes and `name = lambda ...` of a module, the last one wins."""
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda | ast.Call):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    return found


def _docstrings(node: ast.AST) -> set[int]:
    ids = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant):
            ids.add(id(body[0].value))
    return ids


def names_in(node: ast.AST, own: str = "") -> set[str]:
    """Names read anywhere inside `node`; its own bare name (a recursive call) left out,
    an attribute of the same name (`F.layer_norm` inside `layer_norm`) kept."""
    names: set[str] = set()
    skip = _docstrings(node)
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            if inner.id != own:  # a recursive call is not a borrowed one
                names.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            names.add(inner.attr)
        elif isinstance(inner, ast.Import | ast.ImportFrom):
            for alias in inner.names:
                names.update(alias.name.split("."))
            if isinstance(inner, ast.ImportFrom) and inner.module:
                names.update(inner.module.split("."))
        elif (isinstance(inner, ast.Constant) and isinstance(inner.value, str)
              and id(inner) not in skip and inner.value.isidentifier()):
            names.add(inner.value)
    return names


def names_reached(name: str, defs: dict[str, ast.AST]) -> set[str]:
    """`names_in` of `name`'s definition and of every definition in `defs` it reaches."""
    seen, todo, names = {name}, [name], set()
    while todo:
        current = todo.pop()
        found = names_in(defs[current], own=current)
        names |= found
        for other in found:
            if other in defs and other not in seen:
                seen.add(other)
                todo.append(other)
    return names


def _local_definitions(func) -> dict[str, ast.AST] | None:
    """Definitions of `func` and of the learner's functions and classes it can reach, from
    their source (the notebook's cells); None when the source cannot be read."""
    defs: dict[str, ast.AST] = {}
    module = getattr(func, "__module__", None)
    namespace = getattr(inspect.unwrap(func), "__globals__", {})
    todo, seen = [(getattr(func, "__name__", ""), func)], set()
    while todo:
        name, obj = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            if not defs:
                return None
            continue
        found = definitions(tree)
        node = found.get(name) or next(iter(found.values()), None)
        if node is None:
            continue
        defs[name] = node
        for other in names_in(node, own=name):
            value = namespace.get(other)
            if (callable(value) and getattr(value, "__module__", None) == module
                    and other not in seen):
                todo.append((other, value))
    return defs


def names_called(func) -> set[str]:
    """The names `func`'s source uses (see the module docstring). The grader's stand-in for a
    learner's function supplies them itself (`__attnbook_names__`), from the submission."""
    supplied = getattr(func, "__attnbook_names__", None)
    if supplied is not None or hasattr(type(func), "__attnbook_names__"):
        return set(supplied or ())
    defs = _local_definitions(func)
    name = getattr(func, "__name__", "")
    if not defs or name not in defs:
        return set()
    return names_reached(name, defs)
