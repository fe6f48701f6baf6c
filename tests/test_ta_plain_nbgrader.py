"""Plain nbgrader commands run from autograder/ get the safe configuration by default.

The fast tests read `autograder/nbgrader_config.py` as nbgrader does. The slow one runs the
"Plain nbgrader" recipe of autograder/README.md, its lines as written, with the
environment's `nbgrader` in a copy of the working tree (what a fresh clone holds): ada hands
in the solution plus a cell that tries to read the solutions, the reference answers and the
gradebook, and Markdown full of XSS payloads; bob hands in the blank release. Autograde must
have run sandboxed, feedback must show no hidden test and no payload, the scores must be
right.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from grader.sandbox import sandbox_available
from test_ta_html import (
    NOTEBOOK,
    NOTEBOOK_METADATA,
    RELEASE,
    TEXT_MARKERS,
    attachment_payloads,
    course_config,
    export,
    hostile_notebook,
    problems,
    shown_as_text,
)

VENV_BIN = Path(sys.executable).parent


def test_nbgrader_config_applies_the_safe_configuration():
    from grader.feedback import HideHiddenTests, NeutraliseStudentHTML
    from grader.preprocessors import SandboxedExecute
    from nbgrader.preprocessors import Execute

    c = course_config()
    autograde = c.Autograde.autograde_preprocessors
    assert SandboxedExecute in autograde and Execute not in autograde
    assert autograde[-1] is NeutraliseStudentHTML
    assert HideHiddenTests in c.GenerateFeedback.preprocessors
    assert NeutraliseStudentHTML in c.GenerateFeedback.preprocessors
    assert NeutraliseStudentHTML in c.HTMLExporter.preprocessors  # formgrader's exporter
    assert c.HTMLExporter.sanitize_html is True
    assert c.SandboxedExecute.source_root == str(ROOT / "solutions")
    assert c.SandboxedExecute.report_directory == str(ROOT / "autograder" / "reports")
    assert c.NeutraliseStudentHTML.release_root == str(ROOT / "notebooks")
    assert c.OverwriteCells.add_missing_cells is True


def test_applying_twice_is_applying_once():
    from grader.config import apply

    c = course_config()
    before = {
        k: list(v)
        for k, v in (
            ("autograde", c.Autograde.autograde_preprocessors),
            ("feedback", c.GenerateFeedback.preprocessors),
            ("html", c.HTMLExporter.preprocessors),
        )
    }
    apply(c)
    assert list(c.Autograde.autograde_preprocessors) == before["autograde"]
    assert list(c.GenerateFeedback.preprocessors) == before["feedback"]
    assert list(c.HTMLExporter.preprocessors) == before["html"]


def recipe() -> str:
    """The shell lines of the README's plain-nbgrader recipe."""
    readme = (ROOT / "autograder" / "README.md").read_text()
    section = readme.split("### Plain nbgrader", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def copy_of_the_working_tree(dest: Path) -> Path:
    """The tracked files as they are now: what a fresh clone of this state holds."""
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(source.read_bytes())
    return dest


def probe(clone: Path) -> str:
    """A cell that prints READ for every private file it can open, BLOCKED otherwise."""
    paths = [
        "../../../../solutions/01_attention_scores/01_attention_scores.ipynb",
        str(clone / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb"),
        str(clone / "autograder" / "reference" / f"nb{NOTEBOOK}.py"),
        str(clone / "autograder" / "gradebook.db"),
    ]
    return (
        f"for path in {paths!r}:\n"
        "    try:\n"
        "        open(path, 'rb').read(10)\n"
        "        print('READ', path)\n"
        "    except OSError as error:\n"
        "        print('BLOCKED', type(error).__name__)\n"
    )


def submissions(clone: Path) -> dict[str, nbformat.NotebookNode]:
    from grader.catalogue import fill_in, solution_notebook

    release = nbformat.read(RELEASE, 4)
    ada = hostile_notebook(
        fill_in(release, solution_notebook(NOTEBOOK)), everything=False, invalid=False
    )
    ada.cells.append(nbformat.v4.new_code_cell(probe(clone)))
    ada.cells.extend(attachment_payloads())
    ada.metadata.update(NOTEBOOK_METADATA)
    return {"ada": ada, "bob": release}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    works, why = sandbox_available()
    if not works:  # nbgrader_config.py's SandboxedExecute refuses to run without it
        pytest.skip(f"no sandbox: {why}")
    clone = copy_of_the_working_tree(tmp_path_factory.mktemp("clone"))
    home = tmp_path_factory.mktemp("home")
    (home / "Downloads").mkdir()
    for student, nb in submissions(clone).items():
        nbformat.write(nb, home / "Downloads" / f"{student}.ipynb")
    lines = recipe()
    # bob goes in the same way as the README's ada
    lines = lines.replace(
        "mkdir -p submitted/ada",
        "mkdir -p submitted/bob/01_attention_scores"
        "\ncp ~/Downloads/bob.ipynb submitted/bob/01_attention_scores/"
        "01_attention_scores.ipynb\nmkdir -p submitted/ada",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTNBOOK")}
    # the environment active, as the README asks (its attnbook is its editable install; the
    # sandbox binds that one, so the clone's copy is not put on PYTHONPATH)
    env.update(
        HOME=str(home),
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(VENV_BIN.parent),
    )
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", lines],
        cwd=clone / "autograder",
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, f"{lines}\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}"
    return clone / "autograder", result


def _feedback(folder: Path, student: str) -> str:
    return (folder / "feedback" / student / NOTEBOOK / f"{NOTEBOOK}.html").read_text()


def _autograded(folder: Path, student: str):
    return nbformat.read(folder / "autograded" / student / NOTEBOOK / f"{NOTEBOOK}.ipynb", 4)


@pytest.mark.slow
def test_the_recipe_leaves_the_release_alone(graded):
    folder, _ = graded
    assert (folder / "release" / NOTEBOOK / f"{NOTEBOOK}.ipynb").exists()
    committed = (ROOT / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb").read_text()
    assert (folder.parent / "notebooks" / NOTEBOOK / f"{NOTEBOOK}.ipynb").read_text() == committed


@pytest.mark.slow
def test_autograde_ran_in_the_sandbox(graded):
    folder, _ = graded
    report = json.loads((folder / "reports" / NOTEBOOK / "ada" / f"{NOTEBOOK}.json").read_text())
    assert report["sandboxed"] is True and report["status"] == "complete", report
    text = "".join(
        o.get("text", "")
        for c in _autograded(folder, "ada").cells
        if c.cell_type == "code"
        for o in c.outputs
    )
    assert text.count("BLOCKED") == 4 and "READ" not in text, text[-2000:]


@pytest.mark.slow
def test_feedback_shows_no_hidden_test(graded):
    folder, _ = graded
    tests = "".join(
        c.source
        for c in _autograded(folder, "ada").cells
        if c.metadata.get("nbgrader", {}).get("grade")
    )
    assert "### BEGIN HIDDEN TESTS" in tests and "load_reference" in tests  # there to hide
    for student in ("ada", "bob"):
        page = _feedback(folder, student)
        assert "BEGIN HIDDEN TESTS" not in page and "load_reference" not in page


@pytest.mark.slow
def test_feedback_shows_no_student_html(graded):
    folder, _ = graded
    page = _feedback(folder, "ada")
    assert problems(page, _feedback(folder, "bob")) == []
    assert shown_as_text(page, TEXT_MARKERS) == []
    # the stored notebook that formgrader reads is safe even for an unconfigured export
    release = nbformat.read(RELEASE, 4)
    assert (
        problems(
            export(_autograded(folder, "ada"), "formgrade", None),
            export(release, "formgrade", None),
        )
        == []
    )


@pytest.mark.slow
def test_export_has_the_right_scores(graded):
    folder, _ = graded
    with open(folder / "grades.csv") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(rows["ada"]["max_score"]) == 14.0
    assert float(rows["ada"]["score"]) == 14.0
    assert float(rows["bob"]["score"]) == 0.0
