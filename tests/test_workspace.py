"""No work lost: a learner works in work/, which `make lab` fills from notebooks/ without ever
overwriting a file, `make reset` restores one notebook keeping a dated backup, `make check`
checks the learner's copy, `make release` refuses to overwrite what no release made in
notebooks/, `make clean` keeps grading data and `make clean-grading` asks first."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT, script_module

VENV = ROOT / ".venv"
NB1 = "01_attention_scores"


workspace = script_module("scripts/workspace.py")
check_notebook = script_module("scripts/check_notebook.py")


def make(*args: str, cwd: Path = ROOT, **kwargs) -> subprocess.CompletedProcess:
    """`make` in `cwd` with this checkout's .venv, never reinstalling it (neither the
    learner's set-up nor the developer's: a clone's newer pyproject.toml would otherwise
    reinstall this .venv's packages from the clone)."""
    installed = [f"-o{VENV}/{stamp}" for stamp in (".installed", ".installed-dev")]
    return subprocess.run(
        ["make", "--no-print-directory", f"VENV={VENV}", *installed, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,
    )


def _released(tmp_path: Path) -> Path:
    """A small released tree: two notebooks, one with a companion file."""
    released = tmp_path / "notebooks"
    for name in ("01_a", "02_b"):
        (released / name).mkdir(parents=True)
        (released / name / f"{name}.ipynb").write_text(f"released {name}\n")
    (released / "02_b" / "data.txt").write_text("data\n")
    (released / "01_a" / ".ipynb_checkpoints").mkdir()
    (released / "01_a" / ".ipynb_checkpoints" / "01_a-checkpoint.ipynb").write_text("x")
    return released


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]


