"""WORK/intake.json keeps one record per notebook: taking in notebook 02 after notebook 01
keeps 01's record, a new intake of 01 replaces only the files of the students it holds (a
later, smaller download keeps the others', whose grades and pages still stand), an older
single-run report is carried over, and an unreadable report is kept aside, never dropped."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from grader.course import write_intake_report
from grader.intake import collect

NB1, NB2 = "01_attention_scores", "02_positions"


def _download(folder: Path, files: dict[str, str]) -> Path:
    """A folder-per-student download: {relative path: notebook name or None for a note}."""
    for relative, kind in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = nbformat.writes(nbformat.v4.new_notebook()) if kind == "nb" else "notes"
        path.write_text(text, encoding="utf-8")
    return folder


def _take_in(tmp: Path, name: str, files: dict[str, str], assignments: list[str]) -> dict:
    source = _download(tmp / name, files)
    intake = collect(source, assignments)
    return write_intake_report(tmp / "intake.json", source, assignments, intake)


def _read(tmp: Path) -> dict:
    return json.loads((tmp / "intake.json").read_text(encoding="utf-8"))


def test_each_notebook_keeps_its_own_record(tmp_path):
    _take_in(
        tmp_path,
        "first",
        {f"ann/{NB1}.ipynb": "nb", f"bob/{NB1}.ipynb": "nb", "bob/notes.txt": "x"},
        [NB1],
    )
    first = _read(tmp_path)["notebooks"][NB1]
    assert first["summary"] == {"files": 3, "graded": 2, "ignored": 1, "students": 2}, first
    assert first["source"].endswith("first")

    _take_in(tmp_path, "second", {f"cat/{NB2}.ipynb": "nb"}, [NB2])
    report = _read(tmp_path)
    assert set(report["notebooks"]) == {NB1, NB2}
    assert report["notebooks"][NB1] == first, "taking in notebook 02 changed 01's record"
    assert report["notebooks"][NB2]["summary"]["graded"] == 1
    assert [f["student"] for f in report["notebooks"][NB2]["files"]] == ["cat"]
    # The top level is the latest run, as before.
    assert report["assignments"] == [NB2] and report["source"].endswith("second")
    assert len(report["files"]) == 1

    _take_in(tmp_path, "third", {f"dan/{NB1}.ipynb": "nb", f"bob/{NB1}.ipynb": "nb"}, [NB1])
    record = _read(tmp_path)["notebooks"][NB1]
    assert record["summary"] == {"files": 3, "graded": 3, "ignored": 0, "students": 3}, record
    # bob's file is the third download's (his notes of the first are gone with it); ann, not
    # in the third, keeps her file of the first, which says where it came from
    assert sorted((f["student"], f.get("download", "")) for f in record["files"]) == [
        ("ann", str(tmp_path / "first")),
        ("bob", ""),
        ("dan", ""),
    ]
    assert sorted(s["id"] for s in record["students"]) == ["ann", "bob", "dan"]
    assert _read(tmp_path)["notebooks"][NB2]["files"][0]["student"] == "cat"


def test_a_run_over_two_notebooks_splits_its_files(tmp_path):
    _take_in(
        tmp_path,
        "both",
        {f"ann/{NB1}.ipynb": "nb", f"ann/{NB2}.ipynb": "nb", f"bob/{NB2}.ipynb": "nb"},
        [NB1, NB2],
    )
    records = _read(tmp_path)["notebooks"]
    assert records[NB1]["summary"]["graded"] == 1 and records[NB2]["summary"]["graded"] == 2
    assert {f["assignment"] for f in records[NB2]["files"]} == {NB2}


def test_an_older_single_run_report_is_carried_over(tmp_path):
    old = {
        "source": "old.zip",
        "taken_in": "2026-01-01T00:00:00+0000",
        "assignments": [NB1],
        "files": [{"path": "a.ipynb", "size": 1, "status": "graded", "reason": "",
                   "student": "ann", "name": "Ann", "assignment": NB1}],
        "students": [{"id": "ann", "key": "folder:ann", "name": "Ann"}],
        "collisions": [],
        "summary": {"files": 1, "graded": 1, "ignored": 0, "students": 1},
    }  # fmt: skip
    (tmp_path / "intake.json").write_text(json.dumps(old), encoding="utf-8")
    _take_in(tmp_path, "new", {f"cat/{NB2}.ipynb": "nb"}, [NB2])
    records = _read(tmp_path)["notebooks"]
    assert records[NB1]["source"] == "old.zip" and records[NB1]["files"] == old["files"]
    assert records[NB2]["files"][0]["student"] == "cat"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"notebooks": 3, "files": 5}'])
def test_an_unreadable_report_is_kept_aside(tmp_path, text):
    (tmp_path / "intake.json").write_text(text, encoding="utf-8")
    _take_in(tmp_path, "new", {f"cat/{NB1}.ipynb": "nb"}, [NB1])
    assert set(_read(tmp_path)["notebooks"]) == {NB1}
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("intake.json.unreadable-")]
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == text
