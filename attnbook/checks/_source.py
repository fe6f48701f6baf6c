"""Which names a learner's function uses, read from its source: the one rule for every place.

A few exercises forbid a shortcut (PyTorch's fused attention in `scaled_dot_product_attention`,
its layer norm in `layer_norm`, the step-by-step loop inside `linear_recurrence_parallel`).
The visible checks and the grader must agree on what counts, so both read the same thing:
the syntax tree of the function's last definition, plus the functions and classes of the
learner's own that it reaches, transitively. Names are the globals, attributes and imports
it reads, and string constants that are identifiers (so `getattr(F, "layer_norm")` counts).
Docstrings and comments never count. A function the learner wrote and reads by its bare name
is marked as their own (`borrowed` leaves it out of a ban on the library's function of that
name, such as PyTorch's `scaled_dot_product_attention`: its body counts instead), but only
where the name can mean nothing else: defined inside the function read, or at top level and
bound there by nothing but `def` or `class` (no import, assignment, attribute store or string
of that name, and no `exec`, `globals()` or the like anywhere: see `rebound`).

In the notebook the source comes from `inspect.getsource` (a class defined in a notebook has
no file, so it is read from its methods); in the grader from the submission's code cells
(`grader.testprocess.names_used`), never from the student's kernel.

`stub_state` reads the same source for one more thing: whether a function that raised
`NotImplementedError` is still the stub, or has the learner's code with the stub's `raise`
left in it. Without a source (the grader's stand-in) it says it cannot tell.
"""

from __future__ import annotations

import ast
import inspect
import textwrap


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


def docstring_ids(node: ast.AST) -> set[int]:
    """The ids of the docstring constants inside ``node``: text that names nothing."""
    ids = set()
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(getattr(body[0], "value", None), ast.Constant)
        ):
            ids.add(id(body[0].value))
    return ids


def _name_string(node: ast.AST, docstrings: set[int]) -> str | None:
    """The text of a string constant that is an identifier, outside the docstrings (the
    "layer_norm" of `getattr(F, "layer_norm")`); None for any other node."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and node.value.isidentifier()
    ):
        return node.value
    return None


def _names(node: ast.AST, own: str = "") -> tuple[set[str], set[str]]:
    """(bare names, other names) read inside `node`: bare names are `ast.Name` reads, except
    `own` and the functions and classes defined inside `node`; the others are attributes,
    imported names and identifier strings outside docstrings."""
    bare: set[str] = set()
    other: set[str] = set()
    skip = docstring_ids(node)
    nested = {
        inner.name
        for inner in ast.walk(node)
        if inner is not node
        and isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            # a recursive call is not a borrowed one, nor is a call of a helper defined here
            if inner.id != own and inner.id not in nested:
                bare.add(inner.id)
        elif isinstance(inner, ast.Attribute):
            other.add(inner.attr)
        elif isinstance(inner, ast.Import | ast.ImportFrom):
            for alias in inner.names:
                other.update(alias.name.split("."))
            if isinstance(inner, ast.ImportFrom) and inner.module:
                other.update(inner.module.split("."))
        elif (text := _name_string(inner, skip)) is not None:
            other.add(text)
    return bare, other


def names_in(node: ast.AST, own: str = "") -> set[str]:
    """Names read anywhere inside `node`; its own bare name (a recursive call) and those of
    functions defined inside it left out, an attribute of the same name (`F.layer_norm`
    inside `layer_norm`) kept."""
    bare, other = _names(node, own)
    return bare | other


# names that can bind any global at run time (`exec("...")`, `globals().update(...)`): a
# module that reads one may rebind any name, so `rebound` lists every name (`ANY`)
DYNAMIC = {"exec", "eval", "compile", "globals", "vars", "locals", "setattr", "delattr",
           "__import__", "__dict__", "__setattr__", "__builtins__"}  # fmt: skip
ANY = "*"


def rebound(tree: ast.Module) -> set[str]:
    """Names that `tree` binds at top level other than by `def` or `class` (imports,
    assignments, loop and `with` targets, `del`), declares `global`, stores as an attribute
    (`module.name = ...`) or writes as an identifier string (`globals()["name"] = ...`)
    anywhere: a bare read of one of these may not be the learner's own definition. `ANY`
    when the module reads a name of `DYNAMIC` (as a bare name, or `__dict__` and the like as
    an attribute): then any name may be rebound."""
    names: set[str] = set()
    skip = docstring_ids(tree)
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
                    names.add(inner.id)
    for inner in ast.walk(tree):
        if isinstance(inner, ast.Global):
            names.update(inner.names)
        elif isinstance(inner, ast.Name) and inner.id in DYNAMIC:
            names.add(ANY)
        elif isinstance(inner, ast.Attribute):
            if inner.attr.startswith("__") and inner.attr in DYNAMIC:
                names.add(ANY)
            if isinstance(inner.ctx, ast.Store | ast.Del):
                names.add(inner.attr)
        elif (text := _name_string(inner, skip)) is not None:
            names.add(text)
    return names


OWN = "own:"  # marks a name read only as the learner's own definition (see `borrowed`)


def names_reached(
    name: str, defs: dict[str, ast.AST], shadowed: set[str] | frozenset[str] = frozenset()
) -> set[str]:
    """`names_in` of `name`'s definition and of every definition in `defs` it reaches. A
    definition in `defs` that the code reads only by its bare name, and that nothing else
    binds (not in `shadowed`, see `rebound`), is also marked `OWN + name`: `borrowed` does
    not count it as the library's function of that name."""
    seen, todo, names = {name}, [name], set()
    bare_reads: set[str] = set()
    for_other: set[str] = set()
    while todo:
        current = todo.pop()
        bare, other = _names(defs[current], own=current)
        names |= bare | other
        bare_reads |= bare
        for_other |= other
        for found in bare | other:
            if found in defs and found not in seen:
                seen.add(found)
                todo.append(found)
    own = set() if ANY in shadowed else (bare_reads & set(defs)) - for_other - set(shadowed)
    return names | {OWN + n for n in own}


