"""nbgrader's exchange, end to end, with real Unix accounts: release, fetch, submit, collect,
grade, release feedback, fetch feedback.

The slow test makes a local exchange folder and three throwaway users with homes of their
own, each with the course's student settings (`autograder/exchange/student_nbgrader_config.py`
as ~/.jupyter/nbgrader_config.py). The instructor releases notebook 01 with plain nbgrader;
each student fetches and submits it with nbgrader's own commands, as themselves: ada the
solution, cleo the solution with a catalogued mistake (3 points), mal a blank notebook, then,
in their own inbound folder, swaps the notebook for a link to the solutions and hands in a
blank notebook in a folder named for ada. The TA runs `python -m grader grade --from-exchange`
and `python -m grader release-feedback`; each student runs `nbgrader fetch_feedback`.

Grades must be exact (ada 14, cleo 11, mal 0: the link is not followed, the forged folder is
refused), and each student must get their own feedback page and nothing else. The fast
tests check the collect's rules on a hand-made inbound (owners, names, links, FIFOs, limits).
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from accounts import VENV_BIN, Account, accounts_skip_reason, release_assignment
from conftest import ROOT, read_grades
from grader.course import Course
from grader.exchange import ExchangeFolder, collect, read_inbound
from grader.safecopy import CopyLimits, copy_untrusted

AUTOGRADER = ROOT / "autograder"
NOTEBOOK = "01_attention_scores"
STAMP = "2030-01-0{day} 10:00:00.000000 UTC"


def need_root() -> None:
    reason = accounts_skip_reason()
    if reason:
        pytest.skip(reason)


# -- fast: the collect's rules --------------------------------------------------------------
def make_submission(inbound: Path, name: str, owner: str | int, files: dict[str, bytes]) -> Path:
    folder = inbound / name
    folder.mkdir()
    for file, data in files.items():
        (folder / file).write_bytes(data)
    uid = owner if isinstance(owner, int) else pwd.getpwnam(owner).pw_uid
    for path in [folder, *folder.iterdir()]:
        os.chown(path, uid, uid, follow_symlinks=False)
    return folder


@pytest.fixture
def inbound(tmp_path):
    need_root()
    exchange = ExchangeFolder(tmp_path / "exchange", "attnbook")
    exchange.inbound.mkdir(parents=True)
    return exchange


def test_a_folder_is_taken_only_from_the_student_it_names(inbound):
    nb = {f"{NOTEBOOK}.ipynb": b"{}", "submission_secret.txt": b"ab" * 64}
    make_submission(inbound.inbound, f"nobody+{NOTEBOOK}+{STAMP.format(day=1)}+r1", "nobody", nb)
    make_submission(inbound.inbound, f"root+{NOTEBOOK}+{STAMP.format(day=2)}+r2", "nobody", nb)
    make_submission(inbound.inbound, f"..+{NOTEBOOK}+{STAMP.format(day=1)}+r3", "nobody", nb)
    make_submission(inbound.inbound, f"nobody+{NOTEBOOK}+yesterday+r4", "nobody", nb)
    (inbound.inbound / f"nobody+{NOTEBOOK}+{STAMP.format(day=3)}+r5").symlink_to("/etc")
    entries = {e.name.rsplit("+", 1)[1]: e for e in read_inbound(inbound, {NOTEBOOK})}
    assert entries["r1"].status == "collected"
    assert entries["r2"].status == "refused"
    assert "owned by nobody, but named for root" in entries["r2"].reason
    assert entries["r3"].status == "refused" and "not a user name" in entries["r3"].reason
    assert entries["r4"].status == "refused" and "unreadable time" in entries["r4"].reason
    assert entries["r5"].status == "refused" and "not a folder" in entries["r5"].reason
    trusted = {e.name.rsplit("+", 1)[1]: e for e in read_inbound(inbound, {NOTEBOOK}, True)}
    assert trusted["r2"].status == "collected"  # --trust-exchange-names: one shared account


def test_the_latest_stated_time_wins_and_older_ones_are_reported(inbound):
    for day, tag in ((1, "old"), (3, "new"), (2, "mid")):
        make_submission(
            inbound.inbound,
            f"nobody+{NOTEBOOK}+{STAMP.format(day=day)}+{tag}",
            "nobody",
            {f"{NOTEBOOK}.ipynb": b"{}"},
        )
    entries = {e.name.rsplit("+", 1)[1]: e for e in read_inbound(inbound, {NOTEBOOK})}
    assert entries["new"].status == "collected"
    assert entries["old"].status == entries["mid"].status == "superseded"
    assert entries["old"].reason.endswith("+new")


def test_collect_copies_no_link_no_fifo_and_keeps_its_snapshot(inbound, tmp_path):
    secret = "cd" * 64
    folder = make_submission(
        inbound.inbound,
        f"nobody+{NOTEBOOK}+{STAMP.format(day=1)}+r",
        "nobody",
        {
            f"{NOTEBOOK}.ipynb": b'{"mine": 1}',
            "submission_secret.txt": secret.encode(),
            "timestamp.txt": b"whatever the student wrote",
        },
    )
    (folder / "answers.ipynb").symlink_to(ROOT / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb")
    (folder / "data").mkdir()
    (folder / "data" / "key.py").symlink_to(AUTOGRADER / "reference" / "nb01_attention_scores.py")
    os.mkfifo(folder / "pipe")
    course = Course(root=ROOT, work=tmp_path / "work")
    entries = collect(course, inbound, [NOTEBOOK])
    taken = tmp_path / "work" / "collected" / NOTEBOOK / "nobody"
    assert sorted(p.relative_to(taken).as_posix() for p in taken.rglob("*")) == [
        f"{NOTEBOOK}.ipynb",
        "data",
    ]  # no link, no FIFO, no nbgrader files
    notes = " | ".join(entries[0].notes)
    assert "answers.ipynb: a symbolic link, not copied" in notes
    assert "data/key.py: a symbolic link, not copied" in notes
    assert "pipe: not a regular file" in notes
    (folder / f"{NOTEBOOK}.ipynb").write_bytes(b'{"changed": "after the deadline"}')
    again = collect(course, inbound, [NOTEBOOK])
    assert again[0].status == "kept"
    assert (taken / f"{NOTEBOOK}.ipynb").read_bytes() == b'{"mine": 1}'
    meta = (
        tmp_path / "work" / "state" / "exchange" / NOTEBOOK / "students" / "nobody.json"
    ).read_text()
    assert secret in meta and "2030-01-01 10:00:00" in meta


def test_plain_nbgrader_collect_is_refused_on_this_configuration(inbound, tmp_path):
    """The hostile suite's two collect attacks, through plain `nbgrader collect` run from
    autograder/ (issue #27): a folder forged in a classmate's name (nbgrader only warns and
    takes it) and a notebook swapped for a link to the solutions (nbgrader copies what it
    points to). `ExchangeFactory.collect` refuses, naming the grader's collect; nothing is
    copied. The grader's own collect refuses both (the two tests above)."""
    nb = {f"{NOTEBOOK}.ipynb": b"{}", "submission_secret.txt": b"ab" * 64}
    make_submission(inbound.inbound, f"root+{NOTEBOOK}+{STAMP.format(day=2)}+forged", "nobody", nb)
    linked = make_submission(
        inbound.inbound, f"nobody+{NOTEBOOK}+{STAMP.format(day=1)}+link", "nobody", {}
    )
    (linked / f"{NOTEBOOK}.ipynb").symlink_to(ROOT / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb")
    submitted = tmp_path / "submitted"
    result = subprocess.run(
        [
            str(VENV_BIN / "nbgrader"),
            "collect",
            NOTEBOOK,
            f"--CourseDirectory.submitted_directory={submitted}",
        ],
        cwd=AUTOGRADER,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ATTNBOOK_EXCHANGE": str(inbound.root)},
    )
    assert result.returncode != 0, result.stdout + result.stderr
    assert "nbgrader collect is refused" in result.stderr
    assert "python -m grader collect" in result.stderr
    assert not submitted.exists()  # neither the forged folder nor the solutions


def test_copy_limits(tmp_path):
    source = tmp_path / "src"
    (source / "a" / "b" / "c").mkdir(parents=True)
    (source / "a" / "b" / "c" / "deep.txt").write_text("deep")
    (source / "big.bin").write_bytes(b"x" * 3000)
    for i in range(5):
        (source / f"f{i}.txt").write_text(str(i))
        (source / f"g{i}").mkdir()
    result = copy_untrusted(
        source, tmp_path / "dst", limits=CopyLimits(depth=3, files=4, file_bytes=2000)
    )
    notes = " | ".join(result.notes)
    assert "a/b/c: folders nested deeper than 3" in notes
    assert "big.bin: 0 MiB, over the limit" in notes
    assert "over 4 files, not copied" in notes
    assert "over 4 folders, not copied" in notes
    assert result.files == 4 and result.folders == 4


def test_a_hard_link_is_not_copied(tmp_path):
    """A second name of a file: where the system lets a student link a file they cannot
    read (fs.protected_hardlinks=0), copying it as the TA or root would hand it in."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "mine.ipynb").write_text("{}")
    kept_elsewhere = tmp_path / "reference.py"
    kept_elsewhere.write_text("ANSWER = 42")
    os.link(kept_elsewhere, source / "key.py")
    result = copy_untrusted(source, tmp_path / "dst")
    assert sorted(p.name for p in (tmp_path / "dst").iterdir()) == ["mine.ipynb"]
    assert "key.py: a hard link (2 names), not copied" in " | ".join(result.notes)


def test_nbgrader_submitted_layout_is_read_as_a_download(tmp_path):
    """`python -m grader grade` takes nbgrader's own `submitted/<student>/<assignment>/`
    (what `nbgrader collect` writes) as it takes a folder per student."""
    for student in ("ada", "cleo"):
        folder = tmp_path / "submitted" / student / NOTEBOOK
        folder.mkdir(parents=True)
        (folder / f"{NOTEBOOK}.ipynb").write_text("{}")
        (folder / "timestamp.txt").write_text(STAMP.format(day=1))
    intake = Course(root=ROOT, work=tmp_path / "work").collect(
        tmp_path / "submitted", [NOTEBOOK, "02_positions"]
    )
    assert sorted(intake.uploads) == [("ada", NOTEBOOK), ("cleo", NOTEBOOK)]
    assert {f.reason for f in intake.files if f.status == "ignored"} == {
        "not a notebook (.ipynb)"
    }  # the timestamps, each accounted for


# -- slow: the whole flow with real accounts ------------------------------------------------
class Student(Account):
    """A throwaway account with the course's student settings for nbgrader."""

    def __init__(self, name: str, base: Path, exchange: Path):
        super().__init__(name, base / "home" / name)
        self.exchange = exchange
        config = self.home / ".jupyter" / "nbgrader_config.py"
        config.parent.mkdir()
        shutil.copyfile(AUTOGRADER / "exchange" / "student_nbgrader_config.py", config)
        self.own(config.parent)

    def env(self, **extra: str) -> dict[str, str]:
        return super().env(ATTNBOOK_EXCHANGE=str(self.exchange), **extra)

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        return self.run(str(VENV_BIN / "nbgrader"), *args)

    def hand_in(self, data: bytes, extra: dict[str, bytes] | None = None) -> None:
        self.nbgrader("fetch_assignment", NOTEBOOK)
        folder = self.home / NOTEBOOK
        (folder / f"{NOTEBOOK}.ipynb").write_bytes(data)
        for name, content in (extra or {}).items():
            (folder / name).write_bytes(content)
        self.own(folder)
        self.nbgrader("submit", NOTEBOOK)

    def inbound_folder(self) -> Path:
        (found,) = (self.exchange / "attnbook" / "inbound").glob(f"{self.name}+{NOTEBOOK}+*")
        return found

    def feedback_pages(self) -> list[Path]:
        return sorted((self.home / NOTEBOOK / "feedback").glob("*/*.html"))


def ta(*args: str, work: Path, exchange: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(
        # --lock: the checkout is 0755 as cloned, and the exchange route refuses to run
        # where its students could read the solutions (grader/lockdown.py)
        [sys.executable, "-m", "grader", *args, "--lock", "--work", str(work)],
        cwd=AUTOGRADER,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "ATTNBOOK_EXCHANGE": str(exchange)},
    )
    assert result.returncode == 0, f"{args}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


@pytest.fixture(scope="module")
def course_run():
    need_root()
    from grader.sample import load_builder

    build = load_builder()
    sample = build.sample_class(ROOT)
    base = Path(tempfile.mkdtemp(prefix="attnbook-exchange-"))
    base.chmod(0o755)
    exchange, work = base / "exchange", base / "ta-work"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)  # nbgrader's setup: every user writes into the exchange
    tag = secrets.token_hex(3)
    students = {role: Student(f"atb{tag}{role}", base, exchange) for role in ("ada", "cleo", "mal")}
    try:
        yield run_course(build, sample, students, exchange, work)
    finally:
        for student in students.values():  # every command ran to its end: nothing left running
            student.remove()
        shutil.rmtree(base, ignore_errors=True)


