"""Gradescope's autograder: the zip `python -m grader gradescope build` makes, run as
Gradescope runs it.

Each slow test unzips the autograder into a folder laid out like Gradescope's /autograder
(`source/`, `submission/`, `results/`, `submission_metadata.json`), puts one upload in
`submission/` and runs `run_autograder` as root, with `ATTNBOOK_GRADESCOPE_ROOT` pointing
there. Two isolations are run: bubblewrap, as on this machine, and the fallback for a
container that forbids namespaces (`ATTNBOOK_GRADESCOPE_SANDBOX=setpriv`): the kernel as a
throwaway user id, the grader's files locked down. The folder is under /var/tmp, not /tmp:
the sandbox's own /tmp hides whatever the host has under /tmp, the course's package included.
The interpreter of the test environment lives under /root, which no other user may enter; as
in Gradescope's image (a system path) the fallback's kernel must be able to run it, so the
fallback runs in a view of the machine where /root holds only the interpreter
(`tests/accounts.py`).

Scores must be exact: the solution 14, a catalogued mistake 11, and a hostile upload 11: it
defines `attention` through the reference answers (there are none to read, so that test
fails), then tries to read the solutions, the reference and Gradescope's metadata, to write
results.json, the grader and the reference, and leaves a process behind that keeps trying.
results.json must hold Gradescope's fields and never hidden test code or the answer key.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from accounts import accounts_skip_reason, view_prefix
from conftest import ROOT

AUTOGRADER = ROOT / "autograder"
NOTEBOOK = "01_attention_scores"
REFERENCE = f"autograder/reference/nb{NOTEBOOK}.py"
SOLUTION = f"solutions/{NOTEBOOK}/{NOTEBOOK}.ipynb"
METADATA = '{"users": [{"name": "SECRET-METADATA-NAME"}]}'


def build_zip(out: Path, *extra: str, assignment: str = NOTEBOOK) -> subprocess.CompletedProcess:
    """`python -m grader gradescope build -a ASSIGNMENT --out OUT EXTRA...` from autograder/."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "gradescope",
            "build",
            "-a",
            assignment,
            "--out",
            str(out),
            *extra,
        ],
        cwd=AUTOGRADER,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    result = build_zip(out)
    assert result.returncode == 0, result.stderr
    (path,) = out.glob("*.zip")
    assert result.stdout.strip() == str(path)
    return path


