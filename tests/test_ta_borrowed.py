"""Borrowed answers (`autograder/grader/borrowed.py`): a graded answer that delegates to the
package's own version of its exercise, or to the PyTorch built-in the exercise forbids, gets
the course's setting for borrowed answers (`SandboxedExecute.borrowed_credit`, 0 by default)
and a status and feedback that name the call; honest answers that use allowed helpers (their
own functions, torch.softmax, nn.Linear, the helpers a notebook hands out) are not flagged.

The fast tests read submissions as the grader does (the cells before a test, its source):
every rule's target is flagged in every exercise that lists it, in the forms a student could
write it, and no solution notebook is flagged. The slow tests grade whole submissions with
the README's command (`python -m grader grade`) and look at grades.csv, the autograded
notebook and the feedback, and show the configured credit reaching nbgrader's score.
"""

from __future__ import annotations

import ast
import copy
import csv
import json
import re

import nbformat
import pytest
import torch
from conftest import ROOT, grade_with_readme_command, notebook_names
from grader.borrowed import (
    _MISSING,
    EVERY_ANSWER,
    RULES,
    SOURCE_LIMIT,
    borrowed_in_test,
    find_borrowed,
    process_reaches,
    resolve,
    subjects_of,
)
from grader.catalogue import fill_in, nbgrader_meta, solution_notebook, strip_solution_markers


# -- the submission as the grader reads it --------------------------------------------------
def is_test(cell) -> bool:
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and bool(meta.get("grade")) and not meta.get("solution")


def solution_cells(notebook: str) -> tuple[list[str], dict[str, tuple[str, list[str]]]]:
    """The code cells of the solution as a student's submission holds them (markers removed,
    no test cell), and grade_id -> (test source, the cells run before it)."""
    sources, tests = [], {}
    for cell in solution_notebook(notebook).cells:
        if cell.cell_type != "code":
            continue
        if is_test(cell):
            tests[nbgrader_meta(cell)["grade_id"]] = (cell.source, list(sources))
        else:
            sources.append(strip_solution_markers(cell.source))
    return sources, tests


def graded_names(notebook: str) -> set[str]:
    names = set()
    for cell in solution_notebook(notebook).cells:
        if cell.cell_type == "code" and nbgrader_meta(cell).get("solution"):
            tree = ast.parse(strip_solution_markers(cell.source))
            names |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    return names


def borrowed(notebook: str, subject: str, *cells: str) -> list:
    """What `subject` borrows when `cells` follow the solution's own cells."""
    sources, _ = solution_cells(notebook)
    return find_borrowed(notebook, subject, [*sources, *cells])


# -- the rules --------------------------------------------------------------------------------
def test_rules_list_every_graded_function_and_class_of_every_notebook():
    assert set(RULES) == set(notebook_names())
    for notebook in notebook_names():
        assert set(RULES[notebook]) == graded_names(notebook), notebook


def _torch_object(path: str):
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


TARGETS = sorted({t for rules in RULES.values() for targets in rules.values() for t in targets})


@pytest.mark.parametrize("target", TARGETS)
def test_every_rule_names_something_that_exists(target):
    """A renamed package function must not silently drop its rule."""
    if target.startswith("torch."):
        assert callable(_torch_object(target)), target
    else:
        assert resolve(target) is not _MISSING, target


@pytest.mark.parametrize("notebook", notebook_names())
def test_no_solution_notebook_is_flagged(notebook):
    """The instructor's answers use the allowed helpers: notebook 06's causal_self_attention,
    nn.LayerNorm, sinusoid_table and rope_tables, notebook 10's nn.RMSNorm and rotate_pairs,
    each notebook's own earlier answers, torch.softmax, nn.Linear, F.cross_entropy."""
    _, tests = solution_cells(notebook)
    flagged = {
        g: [b.message() for b in borrowed_in_test(notebook, source, before)]
        for g, (source, before) in tests.items()
    }
    assert not {g: m for g, m in flagged.items() if m}