def borrowed(names: set[str], banned: set[str]) -> set[str]:
    """The names of `banned` that `names` (from `names_called` or the grader) reads, other
    than as the learner's own function of that name (a helper of their own called
    `scaled_dot_product_attention` is read, not banned: its body counts instead)."""
    return {n for n in names & banned if OWN + n not in names}


def source_text(obj) -> str | None:
    """The source of a function or class, dedented; a class that `inspect` cannot read
    (one defined in a notebook) is rebuilt from its methods' sources. None if unreadable."""
    try:
        return textwrap.dedent(inspect.getsource(obj))
    except (OSError, TypeError):
        if not isinstance(obj, type):
            return None
    methods = []
    for value in vars(obj).values():
        func = getattr(value, "__func__", value)  # a staticmethod or classmethod
        if inspect.isfunction(func):
            try:
                methods.append(textwrap.indent(textwrap.dedent(inspect.getsource(func)), "    "))
            except (OSError, TypeError):
                continue
    return f"class {obj.__name__}:\n" + "\n".join(methods) if methods else None


def parsed_source(obj) -> tuple[str, ast.Module] | None:
    """`source_text(obj)` and its syntax tree; None if unreadable or not Python."""
    text = source_text(obj)
    try:
        return (text, ast.parse(text)) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def _namespace(obj) -> dict:
    """The globals a function, or a class's methods, read names from."""
    if isinstance(obj, type):
        for value in vars(obj).values():
            func = getattr(value, "__func__", value)
            if inspect.isfunction(func):
                return func.__globals__
        return {}
    return getattr(inspect.unwrap(obj), "__globals__", {})


def _local_definitions(func) -> dict[str, ast.AST] | None:
    """Definitions of `func` and of the learner's functions and classes it can reach, from
    their source (the notebook's cells); None when the source cannot be read."""
    defs: dict[str, ast.AST] = {}
    module = getattr(func, "__module__", None)
    namespace = _namespace(func)
    todo, seen = [(getattr(func, "__name__", ""), func)], set()
    while todo:
        name, obj = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parsed = parsed_source(obj)
        if parsed is None:
            if not defs:
                return None
            continue
        found = definitions(parsed[1])
        node = found.get(name) or next(iter(found.values()), None)
        if node is None:
            continue
        defs[name] = node
        for other in names_in(node, own=name):
            value = namespace.get(other)
            if (
                callable(value)
                and getattr(value, "__module__", None) == module
                and other not in seen
            ):
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


# -- a stub left half-finished -------------------------------------------------------------
STUB_MARK = "# YOUR CODE HERE"  # the line nbgrader's release writes above each raise


def _is_stub_raise(node: ast.AST) -> bool:
    """`raise NotImplementedError` or `raise NotImplementedError()`, as the stub has it."""
    if not isinstance(node, ast.Raise) or node.exc is None:
        return False
    exc = node.exc.func if isinstance(node.exc, ast.Call) and not node.exc.args else node.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _blocks(tree: ast.AST):
    """Every list of statements in `tree`: bodies, else branches, handlers."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def stub_state(obj) -> str | None:
    """How a function or class that raised NotImplementedError stands, from its source:
    "leftover" when the learner's code is there but a stub's `raise NotImplementedError()`
    is still in the way (code after it, or between `# YOUR CODE HERE` and it); "stub" when
    it still reads as the stub; "elsewhere" when its source raises no NotImplementedError
    (something it calls did); None when there is no source to read (the grader)."""
    parsed = parsed_source(obj)
    if parsed is None:
        return None
    text, tree = parsed
    marks = [n for n, line in enumerate(text.splitlines(), 1) if line.strip() == STUB_MARK]
    starts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    found = False
    for block in _blocks(tree):
        for i, stmt in enumerate(block):
            if not _is_stub_raise(stmt):
                continue
            found = True
            after = block[i + 1 :]
            if after and not any(_is_stub_raise(n) for s in after for n in ast.walk(s)):
                return "leftover"
            mark = max((m for m in marks if m < stmt.lineno), default=None)
            if mark is not None and any(mark < n < stmt.lineno for n in starts):
                return "leftover"
    return "stub" if found else "elsewhere"
