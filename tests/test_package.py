"""The package ships no answers; the two install paths agree; the layout is as documented."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT, SOLUTIONS, notebook_names
from grader.catalogue import nbgrader_meta

import attnbook


def graded_names() -> set[str]:
    """Every function and class a student writes: top-level defs of the answer cells."""
    names = set()
    for name in notebook_names():
        nb = nbformat.read(SOLUTIONS / name / f"{name}.ipynb", 4)
        for cell in nb.cells:
            if cell.cell_type == "code" and nbgrader_meta(cell).get("solution"):
                tree = ast.parse(cell.source)
                names |= {
                    node.name
                    for node in tree.body
                    if isinstance(node, ast.FunctionDef | ast.ClassDef)
                }
    return names


def package_modules():
    yield attnbook
    for info in pkgutil.walk_packages(attnbook.__path__, prefix="attnbook."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def test_graded_names_are_collected():
    names = graded_names()
    assert {"project_qkv", "score_matrix", "softmax_rows", "attention"} <= names


#: Package functions that share a graded name but answer another question, each allowed only
#: as this very object: notebook 08's cached step runs `TransformerLM` with a preallocated
#: `KVCache` and returns logits; notebook 10's graded `decode_step(model, token_ids, cache)`
#: returns (logits, cache) for a Qwen3-style decoder (the notebook-08 one fails on it).
HOMONYMS = {"decode_step": "attnbook.lm.generation.decode_step"}


def _homonym(name: str, value) -> bool:
    allowed = HOMONYMS.get(name)
    return allowed is not None and f"{value.__module__}.{value.__qualname__}" == allowed


def test_no_graded_function_can_be_imported_from_the_package():
    names = graded_names()
    leaks = {
        f"{module.__name__}.{name}"
        for module in package_modules()
        for name in names
        if hasattr(module, name) and not _homonym(name, getattr(module, name))
    }
    assert not leaks, f"the package exposes answers to graded exercises: {sorted(leaks)}"


def test_reference_answers_are_outside_the_package():
    assert (ROOT / "autograder" / "reference").is_dir()
    assert not list((ROOT / "attnbook").rglob("reference*.py"))


def _pyproject_packages() -> dict[str, str]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    specs = project["dependencies"] + extras["dev"] + extras["hf"]  # what `make setup` installs
    return {re.split(r"[<>=!~ \[]", spec, maxsplit=1)[0].lower(): spec for spec in specs}


def _environment_packages() -> dict[str, str]:
    text = (ROOT / "environment.yml").read_text().split("dependencies:", 1)[1]
    found = {}
    for line in text.splitlines():
        match = re.match(r"\s+- ([A-Za-z0-9_.-]+)(.*)$", line)
        if match and match.group(1) not in {"pip", "python", "-e"}:
            found[match.group(1).lower()] = match.group(1) + match.group(2)
    return found


def test_environment_yml_and_pip_path_agree_on_packages():
    pip, conda = _pyproject_packages(), _environment_packages()
    assert set(pip) == set(conda), (
        f"only in pyproject: {set(pip) - set(conda)}; "
        f"only in environment.yml: {set(conda) - set(pip)}"
    )
    for name, spec in pip.items():
        if name == "torch":
            continue
        bound = spec[len(name) :].strip()
        assert conda[name].replace(" ", "").endswith(bound.replace(" ", "")), (
            f"{name}: pyproject says {spec!r}, environment.yml says {conda[name]!r}"
        )


def test_torch_pin_is_the_same_everywhere():
    makefile = (ROOT / "Makefile").read_text()
    assert "TORCH_SPEC ?= torch==2.13.0" in makefile
    assert "torch==2.13.0" in (ROOT / "environment.yml").read_text()


def test_nbgrader_configuration_matches_the_layout():
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT / "autograder")).load_config()
    course = config.CourseDirectory
    assert course.source_directory == "solutions"
    assert course.release_directory == "notebooks"
    assert course.root == str(ROOT)
    assert config.Execute.timeout >= 120
    names = [p.__name__ for p in config.Autograde.autograde_preprocessors]
    assert names.index("StderrToStdout") == names.index("SandboxedExecute") + 1


@pytest.mark.parametrize(
    "path",
    [
        "autograder/gradebook.db",
        "autograder/submitted/x/y.ipynb",
        "autograder/autograded/x/y.ipynb",
        "autograder/feedback/x/y.html",
    ],
)
def test_grading_folders_are_outside_version_control(path):
    result = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
    assert result.returncode == 0, f"{path} is not ignored by git"


def test_stderr_warning_does_not_zero_a_passing_test_cell():
    from grader.preprocessors import StderrToStdout
    from nbgrader.utils import determine_grade

    cell = nbformat.v4.new_code_cell("check(f)")
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "points": 2,
        "grade_id": "test_f",
        "locked": True,
    }
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr", text="UserWarning: x\n")]
    assert determine_grade(cell)[0] == 0  # what plain nbgrader would do
    cell, _ = StderrToStdout().preprocess_cell(cell, {}, 0)
    assert determine_grade(cell)[0] == 2
    cell.outputs.append(
        nbformat.v4.new_output("error", ename="CheckFailure", evalue="bad", traceback=[])
    )
    assert determine_grade(cell)[0] == 0


def test_setup_routes_warnings_to_stdout(capsys):
    import warnings

    from attnbook.notebook import setup

    old = warnings.showwarning
    try:
        setup(seed=0)
        warnings.warn("a harmless warning", UserWarning, stacklevel=1)
        captured = capsys.readouterr()
        assert "a harmless warning" in captured.out
        assert "a harmless warning" not in captured.err
    finally:
        warnings.showwarning = old


LINTED = ["attnbook", "autograder", "scripts", "tests", "benchmarks", "solutions", "notebooks"]


def test_ruff_is_clean_on_package_scripts_tests_and_notebooks():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format=concise", *LINTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_kept_on_every_python_file():
    """`ruff format` with pyproject's settings; notebooks, the catalogue tables and the
    generated references are excluded there ([tool.ruff.format])."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *LINTED],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, "run `ruff format` on:\n" + result.stdout + result.stderr
    assert "already formatted" in result.stdout + result.stderr
