"""The kit's parts without building it: the scanners that tests/test_kit.py and the build
rely on find what they look for (in a file, a wheel, a notebook, a checkpoint); the
installer refuses another Python clearly; the version names the commit; the wheel's staged
source leaves out the grader's loader. The built kit itself: tests/test_kit.py (slow)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, SOLUTIONS, notebook_names, script_module
from kit import build_kit_module, found_in, solution_lines

KIT = build_kit_module()


def installer():
    return script_module("scripts/kit/install.py", "kit_install")


def small_kit(tree: Path, text: str, where: str) -> Path:
    """A kit folder holding `text` in one place: a file, the attnbook wheel, a notebook cell,
    a checkpoint-like zip, or a dependency wheel (which is not the project's)."""
    (tree / "wheels").mkdir(parents=True)
    (tree / "README.md").write_text("a kit\n")
    if where == "file":
        (tree / "install.py").write_text(f"# {text}\n")
    elif where in ("wheel", "dependency"):
        name = "attnbook-0.1.0-py3-none-any.whl" if where == "wheel" else "numpy-2-py3.whl"
        with zipfile.ZipFile(tree / "wheels" / name, "w") as wheel:
            wheel.writestr("attnbook/x.py", f"x = 1\n{text}\n")
    elif where == "notebook":
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(text)])
        (tree / "notebooks").mkdir()
        nbformat.write(nb, tree / "notebooks" / "a.ipynb")
    elif where == "checkpoint":
        (tree / "assets").mkdir()
        with zipfile.ZipFile(tree / "assets" / "m.pt", "w") as archive:
            archive.writestr("m/data.pkl", f"\x80\x02{text}\x00")
    return tree


WHERE = ["file", "wheel", "notebook", "checkpoint"]
MARKED = [
    "### BEGIN SOLUTION",
    "### BEGIN HIDDEN TESTS",
    "from attnbook.grading import load_reference",
    "ANSWERS = {'answer_x': 'B'}",
    "import grader.mistakes",
    "autograder/reference/nb01.py",
]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("text", MARKED)
def test_marker_scan_finds_each_marker_wherever_it_is(tmp_path, text, where):
    findings = KIT.marker_findings(small_kit(tmp_path / "kit", text, where))
    assert len(findings) == 1, findings


def test_marker_scan_passes_clean_files_and_leaves_dependency_wheels_alone(tmp_path):
    assert KIT.marker_findings(small_kit(tmp_path / "a", "x = ANSWERS['q'] == 1", "file")) == []
    assert KIT.marker_findings(small_kit(tmp_path / "b", "### BEGIN SOLUTION", "dependency")) == []


@pytest.mark.parametrize("where", WHERE)
def test_solution_line_scan_finds_an_answer_line_wherever_it_is(tmp_path, where):
    lines = solution_lines(SOLUTIONS, notebook_names())
    line = next(line for line in lines if "np." in line and len(line) > 30)
    found = found_in(small_kit(tmp_path / "kit", f"    {line}", where), lines)
    assert list(found) == [line], found


def test_solution_lines_are_the_answers_not_what_students_see():
    lines = solution_lines(SOLUTIONS, notebook_names())
    assert any(re.fullmatch(r'answer_\w+ = "[A-Z]"', line) for line in lines)
    assert "### BEGIN SOLUTION" not in lines and "raise NotImplementedError()" not in lines
    assert all(len(line) >= 20 or line.startswith("answer_") for line in lines)


def test_installer_refuses_another_python_with_what_to_do():
    install = installer()
    kit = {"python": "3.11", "system": "Linux", "machine": "x86_64", "platform": "linux-x86_64"}
    with pytest.raises(SystemExit) as stopped:
        install.check_interpreter(kit, {"python": "3.12", "system": "Linux", "machine": "x86_64"})
    message = str(stopped.value)
    assert "Python 3.11 on Linux x86_64" in message and "python: here 3.12" in message
    assert "ask your instructor" in message
    with pytest.raises(SystemExit, match="system: here Windows"):
        install.check_interpreter(kit, {"python": "3.11", "system": "Windows", "machine": "AMD64"})
    install.check_interpreter(kit, {"python": "3.11", "system": "Linux", "machine": "X86_64"})
    assert set(install.this_interpreter()) == {"python", "system", "machine"}