def _flags(nb, notebook: str) -> dict[str, list[str]]:
    """grade_id -> the borrowed calls its subjects make in notebook `nb`."""
    sources, found = [], {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if is_test(cell):
            hits = borrowed_in_test(notebook, cell.source, sources)
            if hits:
                found[nbgrader_meta(cell)["grade_id"]] = [b.message() for b in hits]
        else:
            sources.append(strip_solution_markers(cell.source))
    return found


@pytest.mark.parametrize("notebook", notebook_names())
def test_no_catalogued_correct_alternative_is_flagged(notebook):
    """The catalogue's correct answers written another way (autograder/mistakes/), e.g.
    PyTorch's fused attention for Y in notebook 01 or the package's KV cache in notebook
    08's generate, stay correct in the grader."""
    from grader.catalogue import apply_variant, load_catalogue

    for variant in load_catalogue(notebook).ALTERNATIVES:
        nb = apply_variant(solution_notebook(notebook), variant)
        assert _flags(nb, notebook) == {}, variant.name


def test_every_graded_test_has_its_subject():
    """Each function test's source passes its subject to the check, so the grader knows
    whose answer to read (concept tests have none)."""
    from grader.borrowed import subjects_of

    for notebook in notebook_names():
        _, tests = solution_cells(notebook)
        for grade_id, (source, _) in tests.items():
            if not grade_id.startswith("test_answer_"):
                assert subjects_of(notebook, source), (notebook, grade_id)


# -- each twin, in each exercise that forbids it -----------------------------------------------
CASES = [
    (notebook, subject, target)
    for notebook, rules in sorted(RULES.items())
    for subject, targets in sorted(rules.items())
    for target in targets
]
# every answer may not use the check library or the grader's loader: one subject per notebook
CASES += [
    (notebook, sorted(rules)[0], target)
    for notebook, rules in sorted(RULES.items())
    for target in EVERY_ANSWER
]


def wrapper(subject: str, target: str) -> str:
    """A submission cell whose `subject` delegates to `target` through a module alias."""
    is_module = target in EVERY_ANSWER
    module, name = (target, "anything") if is_module else target.rsplit(".", 1)
    return (
        f"import {module} as lib\n\n\ndef {subject}(*args, **kwargs):\n"
        f"    return lib.{name}(*args, **kwargs)\n"
    )


@pytest.mark.parametrize(
    ("notebook", "subject", "target"), CASES, ids=[f"{n[:2]}-{s}-{t}" for n, s, t in CASES]
)
def test_each_twin_is_flagged_and_named(notebook, subject, target):
    found = borrowed(notebook, subject, wrapper(subject, target))
    assert found, f"{subject} delegating to {target} was not flagged"
    assert {b.subject for b in found} == {subject}
    named = [b for b in found if target in b.call]  # the call as written, resolved
    assert named, found
    if not target.startswith("torch."):  # a built-in is matched by name, the package by object
        assert named[0].target == target, named
    assert target in named[0].message() and subject in named[0].message()


def test_the_honest_solution_of_each_case_is_not_flagged():
    """The same subjects, as the solution writes them: the flag is the wrapper's."""
    for notebook, subject, _ in CASES:
        assert borrowed(notebook, subject) == [], (notebook, subject)


# -- the forms a delegation can take ---------------------------------------------------------
FORMS = {
    "from-import alias": "from attnbook.lm.model import sinusoid_table as table\n\n"
    "def sinusoidal_positions(L, d):\n    return table(L, d).double().numpy()",
    "module alias": "import attnbook.lm.model as m\n\n"
    "def sinusoidal_positions(L, d):\n    return m.sinusoid_table(L, d).numpy()",
    "package attribute": "import attnbook\nimport attnbook.lm.model\n\n"
    "def sinusoidal_positions(L, d):\n"
    "    return attnbook.lm.model.sinusoid_table(L, d).numpy()",
    "getattr": "import attnbook.lm.model\n\ndef sinusoidal_positions(L, d):\n"
    "    return getattr(attnbook.lm.model, 'sinusoid_table')(L, d).numpy()",
    "import inside": "def sinusoidal_positions(L, d):\n"
    "    from attnbook.lm.model import sinusoid_table\n"
    "    return sinusoid_table(L, d).numpy()",
    "lambda": "import attnbook.lm.model as m\n"
    "sinusoidal_positions = lambda L, d: m.sinusoid_table(L, d).numpy()",
    "plain alias": "from attnbook.lm.model import sinusoid_table as sinusoidal_positions",
    "re-export": "import attnbook.demos.nb03 as p\nimport attnbook.lm.model\n"
    "p.table = attnbook.lm.model.sinusoid_table\n\n"
    "def sinusoidal_positions(L, d):\n"
    "    from attnbook.lm.model import sinusoid_table as t\n    return t(L, d)",
    "own helper": "from attnbook.lm import model\n\ndef helper(L, d):\n"
    "    return model.sinusoid_table(L, d)\n\n"
    "def sinusoidal_positions(L, d):\n    return helper(L, d).numpy()",
    "__import__": "def sinusoidal_positions(L, d):\n"
    "    m = __import__('attnbook.lm.model').model\n"
    "    return m.sinusoid_table(L, d).numpy()",
    # stored at run time as an attribute of another module, then read through it
    "attribute of math": "import math\nfrom attnbook.lm.model import sinusoid_table\n"
    "math.table = sinusoid_table\n\n"
    "def sinusoidal_positions(L, d):\n    return math.table(L, d).double().numpy()",
    "setattr on math": "import math\nfrom attnbook.lm.model import sinusoid_table\n"
    "setattr(math, 'table', sinusoid_table)\n\n"
    "def sinusoidal_positions(L, d):\n    return math.table(L, d).double().numpy()",
    "read through the re-export": "import attnbook.demos.nb03 as p\nimport attnbook.lm.model\n"
    "p.table = attnbook.lm.model.sinusoid_table\n\n"
    "def sinusoidal_positions(L, d):\n    return p.table(L, d).double().numpy()",
    "builtins": "import builtins\nfrom attnbook.lm.model import sinusoid_table\n"
    "builtins.table = sinusoid_table\n\n"
    "def sinusoidal_positions(L, d):\n    return table(L, d).double().numpy()",
    "sys.modules": "import sys\nimport attnbook.lm.model\n"
    "sys.modules['mytools'] = attnbook.lm.model\nfrom mytools import sinusoid_table as st\n\n"
    "def sinusoidal_positions(L, d):\n    return st(L, d).double().numpy()",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_of_delegation_is_flagged(form):
    found = borrowed("02_positions", "sinusoidal_positions", FORMS[form])
    assert found and "sinusoid_table" in found[0].call, found
    if form == "own helper":
        assert found[0].via == "helper" and "through your helper" in found[0].message()


COMPUTED_FORMS = {
    "import_module": "import importlib\n\ndef sinusoidal_positions(L, d):\n"
    "    m = importlib.import_module('attnbook.lm.' + 'model')\n"
    "    return getattr(m, 'sinusoid' + '_table')(L, d).numpy()",
    "import_module as a name": "from importlib import import_module as im\n"
    "f = getattr(im('.'.join(['attnbook', 'lm', 'model'])), 'sinusoid_' + 'table')\n\n"
    "def sinusoidal_positions(L, d):\n    return f(L, d).numpy()",
    "__import__": "def sinusoidal_positions(L, d):\n"
    "    name = 'attnbook.lm.model'[::-1][::-1]\n"
    "    return __import__(name, fromlist=['x']).sinusoid_table(L, d).numpy()",
    "getattr of the package": "import attnbook.lm.model\n\ndef sinusoidal_positions(L, d):\n"
    "    return getattr(attnbook.lm.model, 'sinusoid' + '_table')(L, d).numpy()",
    "a name in pieces": "import attnbook.lm.model as m\n\ndef sinusoidal_positions(L, d):\n"
    "    name = f\"{'sinusoid'}_\" + ''.join(['ta', 'ble'])[::1]\n"
    "    return getattr(m, name)(L, d).numpy()",
}


@pytest.mark.parametrize("form", sorted(COMPUTED_FORMS))
def test_a_name_built_at_run_time_is_a_finding(form):
    """A hostile review's borrowed answer: the package's function reached through a module
    or attribute name built from pieces, which no reading of the cells resolves."""
    found = borrowed("02_positions", "sinusoidal_positions", COMPUTED_FORMS[form])
    assert any("built" in b.message() for b in found), found


# a hostile review's: a cell after the answer rebinds the kernel's dispatch, so the grader's
# calls of the (wrong) sinusoidal_positions run the package's sinusoid_table
WRONG_SINUSOID = "def sinusoidal_positions(L, d):\n    return np.zeros((L, d))\n"
KERNEL_PATCH = (
    "from grader.kernel import Kernel\nfrom attnbook.lm.model import sinusoid_table\n"
    "_own = Kernel._target\n\n\ndef _target(self, target, _own=_own):\n"
    "    if target.get('name') == 'sinusoidal_positions':\n"
    "        return lambda L, d: sinusoid_table(L, d).double().numpy()\n"
    "    return _own(self, target)\n\n\nKernel._target = _target\n"
)
GRADED_02 = [g for g, (test, _) in solution_cells("02_positions")[1].items()
             if subjects_of("02_positions", test)]  # fmt: skip

REACHES = {  # a hostile review's kernel patch, and the other ways into the running process
    "the grader's kernel": KERNEL_PATCH,
    "its module in pieces": "import sys as _s, importlib as _il\n"
    "_K = _s.modules['grader' + '.' + 'kernel'].Kernel\n"
    "_ops = _il.import_module(''.join(['attn', 'book', '.', 'ops']))",
    "sys.modules by getattr": "import sys\nm = getattr(sys, 'mod' + 'ules')",
    "a .pth file's lines run": "import os, site\nsite.addsitedir(os.getcwd())",
    "a pipe copied to be inherited": "import os\nos.dup2(3, 10)",
    "a pipe made inheritable": "import os\nos.set_inheritable(3, True)",
    "a pipe handed to a program": "import subprocess\nsubprocess.Popen(['cat'], pass_fds=(3,))",
    "fcntl": "import fcntl\nfcntl.fcntl(3, fcntl.F_SETFD, 0)",
    "posix_spawn": "import os\nos.posix_spawn('/bin/cat', ['cat'], {})",
    # round 10, a hostile review of the kernel's isolation
    "a name stored under a key built at run time": 'globals()["".join(reversed("x_"))] = 1',
    "globals() kept in a name": "g = globals()\ng['a' + 'b'] = 1",
    "globals() handed to a function": "def put(ns):\n    pass\n\n\nput(globals())",
    "IPython's exit object's shell": "shell = quit._ip",
    "a bound method's owner by pickling": "owner = print.__reduce__()",
    "numpy's array protocol on a class": "class Raw:\n    __array_interface__ = {}",
    "numpy's array protocol read": "import numpy as np\nface = np.ones(2).__array_interface__",
    "numpy.ctypeslib": "import numpy as np\nraw = np.ctypeslib.as_array",
    "as_strided": "import numpy as np\nnp.lib.stride_tricks.as_strided(np.ones(1), (9,), (8,))",
    "files sent over a socket": "import socket\na, b = socket.socketpair()\n"
    "socket.send_fds(a, [b'x'], [3])",
    "a socket made inheritable": "import socket\na, b = socket.socketpair()\n"
    "b.set_inheritable(True)",
    "a library module kept in a name": "import os\np = os.path\np.realpath = str",
    "a library module's __dict__": "import os\nos.path.__dict__['realpath'] = str",
    "vars() of a library module": "import os\nvars(os.path)['realpath'] = str",
    "the shell named in a string": "shell = globals()['get_ipython']()",
    "a frame": "import sys\n\ndef f():\n    return sys._getframe(1)",
    "a caller's locals": "import inspect\nk = inspect.currentframe().f_back.f_locals['self']",
    "a bound method's self": "k = get_ipython().display_pub.publish.__self__",
    "gc": "import gc\nseen = gc.get_objects()",
    "sys by char codes": "import sys\nm = getattr(sys, ''.join(map(chr, [109, 111])))",
    "ctypes": "from ctypes import pythonapi",
    "code built at run time": "exec(bytes.fromhex('3d').decode())",
    "a magic's code": "%time from grader import kernel",
    "a cell magic": "%%time\nimport grader.kernel as k",
    "a function's insides": "def f():\n    pass\n\nf.__code__ = (lambda: 1).__code__",
    "a closure's cell": "def f():\n    pass\n\nf.__closure__[0].cell_contents = 1",
    "every class": "classes = object.__subclasses__()",
    # a hostile review's (round 9): code the kernel runs and the grader cannot read
    "a cell past the grader's parser": "_pad = " + "+".join(["1"] * 4000) + "\nimport ctypes",
    "a cell in a syntax of its own": "§import ctypes",
    "the shell's input transformers": "get_ipython().input_transformers_cleanup.append(f)",
    "the shell itself": "ip = get_ipython()\nip.events.register('pre_run_cell', f)",
    "the recursion limit": "import sys\nsys.setrecursionlimit(100000)",
    "a file run": "%run helper.py",
    "a file written": "%%writefile helper.py\nimport grader",
    "a file's module": "import runpy\nrunpy.run_path('helper.py')",
    "a file's module by spec": "import importlib.util as u\nu.spec_from_file_location('h', 'h.py')",
    "eval passed around": "run = eval\nrun(code)",
    "eval rebound to itself": "eval = eval\nrun = eval",
    "exec through builtins": "import builtins as b\nb.exec(code)",
    "exec through __builtins__": "__builtins__.exec(code)",
    "a timed string built at run time": "import timeit\ntimeit.timeit(statement, number=1)",
    "a pickle that runs code": "import torch\nstate = torch.load('x.pt', weights_only=False)",
    "an unpickler": "import pickle\nstate = pickle.loads(data)",
    "the import machinery": "import sys\nsys.meta_path.pop(0)",
    "an interpreter": "import code\ncode.InteractiveInterpreter().runsource(text)",
    "sys's own dictionary": "import sys\nsys.__dict__['setrecursionlimit'](100000)",
    # a second round-9 review's
    "sys through another module": "import os\nK = os.sys.modules['grader.kernel'].Kernel",
    "the import system's insides": "import importlib\nimportlib._bootstrap._gcd_import('x')",
    "builtins by their name in a string": "globals()['__builtins__'].exec(code, globals())",
    "a path in a string": "import operator, os\nm = operator.attrgetter('sys.modules')(os)",
    "a pickle through numpy": "import numpy as np\nstats = np.load('s.npy', allow_pickle=True)",
    "a timed magic's options": "%timeit -n1 -r1 import grader.kernel as k",
    "a timed magic's setup": '%timeit -n1 -r1 -s "import ctypes" pass',
    "a kept shell": "ip = get_ipython()\nip.events.register('pre_run_cell', f)",
    "an alias of the shell": "from IPython import get_ipython as gi\ngi().events.register('x', f)",
    "a shell of one's own": "from IPython.core.interactiveshell import InteractiveShell",
    "native code": "import torch\ntorch.ops.load_library('x.so')",
}


def test_only_a_plain_syntax_error_is_a_cell_that_ran_nothing():
    """The run blanks a cell the kernel could not compile when it is no Python for the
    grader either; a cell nested past the grader's parser is not one (a kernel with a raised
    recursion limit reads it), nor is IPython's syntax."""
    from grader.borrowed import not_python

    assert not_python("def f(:\n    pass") and not_python("§import ctypes")
    assert not not_python("_pad = " + "+".join(["1"] * 4000))
    assert not not_python("%time x = 1") and not not_python("x = 1")


@pytest.mark.parametrize("form", sorted(REACHES))
def test_a_reach_into_the_running_process_is_charged_to_every_subject(form):
    """A cell anywhere in the notebook, not only an answer, that reaches the kernel's own
    code, the process's modules, frames or memory, or runs code built at run time: each
    test with a subject is charged, naming the cell."""
    sources = [*solution_cells("02_positions")[0], REACHES[form]]
    assert process_reaches(sources), form
    test = solution_cells("02_positions")[1]["test_embed"][0]
    found = [b.message() for b in borrowed_in_test("02_positions", test, sources)]
    assert found and all(m.startswith(f"cell {len(sources)} ") for m in found), found
    assert all("running process" in m and "embed" in m for m in found), found


def test_the_students_own_modules_are_read_as_cells_are():
    """A review's: a module submitted beside the notebook imports in the grading kernel, so
    the grader reads it: a reach there is charged naming the file (imported or not, since an
    import need not show), as is a file it cannot read; a plain syntax error imports nothing;
    a borrowed call in a module the cells name costs the subjects it serves."""
    from grader.borrowed import own_code

    cells = [*solution_cells("02_positions")[0], "import helper\nhelper.setup()"]
    test = solution_cells("02_positions")[1]["test_sinusoidal_positions"][0]
    patch = KERNEL_PATCH.replace("\n\n\n", "\n\n\ndef setup():\n    pass\n\n\n", 1)
    for name, text in (("helper.py", patch), ("pkg/__init__.py", "import ctypes\n"),
                       ("deep.py", "_pad = " + "+".join(["1"] * 4000))):  # fmt: skip
        found = process_reaches(cells, {name: text})
        assert found and found[0].startswith(f"your own file '{name}' "), (name, found)
        charged = [b.message() for b in borrowed_in_test("02_positions", test, cells, None,
                                                         {name: text})]  # fmt: skip
        assert any("running process" in m for m in charged), charged
    honest = {"helper.py": "import numpy as np\n\n\ndef setup():\n    return np.zeros(2)\n",
              "broken.py": "def unfinished(:\n    pass\n"}  # fmt: skip
    assert process_reaches(cells, honest) == []
    assert borrowed_in_test("02_positions", test, cells, None, honest) == []
    twin = {"helper.py": "from attnbook.lm.model import sinusoid_table as table\n"}
    answer = "from helper import table\n\n\ndef sinusoidal_positions(L, d):\n    return table(L, d)"
    found = find_borrowed("02_positions", "sinusoidal_positions", [answer], None, twin)
    assert [b.target for b in found] == ["attnbook.lm.model.sinusoid_table"], found
    assert "in your own file helper.py" in found[0].message(), found
    assert find_borrowed("02_positions", "sinusoidal_positions", ["x = 1"], None, twin) == []
    # read as the kernel compiles it: UTF-8 (a coding line means nothing), else not at all
    latin = "# -*- coding: latin-1 -*-\nimport sys\nsys.modules\nname = 'caf\xe9'\n"
    texts = own_code({"a.py": latin.encode(), "b.py": b"\xff\xfe", "c.txt": b"x",
                      "d.py": "x = 'caf\xe9'".encode("latin-1"),
                      "e.py": b"\xef\xbb\xbfimport ctypes\n"})  # fmt: skip
    assert list(texts) == ["a.py", "e.py"] and "café" in texts["a.py"], texts
    assert process_reaches(["x = 1"], texts)[0].startswith("your own file 'a.py' ")
    assert process_reaches(["x = 1"], {"e.py": texts["e.py"]}) == [
        "your own file 'e.py' imports ctypes"
    ]
    big = own_code({"a.py": b"x = 1\n" * 400_000, "b.py": b"y = 2\n" * 400_000})
    assert sum(map(len, big.values())) == SOURCE_LIMIT + 1, "kept past the limit: charged"
    assert process_reaches(["x = 1"], big) == ["more code than the grader reads"]


def test_own_modules_a_second_review_found():
    """Round 10's review of the first version: an unused file's import rebinding a name the
    cells use, a module named outside ASCII or found in a folder the cells put on the path,
    a scratch file named like a word of the cells, a script's `__main__` block, pickle's
    Python unpickler, and a change to Python's own modules (the kernel's guard runs on
    them)."""
    patch = "import sys\nk = sys.modules['grader.kernel']"
    assert process_reaches([patch], {"scratch.py": "import numpy as sys\n"}) == [
        "cell 1 uses sys.modules"
    ]
    assert process_reaches([patch, "import numpy as sys"]) == ["cell 1 uses sys.modules"]
    twin = "from attnbook.lm.model import sinusoid_table as table\n"
    answer = "def sinusoidal_positions(L, d):\n    return table(L, d)"
    for name, cell in (("ähelper.py", "from ähelper import table"),
                       ("lib/helper.py", "import sys, glob\nsys.path.extend(glob.glob('*/'))\n"
                                         "from helper import table"),
                       ("pkg/sub/mod.py", "import importlib as il\n"
                                          "m = il.import_module('pkg.sub.mod')")):  # fmt: skip
        found = find_borrowed("02_positions", "sinusoidal_positions", [cell, answer], None,
                              {name: twin})  # fmt: skip
        assert [b.target for b in found] == ["attnbook.lm.model.sinusoid_table"], (name, found)
    sdpa = "import torch.nn.functional as F\nF.scaled_dot_product_attention\n"
    cells = solution_cells("05_multihead")[0]
    assert "attention" in "".join(cells)  # a word of the cells, but no import of a module
    for subject in ("scaled_dot_product_attention", "MultiHeadAttention"):
        assert find_borrowed("05_multihead", subject, cells, None, {"attention.py": sdpa}) == []
    script = ('def f(x):\n    return x + 1\n\n\nif __name__ == "__main__":\n'
              "    import doctest\n    doctest.testmod()\n")  # fmt: skip
    assert process_reaches(["import helper"], {"helper.py": script}) == []
    renamed = "__name__ = '__main__'\n" + script
    assert process_reaches(["x = 1"], {"helper.py": renamed})[0] == (
        "your own file 'helper.py' imports doctest"
    )
    assert process_reaches(["import pickle\nx = pickle._Unpickler(f).load()"]) == [
        "cell 1 uses pickle._Unpickler"
    ]
    changes = ["import tokenize\ntokenize.detect_encoding = len",
               "from os import path\npath.realpath = str", "import os\nsetattr(os.path, 'x', 1)",
               "import codecs\ncodecs.register(len)"]  # fmt: skip
    for cell in changes:
        assert process_reaches([cell]), cell
    honest = ["import torch\ntorch.backends.cudnn.benchmark = True",
              "import os\nos.environ['TOKENIZERS_PARALLELISM'] = 'false'",
              "import matplotlib.pyplot as plt\nplt.rcParams['figure.dpi'] = 100"]  # fmt: skip
    assert process_reaches(honest) == []


def test_reading_that_cannot_finish_is_charged_not_dropped(monkeypatch):
    """Round 10: a test process whose reading of the code stopped (RecursionError, say)
    reported no finding at all, reaches included; now each subject is charged with code the
    grader could not read to the end."""
    import grader.borrowed
    from grader.testprocess import _borrowed

    def stops(*args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(grader.borrowed, "borrowed_in_test", stops)
    test = solution_cells("02_positions")[1]["test_embed"][0]
    found = _borrowed({"notebook": "02_positions", "source": test, "sources": ["x = 1"]})
    assert found and all("could not read to the end (RecursionError)" in m for m in found)
    assert any("embed" in m for m in found), found


def test_honest_uses_of_sys_modules_and_getattr_are_not_reaches():
    honest = (
        "import sys\nimport importlib\nimport torch\nsys.path.append('..')\nprint(sys.version)\n"
        "math = importlib.import_module('math')\nlayer = torch.nn.Linear(2, 2)\n"
        "parts = list(layer.modules())\nsin = getattr(torch, 'sin')\n%time y = sin(torch.ones(2))\n"
        "import gc\ngc.collect()\nIN_COLAB = 'google.colab' in sys.modules\n"
        "if 'model' not in globals():\n    model = None\nnames = sorted(globals())\n"
        "seen = globals().get('model')\nglobals()['step'] = 1\nglobals().update(lr=0.1)\n"
        "if 'torch' not in sys.modules:\n    print('no torch')"
    )
    assert process_reaches([honest]) == []
    asked = "import sys\n'x' in sys.modules and sys.modules['grader.kernel']"
    assert process_reaches([asked]) == ["cell 1 uses sys.modules"]
    assert process_reaches(["'x' in exec(code)"]) == ["cell 1 runs code built at run time (exec)"]
    # round 9: methods and other modules' functions named like the builtins, IPython's settings
    also = (
        "import re\nimport torch\nfast = torch.compile(layer, mode='reduce-overhead')\n"
        "word = re.compile(r'\\w+')\nlayer.eval()\neval = float(fast(torch.ones(2)).sum())\n"
        "print(eval)\n%load_ext autoreload\n%autoreload 2\n"
        "%config InlineBackend.figure_format = 'retina'\n!pip install tqdm\n%pip install tqdm\n"
        "from IPython.display import display\ndisplay(word)\nimport timeit\nimport pickle\n"
        "def step():\n    return fast(torch.ones(2))\n"
        "t = timeit.timeit(step, number=3) + timeit.timeit(lambda: step(), 'pass', number=3)\n"
        "state = torch.load('x.pt')\nblob = pickle.dumps(state)\n"
        "%config InlineBackend.figure_format = 'retina'  # sharper\n"
        "%config Completer.use_jedi = False\n%load_ext tensorboard\n"
        "%timeit -n1 -r1 step()\nnormal = get_ipython().__class__.__name__\n"
        "from IPython import get_ipython\nshell = get_ipython()\n"
        "shell.run_line_magic('load_ext', 'autoreload')\n"
    )
    cells = ["%%writefile notes.txt\nplain notes", "%%timeit -n 3 import numpy as np\nnp.ones(3)"]
    assert process_reaches([also]) == []
    assert process_reaches(cells) == []


def test_a_builtin_named_in_pieces_is_found():
    found = borrowed(
        "05_multihead",
        "scaled_dot_product_attention",
        "import torch.nn.functional as F\n\ndef scaled_dot_product_attention(q, k, v, "
        "allowed=None):\n    return getattr(F, 'scaled_dot_' + 'product_attention')(q, k, v)",
    )
    assert found and "built from pieces" in found[0].message(), found


def test_names_chosen_at_run_time_from_the_students_own_objects_are_not_findings():
    honest = (
        "import importlib\nimport numpy as np\nmath = importlib.import_module('math')\n\n"
        "def sinusoidal_positions(L, d):\n    out = np.zeros((L, d))\n"
        "    for i, kind in enumerate(['sin', 'cos'] * (d // 2)):\n"
        "        for l in range(L):\n"
        "            out[l, i] = getattr(math, kind)(l / 10000 ** (2 * (i // 2) / d))\n"
        "    getattr(out, 'shape' if d else 'size')\n    return getattr(np, 'asarray')(out)"
    )
    assert borrowed("02_positions", "sinusoidal_positions", honest) == []
    honest = (  # a review's example: a PyTorch function chosen by a name from a list
        "import torch\n\ndef sinusoidal_positions(L, d):\n"
        "    pos, i = torch.arange(L)[:, None], torch.arange(0, d, 2)\n"
        "    out = torch.zeros(L, d, dtype=torch.float64)\n"
        "    for k, name in enumerate(('sin', 'cos')):\n"
        "        out[:, k::2] = getattr(torch, name)(pos / 10000 ** (i / d))\n"
        "    return getattr(torch, 'float' + '64') and out.numpy()"
    )
    assert borrowed("02_positions", "sinusoidal_positions", honest) == []


BUILTIN_FORMS = {
    ("05_multihead", "scaled_dot_product_attention"): [
        "import torch.nn.functional as F\n\ndef scaled_dot_product_attention(q, k, v, "
        "allowed=None):\n    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)",
        "from torch.nn.functional import scaled_dot_product_attention as fused\n\n"
        "def scaled_dot_product_attention(q, k, v, allowed=None):\n    return fused(q, k, v)",
        "import torch\n\ndef scaled_dot_product_attention(q, k, v, allowed=None):\n"
        "    f = getattr(torch.nn.functional, 'scaled_dot_product_attention')\n"
        "    return f(q, k, v)",
    ],
    ("05_multihead", "MultiHeadAttention"): [
        "from torch import nn\n\nclass MultiHeadAttention(nn.Module):\n"
        "    def __init__(self, d_model, n_heads):\n        super().__init__()\n"
        "        self.inner = nn.MultiheadAttention(d_model, n_heads, batch_first=True)\n",
        "from attnbook.lm.model import CausalSelfAttention\n\n"
        "class MultiHeadAttention(CausalSelfAttention):\n    pass\n",
    ],
    ("06_transformer_block", "layer_norm"): [
        "import torch\n\ndef layer_norm(h, gamma, beta, eps=1e-5):\n"
        "    return torch.layer_norm(h, h.shape[-1:], gamma, beta, eps)",
        "import torch.nn.functional as F\n\ndef layer_norm(h, gamma, beta, eps=1e-5):\n"
        "    return F.layer_norm(h, h.shape[-1:], gamma, beta, eps)",
        "from torch import nn\n\ndef layer_norm(h, gamma, beta, eps=1e-5):\n"
        "    return nn.LayerNorm(h.shape[-1], eps=eps)(h)",
    ],
    ("10_modern_decoder", "rms_norm"): [
        "import torch.nn.functional as F\n\ndef rms_norm(h, gamma, eps=1e-6):\n"
        "    return F.rms_norm(h, h.shape[-1:], gamma, eps)",
    ],
    ("10_modern_decoder", "grouped_query_attention"): [
        "import torch.nn.functional as F\n\ndef grouped_query_attention(q, k, v, allowed=None):\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)",
    ],
    ("10_modern_decoder", "Qwen3Decoder"): [
        "from attnbook.lm.qwen3 import Qwen3LM, Qwen3LMConfig\n\ndef Qwen3Decoder(**kwargs):\n"
        "    return Qwen3LM(Qwen3LMConfig(**kwargs))",
    ],
    ("10_modern_decoder", "decode_step"): [
        "from attnbook.checks.nb10 import _package_step\n\n"
        "def decode_step(model, token_ids, cache):\n"
        "    return _package_step(model, token_ids, cache)",
    ],
}
BUILTIN_CASES = [
    (n, s, i) for (n, s), sources in BUILTIN_FORMS.items() for i in range(len(sources))
]


@pytest.mark.parametrize(("notebook", "subject", "index"), BUILTIN_CASES)
def test_forbidden_builtins_are_flagged_in_every_spelling(notebook, subject, index):
    found = borrowed(notebook, subject, BUILTIN_FORMS[(notebook, subject)][index])
    assert found, (subject, index)


def test_a_borrowed_helper_costs_the_answers_that_reach_it():
    """MultiHeadAttention calling the student's own scaled_dot_product_attention, which
    wraps the fused kernel, borrows it too; the message says through which helper."""
    sdpa = (
        "import torch.nn.functional as F\n\ndef scaled_dot_product_attention(q, k, v, "
        "allowed=None):\n    return F.scaled_dot_product_attention(q, k, v)"
    )
    found = borrowed("05_multihead", "MultiHeadAttention", sdpa)
    assert found and found[0].via == "scaled_dot_product_attention", found


# -- honest answers with allowed helpers -------------------------------------------------------
HONEST = {
    "torch.softmax in softmax_rows": (
        "01_attention_scores",
        "softmax_rows",
        "import torch\n\ndef softmax_rows(S):\n"
        "    return torch.softmax(torch.as_tensor(S, dtype=torch.float64), dim=-1).numpy()",
    ),
    "own function named like the package's": (
        "02_positions",
        "sinusoidal_positions",
        "import numpy as np\n\ndef sinusoid_table(L, d):\n"
        "    angles = np.arange(L)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)\n"
        "    out = np.zeros((L, d))\n    out[:, 0::2], out[:, 1::2] = np.sin(angles), "
        "np.cos(angles)\n    return out\n\n"
        "def sinusoidal_positions(L, d):\n    return sinusoid_table(L, d)",
    ),
    "local variables and parameters named like twins": (
        "08_generation",
        "generate",
        "def generate(model, prompt_ids, max_new_tokens, eos_id, pad_id=0, temperature=1.0,"
        " top_k=None, top_p=None, generator=None, decode_step=None):\n"
        "    draw_tokens = sample_next\n    generate_tokens = prompt_ids\n"
        "    for _ in range(max_new_tokens):\n"
        "        new = draw_tokens(model(generate_tokens)[:, -1], temperature, top_k, top_p, "
        "generator)\n        generate_tokens = torch.cat((generate_tokens, new[:, None]), 1)\n"
        "    return generate_tokens",
    ),
    "nn.Linear, nn.LayerNorm and the handed-out attention in a block": (
        "06_transformer_block",
        "PreNormBlock",
        "from torch import nn\nfrom attnbook.demos.nb06 import causal_self_attention\n\n"
        "class PreNormBlock(nn.Module):\n    def __init__(self, d_model, n_heads):\n"
        "        super().__init__()\n        self.ln1, self.ln2 = nn.LayerNorm(d_model), "
        "nn.LayerNorm(d_model)\n        self.attn = causal_self_attention(d_model, n_heads)\n"
        "        self.mlp = MLP(d_model)\n\n    def forward(self, x):\n"
        "        x = x + self.attn(self.ln1(x))\n        return x + self.mlp(self.ln2(x))",
    ),
    "the handed-out position tables in a decoder": (
        "06_transformer_block",
        "Decoder",
        "from attnbook.lm.model import rope_tables, sinusoid_table\n\n"
        "class Decoder(nn.Module):\n    def __init__(self, vocab_size, d_model, n_heads, "
        "n_layers, max_len, positions='rope'):\n        super().__init__()\n"
        "        self.register_buffer('sinusoids', sinusoid_table(max_len, d_model))\n"
        "        cos, sin = rope_tables(max_len, d_model // n_heads)\n"
        "        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads) "
        "for _ in range(n_layers))",
    ),
    "model.train() and a string 'train' in a training step": (
        "07_training",
        "train_step",
        "def train_step(model, optimizer, batch, max_grad_norm):\n"
        "    inputs, targets, loss_mask = batch\n    model.train()\n    mode = 'train'\n"
        "    optimizer.zero_grad()\n    loss = lm_loss(model(inputs), targets, loss_mask)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)\n"
        "    optimizer.step()\n    return loss.item()",
    ),
    "an earlier notebook's own function, copied in": (
        "10_modern_decoder",
        "rms_norm",
        "def layer_norm(h, gamma, beta, eps=1e-5):\n    mean = h.mean(-1, keepdim=True)\n"
        "    var = ((h - mean) ** 2).mean(-1, keepdim=True)\n"
        "    return gamma * (h - mean) / torch.sqrt(var + eps) + beta\n\n"
        "def rms_norm(h, gamma, eps=1e-6):\n"
        "    return layer_norm(h, gamma, 0.0 * gamma, eps) if False else "
        "gamma * h / torch.sqrt((h ** 2).mean(-1, keepdim=True) + eps)",
    ),
    "notebook 10's decode_step, homonym of notebook 08's package step": (
        "10_modern_decoder",
        "decode_step",
        "def decode_step(model, token_ids, cache):\n"
        "    T = 0 if cache is None else cache[0][0].shape[2]\n    L = token_ids.shape[1]\n"
        "    rope = (model.rope_cos[T:T + L], model.rope_sin[T:T + L])\n"
        "    h, new_cache = model.embed(token_ids), []\n"
        "    for i, block in enumerate(model.blocks):\n"
        "        h, kv = block(h, rope, None if cache is None else cache[i])\n"
        "        new_cache.append(kv)\n    return model.head(model.norm(h)), new_cache",
    ),
    "nn.RMSNorm and rotate_pairs in a Qwen3 block": (
        "10_modern_decoder",
        "Qwen3Block",
        "from torch import nn\nfrom attnbook.lm.model import rotate_pairs\n\n"
        "class Qwen3Block(nn.Module):\n    def __init__(self, d_model, n_heads, n_kv_heads, d_k,"
        " d_hidden, eps=1e-6):\n        super().__init__()\n"
        "        self.norm1 = nn.RMSNorm(d_model, eps=eps)\n"
        "        self.q_norm = nn.RMSNorm(d_k, eps=eps)\n"
        "        self.mlp = SwiGLU(d_model, d_hidden)\n\n"
        "    def forward(self, h, rope, past=None):\n"
        "        q = rotate_pairs(self.q_norm(h), *rope)\n"
        "        return grouped_query_attention(q, q, q), (q, q)",
    ),
    "nn.Transformer's causal-mask helper in a decoder block": (  # a round-9 review's
        "11_encoder_decoder",
        "EncoderDecoder",
        "from torch import nn\n\nclass DecoderBlock(nn.Module):\n"
        "    def forward(self, h, memory, src_allowed):\n"
        "        L = h.shape[1]\n"
        "        causal = nn.Transformer.generate_square_subsequent_mask(L, device=h.device) == 0\n"
        "        return h + self.self_attn(self.ln1(h), self.ln1(h), causal)",
    ),
}


@pytest.mark.parametrize("case", sorted(HONEST))
def test_honest_answers_with_allowed_helpers_are_not_flagged(case):
    notebook, subject, source = HONEST[case]
    assert borrowed(notebook, subject, source) == []


# -- through the grader, with the README's command ------------------------------------------
def _sandbox_ok() -> tuple[bool, str]:
    from grader.sandbox import sandbox_available

    return sandbox_available()


SANDBOX_OK, SANDBOX_WHY = _sandbox_ok()


def submission(notebook: str, *extra: tuple[str, str]) -> nbformat.NotebookNode:
    """The solution as a student submits it, with `extra` (answer grade_id, source) appended
    to those answer cells."""
    release = nbformat.read(ROOT / "notebooks" / notebook / f"{notebook}.ipynb", 4)
    nb = fill_in(release, solution_notebook(notebook))
    for grade_id, source in extra:
        after = grade_id.startswith("after ")  # a cell of its own after the answer cell
        cell = next(
            c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id[6 * after :]
        )
        if after:
            nb.cells.insert(nb.cells.index(cell) + 1, nbformat.v4.new_code_cell(source))
        else:
            cell.source = cell.source.rstrip("\n") + "\n\n\n" + source
    return nb


def total_points(notebook: str) -> float:
    return sum(
        float(nbgrader_meta(c).get("points") or 0)
        for c in solution_notebook(notebook).cells
        if nbgrader_meta(c).get("grade")
    )


def test_points(notebook: str, grade_id: str) -> float:
    return next(
        float(nbgrader_meta(c)["points"])
        for c in solution_notebook(notebook).cells
        if nbgrader_meta(c).get("grade_id") == grade_id
    )


test_points.__test__ = False  # a helper, not a test

# borrows the twin (its result unused) and returns the student's own answer: passes the check
BORROW_AND_PASS = (
    "import attnbook.lm.model\n\n_own = sinusoidal_positions\n\n\n"
    "def sinusoidal_positions(L, d):\n    out = _own(L, d)\n"
    "    attnbook.lm.model.sinusoid_table(L, d)\n    return out\n"
)
BORROW_SINUSOID = (
    "import attnbook.lm.model\n\n\ndef sinusoidal_positions(L, d):\n"
    "    return attnbook.lm.model.sinusoid_table(L, d).double().numpy()\n"
)
OWN_HELPER_SINUSOID = (
    "def sinusoid_table(L, d):\n    return _mine(L, d)\n\n\n"
    "_mine = sinusoidal_positions\n\n\n"
    "def sinusoidal_positions(L, d):\n    return sinusoid_table(L, d)\n"
)
FUSED_SDPA = (
    "import torch.nn.functional as F_\n\n\n"
    "def scaled_dot_product_attention(q, k, v, allowed=None):\n"
    "    return F_.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n"
)
TORCH_MHA = (
    "class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, n_heads):\n"
    "        super().__init__()\n        self.n_heads = n_heads\n"
    "        self.inner = nn.MultiheadAttention(d_model, n_heads, batch_first=True)\n\n"
    "    def forward(self, x, allowed=None):\n"
    "        return self.inner(x, x, x, need_weights=False)[0]\n"
)
# student -> (notebook, answers appended, tests that must score 0, what it borrows)
STUDENTS = {
    "p_honest": ("02_positions", [], [], ""),
    "p_twin": (
        "02_positions",
        [("sinusoidal_positions", BORROW_SINUSOID)],
        ["test_sinusoidal_positions"],
        "attnbook.lm.model.sinusoid_table",
    ),
    "p_borrow_pass": (
        "02_positions",
        [("sinusoidal_positions", BORROW_AND_PASS)],
        ["test_sinusoidal_positions"],
        "attnbook.lm.model.sinusoid_table",
    ),
    "p_own_name": ("02_positions", [("sinusoidal_positions", OWN_HELPER_SINUSOID)], [], ""),
    "p_kernel_patch": (
        "02_positions",
        [("sinusoidal_positions", WRONG_SINUSOID), ("after sinusoidal_positions", KERNEL_PATCH)],
        GRADED_02,
        "imports grader.kernel",
    ),
    # round 9: the patch in a cell that the kernel, its recursion limit raised, reads and the
    # grader cannot; a cell that neither reads is no reach (it ran nothing)
    "p_patch_unread": (
        "02_positions",
        [
            ("sinusoidal_positions", WRONG_SINUSOID),
            (
                "after sinusoidal_positions",
                "_pad = " + "+".join(["1"] * 4000) + "\n" + KERNEL_PATCH,
            ),
            ("after sinusoidal_positions", "import sys\nsys.setrecursionlimit(100000)"),
        ],
        GRADED_02,
        "code the grader cannot read",
    ),
    "p_syntax_error": ("02_positions", [("after embed", "def unfinished(:\n    pass\n")], [], ""),
    "m_honest": ("05_multihead", [], [], ""),
    "m_fused": (
        "05_multihead",
        [("scaled_dot_product_attention", FUSED_SDPA)],
        ["test_scaled_dot_product_attention", "test_MultiHeadAttention"],
        "torch.nn.functional.scaled_dot_product_attention",
    ),
    "m_torch_mha": (
        "05_multihead",
        [("MultiHeadAttention", TORCH_MHA)],
        ["test_MultiHeadAttention"],
        "torch.nn.MultiheadAttention",
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from grader.sample import load_builder
    from grader.sandbox import UID_BASE_ENV, new_uid_base

    build = load_builder()
    files = {
        student: {f"{nb}.ipynb": nbformat.writes(submission(nb, *extra)).encode()}
        for student, (nb, extra, _, _) in STUDENTS.items()
    }
    inbox = build.write_folder(tmp_path_factory.mktemp("download"), files)
    work = tmp_path_factory.mktemp("class")
    done = grade_with_readme_command(
        inbox,
        work,
        "-a",
        "02_positions",
        "-a",
        "05_multihead",
        "--timeout",
        "120",
        env={UID_BASE_ENV: str(new_uid_base())},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with open(work / "grades.csv", newline="") as handle:  # one row per student and notebook
        rows = {(r["student_id"], r["assignment"]): r for r in csv.DictReader(handle)}
    return {"grades": {s: rows[(s, STUDENTS[s][0])] for s in STUDENTS}, "work": work}


def _graded_cell(graded, student: str, grade_id: str):
    notebook = STUDENTS[student][0]
    path = graded["work"] / "autograded" / student / notebook / f"{notebook}.ipynb"
    return next(
        c for c in nbformat.read(path, 4).cells if nbgrader_meta(c).get("grade_id") == grade_id
    )


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
@pytest.mark.parametrize("student", sorted(STUDENTS))
def test_grades_through_the_readme_command(graded, student):
    notebook, _, zeroed, call = STUDENTS[student]
    row = graded["grades"][student]
    lost = sum(test_points(notebook, g) for g in zeroed)
    assert float(row["score"]) == total_points(notebook) - lost, row
    for grade_id in zeroed:
        assert float(row[f"{notebook[:2]}:{grade_id}"]) == 0, row
    if not zeroed:
        assert "borrowed" not in row["status"], row
        return
    assert "borrowed answers" in row["status"] and call in row["status"], row["status"]
    for grade_id in zeroed:
        cell = _graded_cell(graded, student, grade_id)
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        assert errors and errors[-1]["ename"] == "BorrowedAnswer", cell.outputs  # the
        assert call in errors[-1]["evalue"] and "0 of" in errors[-1]["evalue"], errors  # last
    feedback = (graded["work"] / row["feedback"]).read_text()
    assert "BorrowedAnswer" in feedback and call in feedback


def _run_with_credit(notebook: str, nb, credit: float):
    from grader.execute import Template, run_notebook

    template = Template.from_path(ROOT / "solutions" / notebook / f"{notebook}.ipynb")
    nb = copy.deepcopy(nb)
    report = run_notebook(nb, template, sandbox="bwrap", borrowed_credit=credit)
    return nb, report


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_the_course_setting_gives_borrowed_answers_its_fraction_of_the_points():
    """borrowed_credit 0.5: the borrowed test runs, passes, and nbgrader reads half its
    points from the cell; the note names the call. The default is 0."""
    from grader.preprocessors import SandboxedExecute
    from nbgrader.utils import determine_grade
    from traitlets.config.loader import PyFileConfigLoader

    assert SandboxedExecute().borrowed_credit == 0.0
    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT / "autograder")).load_config()
    assert config.SandboxedExecute.borrowed_credit == 0.0
    notebook, grade_id = "02_positions", "test_sinusoidal_positions"
    nb, report = _run_with_credit(
        notebook, submission(notebook, ("sinusoidal_positions", BORROW_AND_PASS)), 0.5
    )
    cell = next(c for c in nb.cells if nbgrader_meta(c).get("grade_id") == grade_id)
    text = json.dumps(cell.outputs)
    assert "attnbook.lm.model.sinusoid_table" in text and "1.5 of 3 points" in text, text
    assert determine_grade(cell) == (1.5, 3.0), cell.outputs
    assert report.tests[grade_id] == "passed" and grade_id in report.borrowed
    assert re.search(
        r"borrowed answers: test_sinusoidal_positions: sinusoidal_positions "
        r"uses attnbook\.lm\.model\.sinusoid_table",
        report.status,
    ), report.status


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}")
def test_a_kernel_patch_in_the_students_own_module_is_charged(tmp_path):
    """A review's: the patch of `p_kernel_patch` in a module submitted beside the notebook,
    imported from a cell, gave a wrong answer full marks (the grader read only the cells).
    Now every test with a subject is charged, naming the file; an honest module beside the
    same notebook costs nothing."""
    from grader.execute import Template, run_notebook

    notebook = "02_positions"
    template = Template.from_path(ROOT / "solutions" / notebook / f"{notebook}.ipynb")
    for name, text, zeroed in (("patch", KERNEL_PATCH, GRADED_02),
                               ("honest", "SCALE = 1.0\n", [])):  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "helper.py").write_text(text)
        nb = submission(notebook, ("sinusoidal_positions", WRONG_SINUSOID * bool(zeroed)),
                        ("after sinusoidal_positions", "import helper"))  # fmt: skip
        report = run_notebook(nb, template, files_from=tmp_path / name, sandbox="bwrap")
        charged = sorted(g for g in report.borrowed if "your own file 'helper.py'" in
                         report.borrowed[g])  # fmt: skip
        assert charged == sorted(zeroed), (name, report.borrowed)
        assert all(report.tests[g] == "passed" for g in GRADED_02) == (not zeroed), report.tests


# -- issue #27 item 3: any binding of a graded name counts; the rule follows what runs -------
SDPA = "scaled_dot_product_attention"
HELPER = (
    "import torch.nn.functional as F\n\n\ndef helper(q, k, v, allowed=None):\n"
    "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n"
)
DYNAMIC_FORMS = {
    "globals": f'globals()["{SDPA}"] = helper\n',
    "vars": f'vars()["{SDPA}"] = helper\n',
    "setattr": f'import sys\nsetattr(sys.modules[__name__], "{SDPA}", helper)\n',
    "dict": f'import sys\nsys.modules["__main__"].__dict__["{SDPA}"] = helper\n',
    "update_kw": f"globals().update({SDPA}=helper)\n",
    "update_dict": f'globals().update({{"{SDPA}": helper}})\n',
    "setitem": f'globals().__setitem__("{SDPA}", helper)\n',
    "exec_assign": f'exec("{SDPA} = helper")\n',
    "exec_def": f'exec("def {SDPA}(q, k, v, allowed=None):\\n    return helper(q, k, v)")\n',
    "in_a_function": f'def install():\n    globals()["{SDPA}"] = helper\n\n\ninstall()\n',
    "builtin_itself": f'globals()["{SDPA}"] = F.scaled_dot_product_attention\n',
}


@pytest.mark.parametrize("form", sorted(DYNAMIC_FORMS))
def test_every_dynamic_binding_of_a_graded_name_is_read(form):
    """The finding: the answer cell left as it is, a helper bound with `globals()[...]`."""
    found = borrowed("05_multihead", SDPA, HELPER, DYNAMIC_FORMS[form])
    assert found and found[0].target == "torch.nn.functional.scaled_dot_product_attention", found
    assert borrowed("05_multihead", SDPA, HELPER) == []  # the helper alone is not the answer


def test_a_dynamic_binding_of_another_name_is_not_the_answer():
    assert borrowed("05_multihead", SDPA, HELPER, 'globals()["mine"] = helper\n') == []


@pytest.fixture(scope="module")
def kernel_module():
    """The student's kernel, in this process (no sandbox: these are the tests' own cells).
    IPython's shell makes its namespace the process's `__main__` (a module without
    `__spec__`, which multiprocessing's spawn then cannot start from), so what it replaced is
    put back afterwards, for the tests that run later in this process."""
    import os
    import sys

    os.environ.setdefault("MPLBACKEND", "Agg")
    from grader import kernel

    saved = sys.modules["__main__"], sys.displayhook, sys.excepthook
    try:
        yield kernel
    finally:
        from IPython.core.interactiveshell import InteractiveShell

        InteractiveShell.clear_instance()
        sys.modules["__main__"], sys.displayhook, sys.excepthook = saved


def _run_in_kernel(kernel_module, notebook: str, *cells: str) -> tuple[list[str], object]:
    """The solution's cells and `cells`, run in a fresh kernel: (sources, kernel)."""
    sources = [*solution_cells(notebook)[0], *cells]
    kernel = kernel_module.Kernel()
    kernel.shell.reset(new_session=False)
    for source in sources:
        reply = kernel.run(source)
        assert reply["ok"], (source[:200], reply["outputs"][-1:])
    return sources, kernel


FOLLOWED = {
    # a computed name: no binding of the graded name is written anywhere
    "computed_builtin": (
        "import torch.nn.functional as F\n"
        f'globals()["scaled_dot_" + "product_attention"] = F.{SDPA}\n',
        "torch._C._nn.scaled_dot_product_attention",
    ),
    "computed_helper": (
        HELPER + f'name = "{SDPA[:6]}" + "{SDPA[6:]}"\nglobals()[name] = helper\n',
        "through your helper",
    ),
    "computed_package": (
        "import importlib\nops = importlib.import_module('attnbook.' + 'ops')\n"
        'globals()["scaled_dot_" + "product_attention"] = getattr(ops, "torch_" + "attend")\n',
        "attnbook.ops.torch_attend",
    ),
    "exec_computed": (
        HELPER
        + f'exec("def {SDPA}(q, k, v, allowed=None):\\n    return helper(q, k, v)"[::-1][::-1])\n',
        "in none of your cells",
    ),
}


@pytest.mark.parametrize("case", sorted(FOLLOWED))
def test_the_rule_follows_what_the_kernel_runs(kernel_module, case):
    """A binding the source does not spell out is still found: the kernel says where the
    graded name's code is (a package, PyTorch, another def of the cells, no cell at all)."""
    from grader.borrowed import find_borrowed

    cell, named = FOLLOWED[case]
    sources, kernel = _run_in_kernel(kernel_module, "05_multihead", cell)
    origin = kernel.origin(SDPA)
    assert find_borrowed("05_multihead", SDPA, sources) == []  # nothing spelled out
    found = find_borrowed("05_multihead", SDPA, sources, origin)
    assert any(named in b.message() for b in found), (found, origin)


def test_names_used_follows_the_same_object(kernel_module):
    """The forbidden-call check of the visible checks reads the function the kernel runs."""
    from grader.execute import names_used

    cell = HELPER + 'globals()["scaled_dot_" + "product_attention"] = helper\n'
    sources, kernel = _run_in_kernel(kernel_module, "05_multihead", cell)
    assert SDPA not in (names_used(sources, SDPA) or set())
    assert SDPA in names_used(sources, SDPA, kernel.origin(SDPA))


HONEST_FOLLOWED = {
    "solution": "",
    "decorated": (
        "import functools\n\n\ndef logged(f):\n    @functools.wraps(f)\n"
        "    def inner(*a, **k):\n        return f(*a, **k)\n    return inner\n\n\n"
        f"_own = {SDPA}\n\n\n@logged\n@torch.no_grad()\n"
        f"def {SDPA}(q, k, v, allowed=None):\n    return _own(q, k, v, allowed)\n"
    ),
    "dataclass": (
        "import dataclasses\nfrom torch import nn\n\n_Own = MultiHeadAttention\n\n\n"
        "@dataclasses.dataclass(eq=False)\nclass MultiHeadAttention(_Own):\n"
        "    def __post_init__(self):\n        pass\n"
    ),
    "partial": f"import functools\n\n_own2 = {SDPA}\n{SDPA} = functools.partial(_own2)\n",
    "cell_magic": (
        f"%%time\n_own3 = {SDPA}\n\n\ndef {SDPA}(q, k, v, allowed=None):\n"
        "    return _own3(q, k, v, allowed)\n"
    ),
}


@pytest.mark.parametrize("case", sorted(HONEST_FOLLOWED))
def test_honest_answers_are_not_flagged_when_followed(kernel_module, case):
    """The solution of every graded name, and honest ways of writing one (a decorator,
    torch.no_grad, a partial of one's own function, a `%%time` cell), are not flagged."""
    from grader.borrowed import RULES, find_borrowed

    extra = [HONEST_FOLLOWED[case]] if HONEST_FOLLOWED[case] else []
    sources, kernel = _run_in_kernel(kernel_module, "05_multihead", *extra)
    for subject in RULES["05_multihead"]:
        origin = kernel.origin(subject)
        assert find_borrowed("05_multihead", subject, sources, origin) == [], (subject, origin)


def test_a_kernel_that_will_not_say_what_runs_is_a_finding():
    from grader.borrowed import find_borrowed

    sources = solution_cells("05_multihead")[0]
    found = find_borrowed("05_multihead", SDPA, sources, {"ok": False, "exc": {}})
    assert found and "could not describe" in found[0].message()


@pytest.mark.parametrize(
    "notebook", ["01_attention_scores", "03_rope", "04_masks", "06_transformer_block"]
)
def test_no_solution_is_flagged_when_followed(kernel_module, notebook):
    from grader.borrowed import RULES, find_borrowed

    sources, kernel = _run_in_kernel(kernel_module, notebook)
    for subject in RULES[notebook]:
        origin = kernel.origin(subject)
        assert find_borrowed(notebook, subject, sources, origin) == [], (subject, origin)


@pytest.mark.parametrize(
    "reply",
    [
        {"kind": "code", "chain": {"not": "a list"}},
        {"kind": "code", "chain": [{"kind": "class", "mro": {"x": 1}, "code": "nope"}]},
        {"kind": "code", "chain": [{"kind": "function", "code": [{"cell": True, "line": 1}]}]},
        {"kind": "code", "chain": [{"kind": "function", "code": [{"cell": 10**9, "line": 1}]}]},
        {"kind": "code", "chain": ["x" * 10, None, 3]},
    ],
)
def test_a_malformed_origin_reply_is_read_as_data(reply):
    """The kernel is the student's: a reply of the wrong shape never stops the grader."""
    from grader.borrowed import find_borrowed

    sources = solution_cells("05_multihead")[0]
    found = find_borrowed("05_multihead", SDPA, sources, reply)
    assert all(b.target == "attnbook._unreadable" for b in found), found


def test_the_kernel_counts_lines_in_the_cell_as_written(kernel_module):
    """IPython drops a cell's leading blank lines; the line the kernel gives is the cell's."""
    cell = (
        f"\n\n\n_own5 = {SDPA}\n\n\ndef {SDPA}(q, k, v, allowed=None):\n    return _own5(q, k, v)\n"
    )
    sources, kernel = _run_in_kernel(kernel_module, "05_multihead", cell)
    (code,) = kernel.origin(SDPA)["chain"][0]["code"]
    assert (code["cell"], code["line"]) == (len(sources) - 1, 7), code