def run_course(build, sample, students, exchange: Path, work: Path) -> dict:
    release_assignment(NOTEBOOK, exchange)
    ada, cleo, mal = students["ada"], students["cleo"], students["mal"]
    ada.hand_in(sample["ada"][0])
    cleo.hand_in(sample["cleo"][0])
    mal.hand_in(sample["ben"][0], {"notes.txt": b"see my notebook"})
    # mal, in their own inbound folder after submitting: the notebook becomes a link to the
    # solutions, and a blank notebook goes in a folder named for ada, with a later time
    solution = ROOT / "solutions" / NOTEBOOK / f"{NOTEBOOK}.ipynb"
    notebook = mal.inbound_folder() / f"{NOTEBOOK}.ipynb"
    mal.run(
        sys.executable,
        "-c",
        f"import os; os.remove({str(notebook)!r}); "
        f"os.symlink({str(solution)!r}, {str(notebook)!r})",
    )
    forged = exchange / "attnbook" / "inbound" / f"{ada.name}+{NOTEBOOK}+{STAMP.format(day=9)}+x"
    mal.run(
        sys.executable,
        "-c",
        f"import os; os.mkdir({str(forged)!r}); "
        f"open({str(forged / (NOTEBOOK + '.ipynb'))!r}, 'wb').write({sample['ben'][0]!r})",
    )
    time.sleep(1)
    graded = ta(
        "grade", "--from-exchange", "-a", NOTEBOOK, "--workers", "2", work=work, exchange=exchange
    )
    again = ta("grade", "--from-exchange", "-a", NOTEBOOK, work=work, exchange=exchange)
    released = ta("release-feedback", "-a", NOTEBOOK, work=work, exchange=exchange)
    for student in students.values():
        student.nbgrader("fetch_feedback", NOTEBOOK)
    snoop = cleo.run(
        sys.executable,
        "-c",
        "import os, sys; os.listdir(sys.argv[1])",
        str(exchange / "attnbook" / "feedback"),
        check=False,
    )
    return {
        "graded": graded,
        "again": again,
        "released": released,
        "grades": read_grades(work),
        "students": students,
        "work": work,
        "snoop": snoop,
        "exchange": exchange,
    }