# -- fast: the zip ---------------------------------------------------------------------------
def test_zip_holds_the_autograder_and_no_other_answer_key(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as archive:
        names = set(archive.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
        settings = json.loads(archive.read("gradescope/settings.json"))
        pins = archive.read("gradescope/requirements.txt").decode()
    assert modes["setup.sh"] == modes["run_autograder"] == 0o755  # at the root, executable
    assert {
        REFERENCE,
        SOLUTION,
        "autograder/nbgrader_config.py",
        "autograder/grader/kernel.py",
        "autograder/grader/gradescope.py",
        "attnbook/checks/nb01.py",
    } <= names
    assert not [
        n
        for n in names
        if n.startswith(
            ("autograder/mistakes", "autograder/sample", "notebooks/", "tests/", ".git")
        )
    ]
    assert [n for n in names if n.startswith("autograder/reference/")] == [REFERENCE]
    # the course's secret, which the hidden cases draw from (grader/secret.py), travels with
    # the reference answers; lock_down makes it root-only before any student code runs
    assert modes["autograder/course_secret"] == 0o600
    assert {n.split("/")[1] for n in names if n.startswith("solutions/")} == {NOTEBOOK}
    assert not [n for n in names if "__pycache__" in n]
    assert settings == {
        "assignment": NOTEBOOK,
        "visibility": "visible",
        "concept_visibility": "after_due_date",
    }
    assert "torch==" in pins and "nbgrader==0.9" in pins


def test_build_is_reproducible(autograder_zip, tmp_path):
    assert build_zip(tmp_path).returncode == 0
    assert (tmp_path / autograder_zip.name).read_bytes() == autograder_zip.read_bytes()


def test_build_refuses_an_unknown_assignment(tmp_path):
    result = build_zip(tmp_path, assignment="99_nothing")
    assert result.returncode == 2
    assert "argument -a/--assignment: expected one of 01_attention_scores" in result.stderr
    assert "got '99_nothing'" in result.stderr


def test_without_any_isolation_nothing_runs(tmp_path, monkeypatch):
    import grader.gradescope as gradescope
    import grader.sandbox as sandbox

    monkeypatch.setattr(sandbox, "sandbox_available", lambda: (False, "no namespaces here"))
    monkeypatch.setattr(gradescope.os, "geteuid", lambda: 1000)
    (tmp_path / "source" / "gradescope").mkdir(parents=True)
    (tmp_path / "source" / "gradescope" / "settings.json").write_text(
        json.dumps({"assignment": NOTEBOOK})
    )
    graded = []
    monkeypatch.setattr(gradescope, "grade_submission", lambda *a: graded.append(a))
    assert gradescope.run(tmp_path) == 1
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["score"] == 0.0 and "could not grade" in results["output"]
    assert graded == []


# -- slow: run_autograder as Gradescope runs it ----------------------------------------------
def hostile_notebook(root: Path, linger: Path) -> bytes:
    from grader.sample import load_builder

    build = load_builder()
    cheat = (
        "from attnbook.grading import load_reference\n"
        "def attention(Q, K, V):\n"
        f"    return load_reference({NOTEBOOK!r}).attention(Q, K, V)"
    )
    nb = build.append_to(build.solved(ROOT), "attention", cheat)
    return build._nb_bytes(
        build.add_cell_after(nb, None, ATTACK.format(root=str(root), linger=str(linger)))
    )


ATTACK = (
    """
import json, os, time
root = {root!r}
for path in (root + "/source/{reference}", root + "/source/{solution}",
             root + "/submission_metadata.json", root + "/submission/{notebook}.ipynb"):
    try:
        with open(path, "rb") as handle:
            print("READ", path, len(handle.read()))
    except OSError as err:
        print("blocked", path, type(err).__name__)
forged = json.dumps({{"score": 999, "output": "forged", "tests": []}})
targets = ((root + "/results/results.json", forged), (root + "/results/pwned.txt", "pwned"),
           (root + "/source/autograder/grader/kernel.py", "# pwned"),
           (root + "/source/{reference}", "ANSWERS = {{}}"))
for path, text in targets:
    try:
        with open(path, "a") as handle:
            handle.write(text)
        print("WROTE", path)
    except OSError as err:
        print("blocked", path, type(err).__name__)
ready, told = os.pipe()
if os.fork() == 0:  # a process left behind, out of the kernel's group, that keeps trying
    os.setsid()
    os.write(told, b"1")
    for _ in range(240):
        for path, text in targets:
            try:
                with open(path, "a") as handle:
                    handle.write(text)
            except OSError:
                pass
        try:
            with open({linger!r}, "a") as handle:
                handle.write("x")
        except OSError:
            pass
        time.sleep(0.25)
    os._exit(0)
os.close(told)
os.read(ready, 1)  # the cell ends once the child has left the kernel's process group
""".replace("{reference}", REFERENCE)
    .replace("{solution}", SOLUTION)
    .replace("{notebook}", NOTEBOOK)
)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Container:
    """One submission's /autograder, made from the zip."""

    def __init__(self, base: Path, autograder_zip: Path, files: dict[str, bytes]):
        self.root = base / "autograder"
        for name in ("source", "submission", "results"):
            (self.root / name).mkdir(parents=True)
        with zipfile.ZipFile(autograder_zip) as archive:
            archive.extractall(self.root / "source")
        for info in zipfile.ZipFile(autograder_zip).infolist():  # extractall drops modes
            os.chmod(self.root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
        shutil.copyfile(self.root / "source" / "run_autograder", self.root / "run_autograder")
        os.chmod(self.root / "run_autograder", 0o755)
        (self.root / "submission_metadata.json").write_text(METADATA)
        for name, data in files.items():
            (self.root / "submission" / name).write_bytes(data)

    def run(self, isolation: str) -> tuple[dict, str]:
        env = {
            **os.environ,
            "ATTNBOOK_GRADESCOPE_ROOT": str(self.root),
            "ATTNBOOK_GRADESCOPE_PYTHON": sys.executable,
        }
        command = ["bash", str(self.root / "run_autograder")]
        if isolation == "setpriv":
            env["ATTNBOOK_GRADESCOPE_SANDBOX"] = "setpriv"
            env["ATTNBOOK_GRADESCOPE_PYTHON"] = str(image_python())
            command = [*view_prefix(), *command]
        result = subprocess.run(
            command, cwd=self.root, env=env, capture_output=True, text=True, timeout=1200
        )
        log = result.stdout + result.stderr
        assert result.returncode == 0, log[-4000:]
        assert f"isolation: {isolation}" in log
        return json.loads((self.root / "results" / "results.json").read_text()), log


def image_python() -> Path:
    """For the fallback (bubblewrap hides the host's files from the kernel anyway), an
    interpreter like the one `setup.sh` installs in Gradescope's image: this test
    environment's libraries, without the course's own packages installed into it. (The
    test environment has the grader installed in editable mode, which points at this
    checkout, world-readable, reference answers included; Gradescope's image has only
    `/autograder/source`, which the fallback locks.) The libraries' folder is added as a
    plain path, so the editable installs' finders in it never run."""
    global _IMAGE_PYTHON
    if _IMAGE_PYTHON is None:
        folder = Path(tempfile.mkdtemp(prefix="attnbook-image-python-", dir="/var/tmp"))
        folder.chmod(0o755)
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(folder)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        (site,) = (folder / "lib").glob("python3*/site-packages")
        libraries = [
            p
            for p in map(Path, sys.path)
            if p.name == "site-packages" and p.is_dir() and Path(sys.prefix) in p.parents
        ]
        (site / "image_libraries.pth").write_text("".join(f"{p}\n" for p in libraries))
        (folder / "share").symlink_to(Path(sys.prefix) / "share")  # nbconvert's templates
        for tool in Path(sys.executable).parent.iterdir():  # alembic, jupyter, ... (trusted)
            if not (folder / "bin" / tool.name).exists():
                (folder / "bin" / tool.name).symlink_to(tool)
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644 | (path.stat().st_mode & 0o111))
        _IMAGE_PYTHON = folder / "bin" / "python"
        probe = subprocess.run(
            [str(_IMAGE_PYTHON), "-s", "-c", "import grader"],
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
        )
        assert probe.returncode != 0, "the image's interpreter must not have the grader"
    return _IMAGE_PYTHON


_IMAGE_PYTHON: Path | None = None


@pytest.fixture
def base():
    reason = accounts_skip_reason()
    if reason:
        pytest.skip(reason)
    from grader.sandbox import sandbox_available

    if not sandbox_available()[0]:
        pytest.skip(f"bubblewrap does not run here: {sandbox_available()[1]}")
    folder = Path(tempfile.mkdtemp(prefix="attnbook-gradescope-", dir="/var/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def sample(name: str) -> bytes:
    from grader.sample import load_builder

    return load_builder().sample_class(ROOT)[name][0]


def assert_gradescope_format(results: dict, total: float) -> None:
    assert {"score", "output", "execution_time", "tests"} <= set(results)
    assert isinstance(results["execution_time"], int)
    for test in results["tests"]:
        assert {"name", "score", "max_score", "output", "visibility"} <= set(test)
        concept = test["name"].startswith("test_answer_")  # hidden until the due date
        assert test["visibility"] == ("after_due_date" if concept else "visible"), test
    assert sum(t["max_score"] for t in results["tests"]) == total == 14.0
    assert results["score"] == sum(t["score"] for t in results["tests"])


def assert_no_hidden_code_or_key(results: dict, allowed: str = "") -> None:
    """No hidden test, reference code or answer key in `results`, apart from `allowed` (the
    flag that names a submission's own borrowed call)."""
    from grader.catalogue import solution_notebook

    text = json.dumps(results, ensure_ascii=False)
    if allowed:
        text = text.replace(allowed, "")
    for marker in (
        "BEGIN HIDDEN TESTS",
        "load_reference",
        "ANSWERS",
        "BEGIN SOLUTION",
        "row_max = S.max",
    ):
        assert marker not in text, marker
    reference = (AUTOGRADER / "reference" / f"nb{NOTEBOOK}.py").read_text()
    answers = ast.literal_eval(reference.split("ANSWERS = ", 1)[1].split("\n}\n", 1)[0] + "}")
    for _, _, explanation in answers.values():
        assert explanation[:40] not in text
    hidden = [c.source for c in solution_notebook(NOTEBOOK).cells if "HIDDEN" in c.source]
    for source in hidden:
        lines = source.split("### BEGIN HIDDEN TESTS", 1)[1].split("### END HIDDEN TESTS")[0]
        for line in lines.strip().splitlines():
            if len(line.strip()) > 12:
                assert line.strip() not in text, line


@pytest.mark.slow
@pytest.mark.parametrize(
    "isolation, student, expected",
    [
        ("bwrap", "ada", 14.0),
        ("setpriv", "cleo", 11.0),
    ],
)
def test_honest_submissions_get_exact_scores(base, autograder_zip, isolation, student, expected):
    container = Container(base, autograder_zip, {f"{NOTEBOOK}.ipynb": sample(student)})
    results, log = container.run(isolation)
    assert results["score"] == expected, log[-3000:]
    assert_gradescope_format(results, 14.0)
    assert_no_hidden_code_or_key(results)
    scores = {t["name"]: t["score"] for t in results["tests"]}
    assert scores["test_attention"] == (3.0 if student == "ada" else 0.0)
    attention = next(t for t in results["tests"] if t["name"] == "test_attention")
    if student == "cleo":  # the check's message with its hint, as in the feedback page
        assert attention["status"] == "failed"
        assert attention["output"].startswith("CheckFailure: attention:")
    else:
        assert attention["status"] == "passed" and "✓ attention passed" in attention["output"]
    # the 4 concept points are not in the summary: it would tell them before the due date
    assert results["output"].startswith(
        f"{NOTEBOOK}: {expected - 4:g} / 10 points for the code; the 4 concept question(s) "
        "are shown after the due date."
    )


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ["bwrap", "setpriv"])
def test_hostile_submission_reads_and_writes_nothing(base, autograder_zip, isolation):
    linger = base / "linger"
    linger.mkdir(mode=0o777)
    linger.chmod(0o777)
    container = Container(base, autograder_zip, {})
    notebook = hostile_notebook(container.root, linger / "alive")
    (container.root / "submission" / f"{NOTEBOOK}.ipynb").write_bytes(notebook)
    guarded = [
        container.root / "source" / p for p in (REFERENCE, SOLUTION, "autograder/grader/kernel.py")
    ]
    before = {p: digest(p) for p in guarded}
    others = set(Path("/tmp").glob("attnbook-student-*"))  # of other runs on this machine
    results, log = container.run(isolation)
    assert results["score"] == 11.0, log[-3000:]  # attention through the reference: 0
    assert results["output"] != "forged" and "999" not in json.dumps(results)
    assert sorted(p.name for p in (container.root / "results").iterdir()) == ["results.json"]
    assert {p: digest(p) for p in guarded} == before
    assert_gradescope_format(results, 14.0)
    # What names the cheat's own call is the flag on it, in the summary and in its test.
    flag = "attnbook.grading.load_reference, the grader's loader of the reference answers"
    assert flag in results["output"]
    assert flag in next(t["output"] for t in results["tests"] if t["name"] == "test_attention")
    assert_no_hidden_code_or_key(results, allowed=flag)
    alive = linger / "alive"
    size = alive.stat().st_size if alive.exists() else 0
    time.sleep(2)  # a process left behind would still be writing
    assert (alive.stat().st_size if alive.exists() else 0) == size
    if isolation == "setpriv":  # it ran (bubblewrap hides the folder), then was ended
        assert size > 0
        assert not set(Path("/tmp").glob("attnbook-student-*")) - others  # with its folders


@pytest.mark.slow
def test_the_fallback_refuses_an_interpreter_with_the_grader_installed(base, autograder_zip):
    """This test environment has the grader installed (editable, pointing at a readable
    checkout): the fallback must not run a student's code with it."""
    container = Container(base, autograder_zip, {f"{NOTEBOOK}.ipynb": sample("ada")})
    env = {
        **os.environ,
        "ATTNBOOK_GRADESCOPE_ROOT": str(container.root),
        "ATTNBOOK_GRADESCOPE_PYTHON": sys.executable,
        "ATTNBOOK_GRADESCOPE_SANDBOX": "setpriv",
    }
    result = subprocess.run(
        [*view_prefix(), "bash", str(container.root / "run_autograder")],
        cwd=container.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    assert "the course's grader or package is installed into it" in result.stdout
    results = json.loads((container.root / "results" / "results.json").read_text())
    assert results["score"] == 0.0 and "could not grade" in results["output"]


@pytest.mark.slow
def test_an_upload_without_the_notebook_scores_zero_and_says_why(base, autograder_zip):
    container = Container(base, autograder_zip, {"answers.txt": b"my answers are A, A, B"})
    results, _ = container.run("bwrap")
    assert results["score"] == 0.0 and len(results["tests"]) == 8
    assert "answers.txt" in results["output"] and "not a notebook" in results["output"]
    assert "graded as the blank notebook" in results["output"]


@pytest.mark.slow
def test_an_upload_with_two_copies_of_the_notebook_is_graded_once_on_the_newest(
    base, autograder_zip
):
    """One student's upload is one student's, whatever folders it holds: a draft and a final
    copy are one submission (the newest file graded), not two students of which the first
    folder's counts."""
    container = Container(base, autograder_zip, {})
    for folder, who, stamp in (("draft", "ben", 1_000_000_000), ("submit", "ada", 1_100_000_000)):
        path = container.root / "submission" / folder / f"{NOTEBOOK}.ipynb"
        path.parent.mkdir()
        path.write_bytes(sample(who))  # ben's is the blank notebook, ada's the solution
        os.utime(path, (stamp, stamp))
    results, _ = container.run("bwrap")
    assert results["score"] == 14.0, results["output"]
