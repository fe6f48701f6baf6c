"""Sharded grading with the shard taken from the scheduler (`--shard auto`).

Fast tests read the variables of a Slurm job array and of a Kubernetes Indexed Job, and
check that a bad value is refused with a message naming the variable, the expected and the
actual value. The slow test grades one class with two processes against a throwaway local
PostgreSQL, as two scheduled machines would: one runs the shipped `slurm/grade.sbatch` as a
Slurm array task whose ids do not start at 0, the other the command of the shipped
`k8s/grade-job.yaml` as pod 1 of an Indexed Job. Every student is graded exactly once, with
the expected grade.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, grader_command
from grader.shards import ShardError, from_kubernetes, from_slurm, parse_shard

AUTOGRADER = ROOT / "autograder"
NOTEBOOK = "01_attention_scores"


def slurm(task, first=0, count=4, step=None, last=None) -> dict:
    env = {
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_MIN": str(first),
        "SLURM_ARRAY_TASK_COUNT": str(count),
    }
    if step is not None:
        env["SLURM_ARRAY_TASK_STEP"] = str(step)
    if last is not None:
        env["SLURM_ARRAY_TASK_MAX"] = str(last)
    return env


@pytest.mark.parametrize(
    "env, expected",
    [
        (slurm(0), (0, 4)),
        (slurm(3), (3, 4)),
        (slurm(5, first=5, count=2, last=6), (0, 2)),  # --array=5-6: the first task is shard 0
        (slurm(6, first=5, count=2, last=6), (1, 2)),
        (slurm(14, first=10, count=3, step=2, last=14), (2, 3)),  # --array=10-14:2
    ],
)
def test_slurm_array_task_is_its_place_in_the_array(env, expected):
    assert from_slurm(env) == expected
    assert parse_shard("auto", env)[:2] == expected


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"JOB_COMPLETION_INDEX": "0", "ATTNBOOK_SHARD_COUNT": "3"}, (0, 3)),
        ({"JOB_COMPLETION_INDEX": "2", "ATTNBOOK_SHARD_COUNT": "3"}, (2, 3)),
    ],
)
def test_kubernetes_completion_index(env, expected):
    assert from_kubernetes(env) == expected
    index, count, origin = parse_shard("auto", env)
    assert (index, count) == expected and "Kubernetes" in origin


@pytest.mark.parametrize(
    "env, pieces",
    [
        (slurm("x"), ["SLURM_ARRAY_TASK_ID", "whole number", "'x'"]),
        (slurm(1, count="0"), ["SLURM_ARRAY_TASK_COUNT", ">= 1", "found 0"]),
        (slurm(2, first=3), ["SLURM_ARRAY_TASK_ID", "3, 4, ... 6", "found 2"]),
        (slurm(7, first=3), ["SLURM_ARRAY_TASK_ID", "found 7"]),
        (slurm(4, first=3, step=2), ["SLURM_ARRAY_TASK_ID", "3, 5, ... 9", "found 4"]),
        (
            slurm(4, first=1, count=3, last=9),
            ["SLURM_ARRAY_TASK_COUNT", "expected 9 tasks", "found 3"],
        ),  # --array=1,4,9: not evenly spaced
        (
            {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"},
            ["SLURM_ARRAY_TASK_MIN", "found it unset"],
        ),
        ({"JOB_COMPLETION_INDEX": "1"}, ["ATTNBOOK_SHARD_COUNT", "completions", "found it unset"]),
        (
            {"JOB_COMPLETION_INDEX": "3", "ATTNBOOK_SHARD_COUNT": "3"},
            ["JOB_COMPLETION_INDEX", "0 to 2", "found 3"],
        ),
        (
            {"JOB_COMPLETION_INDEX": "-1", "ATTNBOOK_SHARD_COUNT": "3"},
            ["JOB_COMPLETION_INDEX", ">= 0", "found -1"],
        ),
        (
            {"JOB_COMPLETION_INDEX": "0", "ATTNBOOK_SHARD_COUNT": "two"},
            ["ATTNBOOK_SHARD_COUNT", "whole number", "'two'"],
        ),
        ({}, ["--shard auto", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "found neither"]),
    ],
)
def test_bad_scheduler_values_name_the_variable_expected_and_found(env, pieces):
    with pytest.raises(ShardError) as caught:
        parse_shard("auto", env)
    for piece in pieces:
        assert piece in str(caught.value)


@pytest.mark.parametrize("value, expected", [("0/1", (0, 1)), ("2/3", (2, 3))])
def test_explicit_shard(value, expected):
    assert parse_shard(value, {"SLURM_ARRAY_TASK_ID": "x"})[:2] == expected  # env unused


@pytest.mark.parametrize("value", ["3/3", "-1/2", "1/0", "1", "a/b", "1/2/3"])
def test_bad_explicit_shard_is_refused(value):
    with pytest.raises(ShardError, match=r"--shard: expected I/N .* found"):
        parse_shard(value, {})


def test_the_command_refuses_a_bad_shard_before_grading(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(tmp_path),
            "--shard",
            "auto",
            "--work",
            str(tmp_path / "work"),
        ],
        cwd=AUTOGRADER,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JOB_COMPLETION_INDEX": "4", "ATTNBOOK_SHARD_COUNT": "4"},
    )
    assert result.returncode == 2
    assert (
        "JOB_COMPLETION_INDEX: expected 0 to 3 (ATTNBOOK_SHARD_COUNT=4), found 4" in result.stderr
    )
    assert not (tmp_path / "work").exists()


def test_a_shard_into_its_own_sqlite_gradebook_is_warned_that_the_others_are_not_there(tmp_path):
    """--shard 1/2 with the default gradebook (SQLite in the work folder): the other shard's
    grades never reach it, so its grades.csv and lms would hold half the class; the command
    says so on stderr before grading (review 10: lms then gave 0 to the other half)."""
    result = subprocess.run(
        [sys.executable, "-m", "grader", "grade", str(tmp_path / "empty"), "--shard", "1/2",
         "--work", str(tmp_path / "work")],
        cwd=AUTOGRADER, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "warning: --shard 1/2: this machine's grades go to the SQLite gradebook" in (
        result.stderr
    ), result.stderr
    assert "the other 1 shard(s)' grades will not be in it" in result.stderr
    assert "--db-url postgresql" in result.stderr


# -- the shipped scheduler files ------------------------------------------------------------
def manifest() -> dict:
    return yaml.safe_load((AUTOGRADER / "k8s" / "grade-job.yaml").read_text())


def pod_spec() -> dict:
    return manifest()["spec"]["template"]["spec"]


def test_kubernetes_manifest_is_an_indexed_job_that_passes_its_count():
    job = manifest()
    assert job["kind"] == "Job" and job["spec"]["completionMode"] == "Indexed"
    container = pod_spec()["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["ATTNBOOK_SHARD_COUNT"] == str(job["spec"]["completions"])
    assert "--shard auto" in " ".join(container["command"])


def test_slurm_script_is_an_array_that_shards_itself():
    text = (AUTOGRADER / "slurm" / "grade.sbatch").read_text()
    assert "#SBATCH --array=0-" in text and "--shard auto" in text
    result = subprocess.run(
        ["bash", "-n", str(AUTOGRADER / "slurm" / "grade.sbatch")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr


# -- two scheduled machines, one PostgreSQL gradebook ---------------------------------------
def kubernetes_command() -> list[str]:
    """The manifest's container command, as the pod runs it (the test sets its variables)."""
    command = pod_spec()["containers"][0]["command"]
    assert command[:2] == ["bash", "-c"]
    return command