@pytest.mark.slow
def test_exact_grades_through_the_exchange(course_run):
    ada, cleo, mal = (course_run["students"][r] for r in ("ada", "cleo", "mal"))
    scores = {sid: float(row["score"]) for sid, row in course_run["grades"].items()}
    assert scores == {ada.name: 14.0, cleo.name: 11.0, mal.name: 0.0}
    assert course_run["grades"][cleo.name]["01:test_attention"] == "0.0"
    assert "graded 0 notebook(s)" in course_run["again"].stdout  # nothing changed: skipped


@pytest.mark.slow
def test_collect_refuses_the_forged_folder_and_the_link(course_run):
    ada, mal = course_run["students"]["ada"], course_run["students"]["mal"]
    out = course_run["graded"].stdout
    assert f"owned by {mal.name}, but named for {ada.name}" in out
    assert f"{NOTEBOOK}.ipynb: a symbolic link, not copied" in out
    collected = course_run["work"] / "collected" / NOTEBOOK
    assert sorted(p.name for p in collected.iterdir()) == sorted(
        s.name for s in course_run["students"].values()
    )
    for path in collected.rglob("*"):
        assert not path.is_symlink()
        if path.is_file():
            assert b"### BEGIN SOLUTION" not in path.read_bytes(), path
    status = course_run["grades"][mal.name]["status"]
    assert "graded as the blank notebook" in status or "no notebook" in status, status


@pytest.mark.slow
def test_each_student_fetches_only_their_own_feedback(course_run):
    work, released = course_run["work"], course_run["released"].stdout
    for role, student in course_run["students"].items():
        assert f"released {student.name}" in released
        pages = student.feedback_pages()
        assert [p.name for p in pages] == [f"{NOTEBOOK}.html"], (role, pages)
        ta_page = work / "feedback" / student.name / NOTEBOOK / f"{NOTEBOOK}.html"
        assert pages[0].read_bytes() == ta_page.read_bytes()
        others = [s for s in course_run["students"].values() if s is not student]
        for other in others:
            other_page = work / "feedback" / other.name / NOTEBOOK / f"{NOTEBOOK}.html"
            assert pages[0].read_bytes() != other_page.read_bytes()
    ada_page = course_run["students"]["ada"].feedback_pages()[0].read_text()
    cleo_page = course_run["students"]["cleo"].feedback_pages()[0].read_text()
    assert "CheckFailure" not in ada_page and "CheckFailure" in cleo_page
    assert "BEGIN HIDDEN TESTS" not in cleo_page and "load_reference" not in cleo_page
    assert course_run["snoop"].returncode != 0 and "PermissionError" in course_run["snoop"].stderr
