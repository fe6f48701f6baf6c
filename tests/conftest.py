"""Shared fixtures: paths, the notebook list, and a notebook runner that uses a real kernel."""

from __future__ import annotations

import ast
import contextlib
import csv
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from grader.catalogue import (
    apply_variant,
    nbgrader_meta,
    solution_notebook,
    strip_solution_markers,
)
from grader.course import assignments

ROOT = Path(__file__).resolve().parents[1]

SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = ROOT / "notebooks"


def notebook_names() -> list[str]:
    return assignments(ROOT)


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def execute(
    path: Path, allow_errors: bool, env: dict | None = None, timeout: int = 600
) -> nbformat.NotebookNode:
    """Run a notebook top to bottom in a fresh kernel, in its own folder."""
    from nbclient import NotebookClient

    nb = read(path)
    old_env = dict(os.environ)
    os.environ.update(env or {})
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=allow_errors,
            resources={"metadata": {"path": str(path.parent)}},
        ).execute()
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    return nb


def solution_functions(notebook: str, variant=None) -> dict:
    """The setup and answer cells of a solution notebook run as a student's would be: the
    namespace holding its graded functions, e.g. solution_functions("04_masks")["causal_mask"].
    With `variant` (a catalogue entry), its answer cell is the one that entry writes."""
    nb = solution_notebook(notebook)
    if variant is not None:
        nb = apply_variant(nb, variant)
    namespace: dict = {"__name__": "__main__"}
    for cell in nb.cells:
        if cell.cell_type == "code" and (
            "setup" in cell.get("metadata", {}).get("tags", [])
            or nbgrader_meta(cell).get("solution")
        ):
            exec(strip_solution_markers(cell.source), namespace)
    return namespace


def displayed_widget(notebook: str, builder: str):
    """The widget a solution notebook displays from `builder` (e.g. "rope_angle_widget"), as
    built by the notebook's own cell: the setup and answer cells run as in solution_functions,
    then the one demonstration cell that calls `builder` and ends on an expression, whose
    value is returned, so a test can set the controls of what the learner actually sees."""
    namespace = solution_functions(notebook)
    found = []
    for cell in solution_notebook(notebook).cells:
        if (
            cell.cell_type != "code"
            or nbgrader_meta(cell)
            or "setup" in cell.get("metadata", {}).get("tags", [])
            or f"{builder}(" not in cell.source
        ):
            continue
        tree = ast.parse(cell.source)
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            found.append(tree)
    assert len(found) == 1, f"{notebook}: expected one cell displaying {builder}, got {len(found)}"
    *body, last = found[0].body
    exec(compile(ast.Module(body=body, type_ignores=[]), notebook, "exec"), namespace)
    return eval(compile(ast.Expression(body=last.value), notebook, "eval"), namespace)