def _committed(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A clone whose released tree (`_released`) is committed: (its root, its notebooks/,
    the git command that commits there)."""
    root = tmp_path / "clone"
    released = _released(root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "v1"], cwd=root, check=True)
    return root, released, GIT


# -- work/: prepare and reset ------------------------------------------------------------------
def test_prepare_copies_what_is_missing_and_never_overwrites(tmp_path):
    released, work = _released(tmp_path), tmp_path / "work"
    copied = workspace.prepare(work, released)
    assert sorted(p.relative_to(work).as_posix() for p in copied) == [
        "01_a/01_a.ipynb",
        "02_b/02_b.ipynb",
        "02_b/data.txt",
    ]
    assert not (work / "01_a" / ".ipynb_checkpoints").exists()
    mine = work / "01_a" / "01_a.ipynb"
    mine.write_text("my answers\n")
    # A newer workbook: 01 changed, 03 is new. Only 03 comes in; the answers stay.
    (released / "01_a" / "01_a.ipynb").write_text("released 01_a, version 2\n")
    (released / "03_c").mkdir()
    (released / "03_c" / "03_c.ipynb").write_text("released 03_c\n")
    assert workspace.sync(work, released) == ([work / "03_c" / "03_c.ipynb"], [mine])
    assert mine.read_text() == "my answers\n"
    assert workspace.prepare(work, released) == []
    # make reset takes the new release: the copy is no longer behind it.
    workspace.reset("01", work, released)
    assert mine.read_text() == "released 01_a, version 2\n"
    assert workspace.sync(work, released) == ([], [])


def test_answers_written_in_notebooks_before_work_existed_are_not_taken_for_a_release(tmp_path):
    """README: a learner who worked in notebooks/ before work/ existed runs `make lab` (the
    answers are copied into work/), then `git checkout notebooks/`. The next `make lab` must
    not say that the workbook changed notebook 02 (it did not: the record holds what was
    released, the committed version, not the learner's edit); a real newer release still is
    named."""
    root, released, git = _committed(tmp_path)
    edited = released / "02_b" / "02_b.ipynb"
    edited.write_text("my answers, written in notebooks/\n")
    work = root / "work"
    workspace.prepare(work, released)
    assert (work / "02_b" / "02_b.ipynb").read_text() == "my answers, written in notebooks/\n"
    assert workspace.sync(work, released) == ([], [])  # the edit still there: no release
    subprocess.run(["git", "checkout", "-q", "notebooks/"], cwd=root, check=True)
    assert workspace.sync(work, released) == ([], [])
    edited.write_text("released 02_b, version 2\n")  # a newer workbook, pulled
    subprocess.run([*git, "commit", "-qam", "v2"], cwd=root, check=True)
    assert workspace.sync(work, released) == ([], [work / "02_b" / "02_b.ipynb"])


def test_edits_made_in_notebooks_after_work_existed_are_kept_in_backups(tmp_path):
    """Review round 7: a learner who edits notebooks/ once work/ holds its copy was told
    nothing, and the README's way to update (`git checkout notebooks/`) threw the edits away.
    `prepare` keeps them in work/backups/, once, and leaves the learner's work/ copy alone."""
    root, released, git = _committed(tmp_path)
    work = root / "work"
    workspace.prepare(work, released)
    assert workspace.keep_edits_in_released(work, released) == []  # nothing edited
    edited = released / "02_b" / "02_b.ipynb"
    edited.write_text("answers written in notebooks/ by mistake\n")
    (kept,) = workspace.keep_edits_in_released(work, released)
    assert kept.parent == work / "backups" and kept.name.startswith("02_b-from-notebooks-")
    assert kept.read_text() == "answers written in notebooks/ by mistake\n"
    assert (work / "02_b" / "02_b.ipynb").read_text() == "released 02_b\n"  # untouched
    assert workspace.keep_edits_in_released(work, released) == []  # kept once
    edited.write_text("more answers\n")
    assert len(workspace.keep_edits_in_released(work, released)) == 1  # a new version: kept
    subprocess.run(["git", "checkout", "-q", "notebooks/"], cwd=root, check=True)
    assert sorted(p.read_text() for p in (work / "backups").iterdir()) == [
        "answers written in notebooks/ by mistake\n",
        "more answers\n",
    ]


def test_prepare_refuses_a_file_where_the_folder_should_be(tmp_path):
    released, work = _released(tmp_path), tmp_path / "work"
    work.write_text("not a folder")
    with pytest.raises(workspace.WorkspaceError, match="work: expected a folder"):
        workspace.prepare(work, released)
    assert work.read_text() == "not a folder"


def test_reset_restores_the_released_notebook_and_keeps_a_dated_backup(tmp_path):
    released, work = _released(tmp_path), tmp_path / "work"
    workspace.prepare(work, released)
    mine = work / "02_b" / "02_b.ipynb"
    mine.write_text("first attempt\n")
    path, backup = workspace.reset("02", work, released)
    assert path == mine and mine.read_text() == "released 02_b\n"
    # in work/backups/, which the lab shows (it hides dot-folders such as .backups)
    assert backup.parent == work / "backups" and backup.read_text() == "first attempt\n"
    assert re.fullmatch(r"02_b-\d{4}-\d\d-\d\dT\d{4}\.ipynb", backup.name), backup.name
    assert (work / "02_b" / "data.txt").read_text() == "data\n"
    # A second reset in the same minute keeps both backups.
    mine.write_text("second attempt\n")
    _, second = workspace.reset("02_b", work, released)
    assert second != backup and second.read_text() == "second attempt\n"
    assert backup.read_text() == "first attempt\n"


def test_backups_an_older_workbook_hid_in_work_dot_backups_become_visible(tmp_path, capsys):
    """Older workbooks kept reset's backups in work/.backups/, which JupyterLab hides: the
    next `make lab` (prepare) or `make reset` moves them into work/backups/, never over a
    file there, and says so; nothing is lost."""
    released, work = _released(tmp_path), tmp_path / "work"
    workspace.prepare(work, released)
    old = work / ".backups"
    old.mkdir()
    (old / "01_a-2025-01-01T1000.ipynb").write_text("old attempt\n")
    (work / "backups").mkdir()
    (work / "backups" / "01_a-2025-01-01T1000.ipynb").write_text("other attempt\n")
    assert workspace.main(["--work", str(work), "prepare"]) == 0
    out = capsys.readouterr().out
    kept = {p.name: p.read_text() for p in (work / "backups").iterdir()}
    assert sorted(kept.values()) == ["old attempt\n", "other attempt\n"], kept
    assert not old.exists() or not any(old.iterdir())
    assert ".backups" in out and f"{work / 'backups'}" in out, out
    readme = (ROOT / "README.md").read_text()
    assert "`work/backups/01_attention_scores-<date>T<time>.ipynb`" in readme
    assert readme.count("work/.backups/") == 1 and "moved into `work/backups/`" in readme


def test_reset_without_a_copy_makes_one_and_names_a_wrong_notebook(tmp_path):
    released, work = _released(tmp_path), tmp_path / "work"
    path, backup = workspace.reset("01", work, released)
    assert backup is None and path.read_text() == "released 01_a\n"
    for wrong in ("07", "", "0"):
        with pytest.raises(workspace.WorkspaceError, match=r"NB: expected one of \['01_a'"):
            workspace.reset(wrong, work, released)


def test_backup_names_carry_the_date_and_time():
    when = time.strptime("2026-12-04 21:30", "%Y-%m-%d %H:%M")
    path = workspace.backup_path(Path("work/01_attention_scores/01_attention_scores.ipynb"),
                                 Path("/nonexistent/work"), when)  # fmt: skip
    assert path == Path("/nonexistent/work/backups/01_attention_scores-2026-12-04T2130.ipynb")


# -- the make targets --------------------------------------------------------------------------
def test_make_lab_opens_the_learners_copy_and_keeps_its_answers(tmp_path):
    work = tmp_path / "mywork"
    # LAB_ARGS=--version: JupyterLab prints its version and exits instead of serving.
    result = make("lab", f"WORK={work}", "LAB_ARGS=--version")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"--ServerApp.root_dir={work}" in result.stdout, result.stdout
    released = sorted(NOTEBOOKS.glob("*/*.ipynb"))
    copies = sorted(work.glob("*/*.ipynb"))
    assert [p.relative_to(work) for p in copies] == [p.relative_to(NOTEBOOKS) for p in released]
    assert all(c.read_bytes() == r.read_bytes() for c, r in zip(copies, released, strict=True))
    mine = work / NB1 / f"{NB1}.ipynb"
    mine.write_text("my answers")
    shutil.rmtree(work / "02_positions")  # as if 02 were new in a later workbook
    record = json.loads((work / ".released.json").read_text())
    record[f"{NB1}/{NB1}.ipynb"] = "0" * 64  # as if notebooks/ had changed since the copy
    (work / ".released.json").write_text(json.dumps(record))
    result = make("lab", f"WORK={work}", "LAB_ARGS=--version")
    assert result.returncode == 0, result.stdout + result.stderr
    assert mine.read_text() == "my answers"
    assert (work / "02_positions" / "02_positions.ipynb").is_file()
    new, changed = result.stdout.split("changed in this workbook")
    assert "02_positions" in new and NB1 in changed and "make reset" in changed, result.stdout


def test_make_reset_keeps_a_backup_and_restores(tmp_path):
    work = tmp_path / "work"
    mine = work / NB1 / f"{NB1}.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text("my answers")
    result = make("reset", "NB=01", f"WORK={work}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert mine.read_bytes() == (NOTEBOOKS / NB1 / f"{NB1}.ipynb").read_bytes()
    (backup,) = (work / "backups").iterdir()
    assert backup.read_text() == "my answers" and backup.name.startswith(f"{NB1}-20")
    assert backup.name in result.stdout
    result = make("reset", f"WORK={work}")
    assert result.returncode == 2 and "usage: make reset NB=01" in result.stdout


def test_check_finds_the_learners_copy_first(tmp_path):
    released = NOTEBOOKS / NB1 / f"{NB1}.ipynb"
    assert check_notebook.find("01", tmp_path / "work") == released
    mine = tmp_path / "work" / NB1 / f"{NB1}.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text("{}")
    assert check_notebook.find("01", tmp_path / "work") == mine
    assert check_notebook.find("01_attention", tmp_path / "work") == mine
    with pytest.raises(SystemExit, match="should name one notebook"):
        check_notebook.find("0", tmp_path / "work")


def test_make_clean_keeps_grading_data_and_work(tmp_path):
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    keep = [
        "autograder/gradebook.db",
        "autograder/submitted/ann/01/01.ipynb",
        "autograder/feedback/ann/01/01.html",
        "autograder/autograded/ann/01/01.ipynb",
        "autograder/grades.csv",
        "autograder/intake.json",
        "work/01/01.ipynb",
    ]
    for name in [*keep, "fakevenv/bin/python", "dist/kit.zip", ".pytest_cache/x"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    result = subprocess.run(
        ["make", "clean", "VENV=fakevenv"], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "fakevenv").exists() and not (tmp_path / ".pytest_cache").exists()
    assert [n for n in keep if not (tmp_path / n).exists()] == []
    # dist/ holds the kits `make kit` built (minutes, hundreds of MiB): README says clean
    # removes only .venv and caches, so it stays, and README says how to delete it.
    assert (tmp_path / "dist" / "kit.zip").is_file()
    assert "rm -rf dist" in (ROOT / "README.md").read_text()


def _grading_folder(tmp_path: Path) -> Path:
    work = tmp_path / "autograder"
    for name in ["gradebook.db", "submitted/ann/01/01.ipynb", "grades.csv", "intake.json",
                 "feedback/ann/01/01.html", "state/01/ann.json", "nbgrader_config.py",
                 "lms/people.csv", "lms/people.json", "lms/01/canvas_import.csv",
                 "lms/01/moodle_feedback.zip"]:  # fmt: skip
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text("x")
    return work


def _clean_grading(work: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "clean_grading.py"), "--work", str(work), *args],
        capture_output=True,
        text=True,
        timeout=60,
        **kwargs,
    )


def test_clean_grading_refuses_without_a_terminal(tmp_path):
    work = _grading_folder(tmp_path)
    before = sorted(p for p in work.rglob("*"))
    result = _clean_grading(work, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and "no terminal" in result.stderr, result
    assert "FORCE=1" in result.stderr and "grades.csv" in result.stdout
    assert sorted(p for p in work.rglob("*")) == before


def test_make_clean_grading_with_force_deletes_it_all_and_only_it(tmp_path):
    work = _grading_folder(tmp_path)
    result = _clean_grading(work, "--force", stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result
    assert "lms/" in result.stdout  # listed before it goes: names and e-mails of the class
    assert [p.name for p in work.iterdir()] == ["nbgrader_config.py"]
    # The make target passes FORCE=1 on, and refuses without it.
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "clean_grading.py", tmp_path / "scripts")
    _grading_folder(tmp_path)
    refused = make("clean-grading", cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert refused.returncode != 0 and (work / "gradebook.db").exists()
    done = make("clean-grading", "FORCE=1", cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (work / "gradebook.db").exists() and not (work / "submitted").exists()


@pytest.mark.parametrize(("answer", "deleted"), [(b"y\n", True), (b"\n", False), (b"no\n", False)])
def test_clean_grading_asks_on_a_terminal(tmp_path, answer, deleted):
    work = _grading_folder(tmp_path)
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "scripts" / "clean_grading.py"), "--work", str(work)],
            stdin=follower,
            stdout=follower,
            stderr=follower,
        )
        seen = b""
        deadline = time.monotonic() + 60
        while b"[y/N]" not in seen and time.monotonic() < deadline:
            seen += os.read(leader, 4096)
        assert b"[y/N]" in seen, seen
        os.write(leader, answer)
        assert process.wait(timeout=60) == (0 if deleted else 1)
    finally:
        os.close(leader)
        os.close(follower)
    assert (work / "gradebook.db").exists() is not deleted
    assert (work / "grades.csv").exists() is not deleted
    assert (work / "nbgrader_config.py").exists()


# -- make release ------------------------------------------------------------------------------
@pytest.fixture
def clone(tmp_path, monkeypatch):
    """scripts/release.py on a small git checkout: notebooks/ committed, a fake nbgrader that
    releases whatever tmp/next holds, no reference answers."""
    release = script_module("scripts/release.py")
    root = tmp_path / "clone"
    notebooks = root / "notebooks"
    for name in ("01_a", "02_b"):
        (notebooks / name).mkdir(parents=True)
        (notebooks / name / f"{name}.ipynb").write_text(f"v1 {name}\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], cwd=root, check=True)
    upcoming = tmp_path / "next"
    shutil.copytree(notebooks, upcoming)

    def generate(out: Path) -> None:
        shutil.copytree(upcoming, out)

    (root / "solutions").mkdir()
    for name, value in {
        "ROOT": root,
        "NOTEBOOKS": notebooks,
        "SOLUTIONS": root / "solutions",
        "RECORD": root / ".release-record.json",
        "BACKUPS": root / "work" / "backups",
        "generate": generate,
        "write_references": lambda check: [],
        "assignments": lambda: ["01_a", "02_b"],
    }.items():
        monkeypatch.setattr(release, name, value)
    return release, root, notebooks, upcoming


def test_release_overwrites_what_releases_made(clone, capsys):
    release, root, notebooks, upcoming = clone
    (upcoming / "01_a" / "01_a.ipynb").write_text("v2 01_a\n")
    assert release.main([]) == 0
    assert (notebooks / "01_a" / "01_a.ipynb").read_text() == "v2 01_a\n"
    record = json.loads((root / ".release-record.json").read_text())
    assert set(record["files"]) == {"01_a/01_a.ipynb", "02_b/02_b.ipynb"}
    # Released again before a commit: notebooks/ holds the last release's files, not git's.
    (upcoming / "01_a" / "01_a.ipynb").write_text("v3 01_a\n")
    shutil.rmtree(upcoming / "02_b")
    assert release.main([]) == 0, capsys.readouterr()
    assert (notebooks / "01_a" / "01_a.ipynb").read_text() == "v3 01_a\n"
    assert not (notebooks / "02_b").exists()
    assert not (root / "work").exists()


def test_release_refuses_and_names_a_learners_changes(clone, capsys):
    release, root, notebooks, upcoming = clone
    (upcoming / "01_a" / "01_a.ipynb").write_text("v2 01_a\n")
    (upcoming / "02_b" / "02_b.ipynb").write_text("v2 02_b\n")
    mine = notebooks / "01_a" / "01_a.ipynb"
    mine.write_text("my answers\n")
    notes = notebooks / "02_b" / "notes.md"
    notes.write_text("my notes\n")
    assert release.main([]) == 1
    err = capsys.readouterr().err
    assert "01_a/01_a.ipynb" in err and "02_b/notes.md" in err and "FORCE=1" in err
    assert "02_b/02_b.ipynb" not in err
    assert mine.read_text() == "my answers\n" and notes.read_text() == "my notes\n"
    assert (notebooks / "02_b" / "02_b.ipynb").read_text() == "v1 02_b\n", "released part-way"

    assert release.main(["--force"]) == 0
    assert mine.read_text() == "v2 01_a\n" and not notes.exists()
    kept = sorted(p.name for p in (root / "work" / "backups").iterdir())
    assert [k.split("-20")[0] for k in kept] == ["01_a", "notes"], kept
    assert {(root / "work" / "backups" / k).read_text() for k in kept} == {
        "my answers\n",
        "my notes\n",
    }


def test_release_lets_a_learner_copy_equal_to_the_release_through(clone):
    release, _, notebooks, upcoming = clone
    (notebooks / "01_a" / "01_a.ipynb").write_text("v2 01_a\n")  # an edit the release agrees with
    (upcoming / "01_a" / "01_a.ipynb").write_text("v2 01_a\n")
    assert release.main([]) == 0


def test_the_learners_copy_and_the_release_record_are_not_committed():
    paths = [
        "work/01_attention_scores/01_attention_scores.ipynb",
        "work/backups/01_attention_scores-2026-12-04T2130.ipynb",
        "work/.backups/01_attention_scores-2026-12-04T2130.ipynb",
        ".release-record.json",
        "autograder/intake.json.unreadable-20261204T213000",
    ]
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-v", "-n", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    unignored = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert result.returncode == 0 and not unignored, result.stdout


def test_make_check_runs_the_learners_copy(tmp_path):
    work = tmp_path / "work"
    mine = work / NB1 / f"{NB1}.ipynb"
    mine.parent.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('mine')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "P", "language": "python"}
    nbformat.write(nb, mine)
    result = make("check", "NB=01", f"WORK={work}")
    # the copy has none of the release's test cells: as the autograder does, they are put
    # back and run, and fail (no function is defined); make exits 2 on the script's 1
    assert result.returncode != 0, result.stdout + result.stderr
    assert str(mine) in result.stdout and "functions: 0/10 points" in result.stdout, result.stdout
    assert "put back from the release" in result.stdout


@pytest.mark.slow
def test_make_release_in_a_clone_refuses_to_overwrite_a_learners_answers(tmp_path, released_tree):
    """An older clone where notebook 01 was filled in inside notebooks/: `make release`
    names it and leaves it as it is. (nbgrader's step copies the session's release when the
    clone's inputs are the same bytes: $ATTNBOOK_RELEASE_REUSE, scripts/release.py.)"""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    mine = clone / "notebooks" / NB1 / f"{NB1}.ipynb"
    answered = mine.read_text().replace("raise NotImplementedError()", "return 42", 1)
    assert answered != mine.read_text()
    mine.write_text(answered)
    reuse = {"ATTNBOOK_RELEASE_REUSE": str(released_tree[0])}
    result = make("release", cwd=clone, env={**os.environ, **reuse})
    assert result.returncode != 0, result.stdout + result.stderr
    assert f"{NB1}/{NB1}.ipynb" in result.stderr and "FORCE=1" in result.stderr, result.stderr
    assert mine.read_text() == answered
    assert not (clone / "work").exists()


def test_the_solutions_view_is_a_fresh_read_only_copy_beside_the_work(tmp_path):
    """work/solutions/: the solutions copied read-only, made afresh each time (a file gone
    from solutions/ is gone from the copy); the learner's notebooks are untouched."""
    source, work = tmp_path / "solutions", tmp_path / "work"
    (source / "01_x").mkdir(parents=True)
    (source / "01_x" / "01_x.ipynb").write_text("v1")
    (source / "01_x" / "old.txt").write_text("old")
    mine = work / "01_x" / "01_x.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text("my answers")
    view = workspace.solutions_view(work, source)
    assert (view / "01_x" / "01_x.ipynb").read_text() == "v1"
    assert (view / "01_x" / "01_x.ipynb").stat().st_mode & 0o222 == 0
    assert view.stat().st_mode & 0o222 == 0
    (source / "01_x" / "01_x.ipynb").write_text("v2")
    (source / "01_x" / "old.txt").unlink()
    workspace.solutions_view(work, source)
    assert (view / "01_x" / "01_x.ipynb").read_text() == "v2"
    assert not (view / "01_x" / "old.txt").exists()
    assert mine.read_text() == "my answers"
    assert workspace.solutions_view(work, tmp_path / "none") is None  # the kit: no solutions/
    for folder, _dirs, _files in os.walk(view):  # so that pytest can clean up
        os.chmod(folder, 0o755)


def test_the_solutions_view_never_deletes_a_file_a_learner_saved_there(tmp_path):
    """Run as root (make lab adds --allow-root), the lab can save into the read-only
    work/solutions/: the next refresh replaces only the files it copied there; a file the
    learner saved (new, or a copied one changed) is moved into work/backups/ and named."""
    source, work = tmp_path / "solutions", tmp_path / "work"
    (source / "01_x").mkdir(parents=True)
    (source / "01_x" / "01_x.ipynb").write_text("v1")
    view = workspace.solutions_view(work, source)
    for folder, _dirs, _files in os.walk(view):  # what root can do regardless of the modes
        os.chmod(folder, 0o755)
    os.chmod(view / "01_x" / "01_x.ipynb", 0o644)
    (view / "01_x" / "01_x.ipynb").write_text("v1 with my notes")
    (view / "01_x" / "mine.ipynb").write_text("my own notebook")
    (source / "01_x" / "01_x.ipynb").write_text("v2")
    view, moved = workspace.refresh_solutions_view(work, source)
    assert (view / "01_x" / "01_x.ipynb").read_text() == "v2"
    assert not (view / "01_x" / "mine.ipynb").exists()
    kept = {p.name: p.read_text() for p in moved}
    assert kept == {"01_x.ipynb": "v1 with my notes", "mine.ipynb": "my own notebook"}, kept
    assert all(p.is_relative_to(work / "backups") for p in moved), moved
    # A refresh with nothing of the learner's in the view moves nothing.
    assert workspace.refresh_solutions_view(work, source)[1] == []
    for folder, _dirs, _files in os.walk(view):  # so that pytest can clean up
        os.chmod(folder, 0o755)


@pytest.mark.slow
def test_a_learners_answers_survive_a_git_pull_of_a_newer_workbook(tmp_path):
    """A learner's clone: `make lab` makes work/, the learner fills in notebook 01 there; the
    workbook then changes notebook 01 upstream. `git pull` brings the new release into
    notebooks/ and leaves work/ alone; the next `make lab` says what changed and keeps the
    answers; `make setup`'s commands never name work/."""
    upstream, learner = tmp_path / "upstream", tmp_path / "learner"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(upstream)], check=True)
    subprocess.run(["git", "clone", "-q", str(upstream), str(learner)], check=True)
    result = make("lab", "LAB_ARGS=--version", cwd=learner)
    assert result.returncode == 0, result.stdout + result.stderr
    mine = learner / "work" / NB1 / f"{NB1}.ipynb"
    answered = mine.read_text().replace("raise NotImplementedError()", "return 42", 1)
    mine.write_text(answered)

    released = upstream / "notebooks" / NB1 / f"{NB1}.ipynb"
    nb = nbformat.read(released, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("A note added in a newer workbook."))
    nbformat.write(nb, released)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "commit", "-qam", "newer workbook"], cwd=upstream, check=True)
    pulled = subprocess.run([*git, "pull", "-q"], cwd=learner, capture_output=True, text=True)
    assert pulled.returncode == 0, pulled.stderr
    assert "A note added" in (learner / "notebooks" / NB1 / f"{NB1}.ipynb").read_text()
    assert mine.read_text() == answered

    again = make("lab", "LAB_ARGS=--version", cwd=learner)
    assert again.returncode == 0, again.stdout + again.stderr
    assert mine.read_text() == answered
    assert NB1 in again.stdout.split("changed in this workbook", 1)[-1], again.stdout
    planned = subprocess.run(
        ["make", "-n", "setup", "dev-setup", f"VENV={tmp_path / 'fresh-venv'}"],
        cwd=learner,
        capture_output=True,
        text=True,
    ).stdout
    assert "pip install" in planned and "work" not in planned, planned