def test_kit_is_named_by_version_python_and_platform():
    version = KIT.kit_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+\+g[0-9a-f]{7}(\.dirty)?", version), version
    target = {"python": "3.11", "platform": "macosx-11.0-arm64"}
    assert KIT.kit_name(version, target) == f"attnbook-kit-{version}-cp311-macosx_11_0_arm64"


def test_staged_package_leaves_out_the_grader_loader(tmp_path):
    source = KIT.stage_package(tmp_path, "0.1.0+gabcdef0", "# kit readme\n")
    staged = {p.relative_to(source).as_posix() for p in (source / "attnbook").rglob("*.py")}
    package = {p.relative_to(ROOT).as_posix() for p in (ROOT / "attnbook").rglob("*.py")}
    assert staged == package - {"attnbook/grading.py"}
    assert 'version = "0.1.0+gabcdef0"' in (source / "pyproject.toml").read_text()
    assert (source / "README.md").read_text() == "# kit readme\n"


def test_kit_lab_settings_disable_the_instructor_extensions():
    jupyter = ROOT / "scripts" / "kit" / "jupyter"
    page = json.loads((jupyter / "labconfig" / "page_config.json").read_text())
    assert set(page["disabledExtensions"]) == {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:course-list",
    }
    server = json.loads((jupyter / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"] == {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.course_list": False,
    }


VALIDATE_CONFIG = """
import os
from jupyter_core.paths import jupyter_config_path
from nbgrader.apps import NbGrader
from nbgrader.preprocessors import Execute

# As nbgrader's Validate handler loads it: the server's folder, then Jupyter's config path.
paths = jupyter_config_path()
paths.insert(0, os.getcwd())
app = NbGrader()
app.config_file_paths.append(paths)
app.load_config_file()
print(Execute(config=app.config).timeout)  # the preprocessor Validate runs each cell with
"""


@pytest.mark.parametrize(
    "lab", ["scripts/learner/jupyter", "scripts/kit/jupyter", "autograder/exchange"]
)
def test_validate_in_a_learners_lab_gives_a_cell_the_graders_time(lab, tmp_path):
    # Without a setting nbgrader's Validate gives a cell 30 s, and a slow laptop's first
    # import of torch in the setup cell fails Validate where the grader would not. The labs:
    # `make lab`, the kit's, and a student's on a JupyterHub (its file copied as the README
    # of autograder/exchange says).
    graders = re.search(r"^c\.Execute\.timeout = (\d+)$",
                        (ROOT / "autograder" / "nbgrader_config.py").read_text(), re.M)  # fmt: skip
    folder = ROOT / lab
    if lab == "autograder/exchange":
        folder = tmp_path / "etc-jupyter"
        folder.mkdir()
        (folder / "nbgrader_config.py").write_bytes(
            (ROOT / lab / "student_nbgrader_config.py").read_bytes()
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    env["JUPYTER_CONFIG_PATH"] = str(folder)
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "no-user-config")
    done = subprocess.run([sys.executable, "-c", VALIDATE_CONFIG], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == graders[1] == "300", (done.stdout, done.stderr[-1000:])


def test_kit_torch_pin_is_the_project_pin():
    assert KIT.TORCH_SPEC == "torch==2.13.0"
    assert f"TORCH_SPEC ?= {KIT.TORCH_SPEC}" in (ROOT / "Makefile").read_text()


@pytest.mark.parametrize(
    ("system", "mine", "other"),
    [
        ("Linux", ".venv/bin/jupyter lab notebooks", ["Windows", "PowerShell", ".venv\\Scripts"]),
        ("Darwin", "python3 install.py", ["Windows", "PowerShell", ".venv\\Scripts"]),
        ("Windows", ".venv\\Scripts\\jupyter lab notebooks", [".venv/bin", "python3 install"]),
    ],
)
def test_the_kit_readme_speaks_of_its_own_platform_only(system, mine, other):
    readme = KIT.render_readme("0.1.0", {"python": "3.12", "system": system, "machine": "x"})
    assert mine in readme and "`wheels/`" in readme and "{" not in readme
    assert not [text for text in other if text in readme], system