@pytest.mark.slow
def test_two_scheduled_machines_grade_every_student_once(postgres_url, tmp_path):
    from grader.course import Course, gradebook_rows
    from grader.sample import load_builder
    from grader.sandbox import sandbox_available

    build = load_builder()
    sample = build.sample_class(ROOT)
    students = {s: {f"{NOTEBOOK}.ipynb": sample[s][0]} for s in ("ada", "ben", "cleo", "hal")}
    expected = {s: sample[s][1] for s in students}  # 14, 0, 11, 11
    source = build.write_lms_zip(tmp_path / "class.zip", students)
    sandbox = "auto" if sandbox_available()[0] else "none"
    common = {
        **os.environ,
        "ATTNBOOK_SOURCE": str(source),
        "ATTNBOOK_DB_URL": postgres_url,
        "ATTNBOOK_PYTHON": sys.executable,
        "ATTNBOOK_GRADE_ARGS": f"-a {NOTEBOOK} --sandbox {sandbox} --timeout 60",
    }
    slurm_env = {
        **common,
        "ATTNBOOK_WORK": str(tmp_path / "slurm"),
        **slurm(7, first=7, count=2, last=8),
        "SLURM_ARRAY_JOB_ID": "99",
        "SLURM_CPUS_PER_TASK": "1",
    }
    k8s_env = {
        **common,
        "ATTNBOOK_WORK": str(tmp_path / "k8s"),
        "JOB_COMPLETION_INDEX": "1",
        "ATTNBOOK_SHARD_COUNT": "2",
        "ATTNBOOK_WORKERS": "1",
    }
    machines = [
        subprocess.Popen(
            ["bash", str(AUTOGRADER / "slurm" / "grade.sbatch")],
            cwd=AUTOGRADER,
            env=slurm_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ),
        subprocess.Popen(
            kubernetes_command(),
            cwd=AUTOGRADER,
            env=k8s_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ),
    ]
    logs = [m.communicate(timeout=1500)[0] for m in machines]
    for machine, log in zip(machines, logs):
        assert machine.returncode == 0, log[-4000:]
    assert "shard 0/2 (from Slurm array task 7)" in logs[0]
    assert "shard 1/2 (from Kubernetes completion index 1)" in logs[1]
    graded = {}
    for name in ("slurm", "k8s"):
        folders = (tmp_path / name).rglob(f"autograded/*/{NOTEBOOK}")
        graded[name] = sorted(p.parent.name for p in folders)
    assert graded["slurm"] and graded["k8s"], graded
    lms_ids = {row: str(1000 + i) for i, row in enumerate(sorted(students))}
    assert sorted(graded["slurm"] + graded["k8s"]) == sorted(lms_ids.values())
    course = Course(root=ROOT, work=tmp_path / "export", db_url=postgres_url)
    scores = {r["name"]: r["score"] for r in gradebook_rows(course)}
    assert scores == expected
    # the class's CSV on a third machine: each row's page and status from the shard that
    # graded it (without --shard-work: no page, and "no run report in this work folder")
    shards = sorted(str(p.parent) for p in tmp_path.glob("*/**/reports"))
    assert len(shards) == 2, shards
    on_shards = ["--db-url", postgres_url, "--work", tmp_path / "export", "--shard-work", *shards]
    exported = grader_command("export", *on_shards, timeout=300)
    assert exported.returncode == 0, exported.stderr[-3000:]
    with open(tmp_path / "export" / "grades.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["name"] for r in rows) == sorted(students)
    for row in rows:
        page = (tmp_path / "export" / row["feedback"]).resolve()
        assert row["feedback"] and page.is_file(), row
        assert page.parents[3].as_posix() in shards, (page, shards)  # WORK/feedback/id/nb/
        assert "no run report" not in row["status"], row
    plain = {r["name"]: r for r in gradebook_rows(course)}
    assert all(r["feedback"] == "" and "no run report" in r["status"] for r in plain.values())
    # the class report on the third machine: one class, as if one machine had graded it
    reported = grader_command("report", "-a", NOTEBOOK, *on_shards, timeout=300)
    assert reported.returncode == 0, reported.stderr[-3000:]
    with open(tmp_path / "export" / "reports" / NOTEBOOK / "class_report.csv") as handle:
        report = list(csv.reader(handle))
    slips = {(r[1], r[2]): int(r[3]) for r in report if r[0] == "slip"}
    assert slips[("test_attention", "weights transposed")] == 2  # cleo and hal
    assert slips[("test_attention", "not answered")] == 1  # ben
    assert next(r for r in report if r[0] == "runs")[3] == "0"  # every run report found


def test_export_names_a_shard_work_folder_that_graded_nothing(tmp_path):
    done = grader_command(
        "export", "--work", tmp_path, "--shard-work", tmp_path / "task-9", timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "argument --shard-work: expected a work folder that graded notebooks" in done.stderr
    assert "task-9" in done.stderr


def test_a_student_graded_on_two_shards_gets_the_page_of_the_last_grading(tmp_path):
    """The array renumbered, or another number of machines: a student's notebook was graded
    by task-1, then again by task-2. Export reads the newer one, whichever folder is listed
    first; the older page would contradict the grade the gradebook holds."""
    import dataclasses

    from grader.course import Course, _graded_in

    nb = "01_attention_scores"
    folders = [tmp_path / "task-1", tmp_path / "task-2"]
    for stamp, work in zip((1_000_000_000, 1_100_000_000), folders):
        for path in (
            work / "state" / nb / "ada.json",
            work / "reports" / nb / "ada" / f"{nb}.json",
            work / "feedback" / "ada" / nb / f"{nb}.html",
        ):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("{}")
            os.utime(path, (stamp, stamp))
    export = Course(work=tmp_path / "export")
    for order in (folders, folders[::-1]):
        course = dataclasses.replace(export, shard_work=tuple(order))
        assert _graded_in(course, "ada", nb).work == folders[1].resolve()
    assert _graded_in(export, "ada", nb).work == export.work  # graded nowhere listed