def grade_with_readme_command(
    source: Path, work: Path, *extra: str, env: dict | None = None
) -> subprocess.CompletedProcess:
    """`python -m grader grade SOURCE --workers 2` from autograder/, as the README says."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(source),
            "--workers",
            "2",
            "--work",
            str(work),
            *extra,
        ],
        cwd=ROOT / "autograder",
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=1800,
    )


def grader_command(*args, timeout: float = 900) -> subprocess.CompletedProcess:
    """`python -m grader ARGS` from autograder/, as a TA types it: the repository's grader,
    its text captured (a course's $ATTNBOOK_AUTOGRADER is not passed on)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "autograder"))
    env.pop("ATTNBOOK_AUTOGRADER", None)
    return subprocess.run(
        [sys.executable, "-m", "grader", *map(str, args)],
        cwd=ROOT / "autograder",
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read_grades(work: Path) -> dict[str, dict]:
    with open(work / "grades.csv", newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


@contextlib.contextmanager
def fresh_sandbox_probe(monkeypatch):
    """A block in which `grader.sandbox.sandbox_available()` probes afresh, under the changes
    `monkeypatch` made; on leaving, those changes are undone and the cached answer dropped
    again, so that no later test reads what this block's probe found."""
    from grader import sandbox

    sandbox.sandbox_available.cache_clear()
    try:
        yield
    finally:
        monkeypatch.undo()
        sandbox.sandbox_available.cache_clear()


def grade_cells(nb):
    return [
        c
        for c in nb.cells
        if c.cell_type == "code"
        and nbgrader_meta(c).get("grade")
        and not nbgrader_meta(c).get("solution")
    ]


def grade_in_kernel(nb, notebook: str, tests: list) -> dict[str, tuple[str, str]]:
    """Grade `nb` as the grader does: its setup and answer cells in a sandboxed kernel, then
    each test of `tests` (a grade id, or a pair of a name and a test source) in a fresh
    trusted process, in order, the failed checks passed from one to the next. Name -> (verdict,
    the text of its outputs)."""
    import time

    from grader.borrowed import not_python
    from grader.execute import NOT_PYTHON, StudentKernel, Template, run_test
    from grader.sandbox import Limits, sandbox_available

    template = Template.from_notebook(nb, notebook)
    kernel = StudentKernel(None, Limits(cell_timeout_s=120), sandbox_available()[0])
    ran: list[str] = []
    failed: dict = {}
    graded = {}
    try:
        for cell in nb.cells:
            meta = cell.get("metadata", {})
            if cell.cell_type == "code" and (
                "setup" in meta.get("tags", []) or nbgrader_meta(cell).get("solution")
            ):
                ran.append(strip_solution_markers(cell.source))
                reply = kernel.request({"op": "run", "source": ran[-1]}, time.monotonic() + 120)
                raised = {o.get("ename") for o in reply.get("outputs", [])}
                if raised & set(NOT_PYTHON) and not_python(ran[-1]):
                    ran[-1] = ""  # as the grader gives it: the kernel could not compile it
        for test in tests:
            name, source = test if isinstance(test, tuple) else (test, template.tests[test])
            outputs, verdict = run_test(
                source, name, template, kernel, time.monotonic() + 120, ran, failed=failed
            )
            text = "".join(str(o.get("text", "")) + str(o.get("evalue", "")) for o in outputs)
            graded[name] = verdict, text
    finally:
        kernel.close()
    return graded


# -- one in-process run per catalogued mistake, shared by the files that read it ----------------
@dataclass(frozen=True)
class MistakeRun:
    """What one catalogued mistake's test cell did in this process (`run_graded_cells` with
    `only_test`): the exception's type (None when it passed), its text, and the lines a
    notebook shows for it (`attnbook.notebook.failure_lines`, None for a plain traceback).
    Kept as text, not as the exception, so that no frame (and no model) stays alive."""

    error_type: type | None
    text: str
    shown: tuple[str, ...] | None


_MISTAKE_RUNS: dict[tuple[str, str], MistakeRun] = {}


def run_mistake(nb: nbformat.NotebookNode, test: str) -> MistakeRun:
    """`run_graded_cells(nb, only_test=test)`, once per session for the same notebook bytes
    and test: test_catalogue.py runs every catalogued mistake, and test_feedback.py and
    test_ta_catalogue.py read the same runs (the same bytes give the same run; a changed
    catalogue or solution gives other bytes, so a new run)."""
    from grader.catalogue import run_graded_cells

    from attnbook.notebook import failure_lines

    key = (hashlib.sha256(nbformat.writes(nb).encode()).hexdigest(), test)
    if key not in _MISTAKE_RUNS:
        error = run_graded_cells(nb, only_test=test)[test].error
        shown = failure_lines(error) if error is not None else None
        _MISTAKE_RUNS[key] = MistakeRun(
            type(error) if error is not None else None,
            str(error) if error is not None else "",
            tuple(shown) if shown is not None else None,
        )
    return _MISTAKE_RUNS[key]


def errors_of(cell) -> list[dict]:
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def stderr_of(cell) -> str:
    return "".join(
        o.get("text", "")
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream" and o.get("name") == "stderr"
    )


@pytest.fixture(autouse=True)
def _no_leaked_attnbook_environment():
    """Each test starts with the $ATTNBOOK_* variables the one before it started with. Code
    run in this process sets some for the rest of the process: a control group exports its
    run's token ($ATTNBOOK_CGROUP_RUN, grader.cgroups.run_token), and two grading runs sharing
    a token sweep each other's groups (the PostgreSQL shards lost a student's tests); a
    Course sets $ATTNBOOK_AUTOGRADER to its own folder, so a later test would read another
    course's secret and references (a notebook-text test failed after the probe tests)."""
    before = {k: v for k, v in os.environ.items() if k.startswith("ATTNBOOK_")}
    yield
    for key in [k for k in os.environ if k.startswith("ATTNBOOK_")]:
        if key not in before:
            del os.environ[key]
    os.environ.update(before)


# -- two pytest workers (`make test` runs pytest-xdist's --dist loadscope) -------------------
# A worker runs whole files, so a module's fixtures (a graded class, a server) are built once.
# Files that share a session's expensive setup go to one worker together, so it too is built
# once: the kit's build and install, the released tree, the catalogue's mistake runs.
SHARED_SETUPS = {
    "the kit": ("test_kit.py", "browser/test_kit_lab.py"),
    "the released tree": ("test_release.py", "test_workspace.py"),
    "the catalogue's runs": ("test_catalogue.py", "test_feedback.py", "test_ta_catalogue.py"),
}
# The longest groups start first, so that the two workers finish at about the same time
# (the suite's record, benchmarks/results/tests.md, says where the time goes).
LONGEST_FIRST = (
    "the catalogue's runs",
    "the kit",
    "test_ta_hostile.py",
    "test_ta_parity.py",
    "test_notebooks.py",
    "test_ta_day.py",
    "test_ta_intake_class.py",
    "test_kernel_sets.py",
    "test_ta_cgroups.py",
    "test_ta_exchange.py",
    "test_ta_borrowed.py",
    "test_ta_plain_nbgrader.py",
    "test_ta_regrade.py",
    "test_notebook_claims.py",
)


def worker_group(path: str) -> str:
    """The group a test file (its path from the repository, as in a node id) runs in on one
    worker: its shared setup's, or the file's own."""
    name = path.removeprefix("tests/")
    return next((group for group, files in SHARED_SETUPS.items() if name in files), name)


def pytest_collection_modifyitems(config, items) -> None:
    """Under two workers, the longest groups first (every worker collects the same order,
    which the scheduler below hands out group by group)."""
    if getattr(config, "workerinput", None) is None:  # one process: the files' own order
        return
    rank = {group: i for i, group in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(worker_group(item.nodeid.split("::")[0]), len(rank)))


if importlib.util.find_spec("xdist") is not None:  # the hook exists only with pytest-xdist

    def pytest_xdist_make_scheduler(config, log):
        """xdist's scope scheduling, with a test's scope its group (`worker_group`), not its
        file: a group's tests all go to the worker that took the group."""
        from xdist.scheduler import LoadScopeScheduling

        class SharedSetupScheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                return worker_group(nodeid.split("::", 1)[0])

        return SharedSetupScheduling(config, log)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="module")
def postgres_url():
    """A throwaway local PostgreSQL server with one empty database (tests/postgres_server.py),
    for the module's tests; skipped, with the reason, where one cannot run."""
    from postgres_server import skip_reason, throwaway_server

    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with throwaway_server() as url:
        yield url


@pytest.fixture(scope="module")
def one_thread():
    """Tiny tensors: a second thread only adds contention on a shared machine. Modules of
    small-model tests use it with `pytestmark = pytest.mark.usefixtures("one_thread")`."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# -- the student kit (tests/kit.py): built, unzipped and installed once per session --------
@pytest.fixture(scope="session")
def kit_zip(tmp_path_factory) -> Path:
    from kit import build

    return build(tmp_path_factory.mktemp("kit-dist"))


@pytest.fixture(scope="session")
def kit_dir(kit_zip, tmp_path_factory) -> Path:
    """The kit unzipped: its one top folder."""
    from kit import unzip

    return unzip(kit_zip, tmp_path_factory.mktemp("kit-unzipped"))


@pytest.fixture(scope="session")
def kit_home(tmp_path_factory) -> Path:
    """An empty home folder for the student's processes (no Jupyter or pip settings)."""
    return tmp_path_factory.mktemp("kit-home")


@pytest.fixture(scope="session")
def kit_installed(kit_zip, kit_home, tmp_path_factory) -> Path:
    """The kit after `python3 install.py`, run offline in its folder; returns the folder.

    Unzipped apart from `kit_dir`: the install adds a `.venv` full of other projects' files,
    which the scans of what the kit holds must never see, whichever test runs first."""
    from kit import install, unzip

    folder = unzip(kit_zip, tmp_path_factory.mktemp("kit-installed"))
    done = install(folder, kit_home)
    assert done.returncode == 0, (
        f"install.py failed offline:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    return folder


# -- the release (scripts/release.py): generated once per session ----------------------------
def script_module(path: str, name: str | None = None):
    """A file of the repository that is not in a package (``"scripts/release.py"``) loaded
    as a fresh module, named `name` (default: the file's stem)."""
    spec = importlib.util.spec_from_file_location(name or Path(path).stem, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def release_module():
    """scripts/release.py as a fresh module (tests patch its paths and its `generate`)."""
    return script_module("scripts/release.py")


def release_inputs_digest() -> str:
    """What `release.generate` reads: every file of solutions/ (nbgrader copies an
    assignment's whole folder) and the nbgrader configuration it runs with, by their bytes."""
    digest = hashlib.sha256()
    inputs = sorted(SOLUTIONS.rglob("*")) + [ROOT / "autograder" / "nbgrader_config.py"]
    for path in inputs:
        if not path.is_file() or {".ipynb_checkpoints", "__pycache__"} & set(path.parts):
            continue
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@pytest.fixture(scope="session")
def released_tree(tmp_path_factory) -> tuple[Path, str]:
    """What `release.generate` makes from solutions/ (nbgrader generate_assignment for every
    assignment, in canonical form), made once per session (about a minute on two cores), and
    the digest of the inputs it was made from (release_inputs_digest)."""
    digest = release_inputs_digest()
    out = tmp_path_factory.mktemp("released") / "release"
    module = release_module()
    module.generate(out)
    # for a `make release` the suite starts in a clone ($ATTNBOOK_RELEASE_REUSE): the script
    # copies this tree when the clone's inputs have this digest, and generates otherwise
    out.with_name(out.name + ".inputs").write_text(module.inputs_digest())
    return out, digest


@pytest.fixture
def release(released_tree):
    """scripts/release.py whose `generate` copies the session's released tree instead of
    running nbgrader again, as long as solutions/ still holds the bytes the tree was made
    from (otherwise it generates, as the script does)."""
    module = release_module()
    tree, digest = released_tree
    generate = module.generate

    def shared_generate(out: Path) -> None:
        if release_inputs_digest() != digest:
            generate(out)
            return
        shutil.copytree(tree, out)

    module.generate = shared_generate
    return module
