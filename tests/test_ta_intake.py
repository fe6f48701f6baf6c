"""Fast tests of the grader's parts that need no kernel: LMS intake, repair, the wire format."""

from __future__ import annotations

import copy
import os
import zipfile

import nbformat
import numpy as np
import pytest
from conftest import NOTEBOOKS, SOLUTIONS
from grader import wire
from grader.catalogue import nbgrader_meta
from grader.execute import Template, rebuild_exception
from grader.intake import collect, match_assignment
from grader.normalize import normalize

NB = "01_attention_scores"
ASSIGNMENTS = [NB, "02_positions"]


@pytest.fixture(scope="module")
def release():
    return nbformat.read(NOTEBOOKS / NB / f"{NB}.ipynb", 4)


def ids(nb):
    return [nbgrader_meta(c).get("grade_id") for c in nb.cells if nbgrader_meta(c)]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (f"{NB}.ipynb", NB),
        (f"{NB}-1.ipynb", NB),
        (f"{NB} (2).ipynb", NB),
        ("01_attn_final.ipynb", NB),
        ("Untitled.ipynb", None),
        ("1_attention.ipynb", None),
    ],
)
def test_match_assignment(name, expected):
    found = match_assignment(name, ASSIGNMENTS)
    assert (found[0] if found else None) == expected


def test_canvas_zip_moodle_folder_and_plain_folder(tmp_path):
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"smithjane_1234_5678_{NB}.ipynb", "{}")
        z.writestr(f"doejohn_late_1235_5679_{NB}-1.ipynb", "{}")
        z.writestr("__MACOSX/._x.ipynb", "junk")
    intake = collect(archive, ASSIGNMENTS)
    assert sorted(intake.uploads) == [("1234", NB), ("1235", NB)]  # the LMS ids
    assert intake.people["1234"].name == "smithjane" and intake.people["1235"].name == "doejohn"
    moodle = tmp_path / "moodle" / "Jane Smith_42_assignsubmission_file_"
    moodle.mkdir(parents=True)
    (moodle / "02_positions.ipynb").write_text("{}")
    intake = collect(tmp_path / "moodle", ASSIGNMENTS)
    assert sorted(intake.uploads) == [("42", "02_positions")]
    assert intake.people["42"].name == "Jane Smith"
    plain = tmp_path / "plain"
    (plain / "ana" / NB).mkdir(parents=True)
    (plain / "ana" / NB / f"{NB}.ipynb").write_text("{}")
    (plain / "bo").mkdir()
    (plain / "bo" / "notes.txt").write_text("forgot")
    intake = collect(plain, ASSIGNMENTS)
    assert intake.students() == ["ana", "bo"] and ("bo", NB) not in intake.uploads


def test_a_students_other_files_are_in_the_notes_of_their_notebook(tmp_path):
    """Review 10: amy's notes.txt beside her notebook was in intake.json only, though the
    README says the `notes` column lists the other files a student uploaded."""
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"amy_1001_5001_{NB}.ipynb", "{}")
        z.writestr("amy_1001_5007_notes.txt", "my notes")
        z.writestr(f"bo_1002_5002_{NB}.ipynb", "{}")
    intake = collect(archive, ASSIGNMENTS)
    assert intake.uploads[("1001", NB)].notes == [
        "ignored 'amy_1001_5007_notes.txt': not a notebook (.ipynb)"
    ]
    assert intake.uploads[("1002", NB)].notes == []


def test_newest_of_two_files_wins(tmp_path):
    (tmp_path / "ana").mkdir()
    old, new = tmp_path / "ana" / f"{NB}.ipynb", tmp_path / "ana" / f"{NB}-2.ipynb"
    old.write_text("old")
    new.write_text("new")
    os.utime(old, (1, 1))
    upload = collect(tmp_path, ASSIGNMENTS).uploads[("ana", NB)]
    assert upload.data == b"new" and "several files" in upload.notes[0]


@pytest.mark.parametrize("data", [None, b"", b"not json", b'{"cells": 3}', b'{"nbformat": 4'])
def test_unreadable_is_graded_as_blank(release, data):
    nb, notes = normalize(data, release)
    assert ids(nb) == ids(release) and notes


@pytest.mark.parametrize("data, said", [(b"", "empty file (0 bytes)"),
                                        (b" \n", "empty file (white space only)")])  # fmt: skip
def test_an_empty_upload_is_said_to_be_empty_not_unreadable_json(release, data, said):
    """Review 10: a 0-byte upload's status read `unreadable notebook (JSONDecodeError:
    Expecting value: line 1 column 1 (char 0))`."""
    nb, notes = normalize(data, release)
    assert ids(nb) == ids(release)
    assert any(n.startswith(said) for n in notes) and not any("JSON" in n for n in notes)


def test_repairs_deleted_edited_duplicated_and_retyped_cells(release):
    student = copy.deepcopy(release)
    index = {g: i for i, g in enumerate(nbgrader_meta(c).get("grade_id") for c in student.cells)}
    student.cells[index["test_score_matrix"]].source = "pass"
    student.cells[index["test_attention"]].cell_type = "markdown"
    first_answer = student.cells[index["attention"]].source
    answer = copy.deepcopy(student.cells[index["attention"]])
    answer.source = "def attention(Q, K, V):\n    return 0"
    answer["id"] = "copy-of-attention"
    student.cells.insert(index["attention"] + 1, answer)
    del student.cells[index["test_softmax_rows"]]
    student.cells.append(
        nbformat.v4.new_code_cell(
            "x = 1", metadata={"nbgrader": {"grade": True, "grade_id": "free_points", "points": 99}}
        )
    )
    nb, notes = normalize(nbformat.writes(student).encode(), release)
    assert ids(nb) == ids(release)
    by_id = {nbgrader_meta(c)["grade_id"]: c for c in nb.cells if nbgrader_meta(c)}
    original = {nbgrader_meta(c)["grade_id"]: c for c in release.cells if nbgrader_meta(c)}
    for test in ("test_score_matrix", "test_attention", "test_softmax_rows"):
        assert by_id[test].source == original[test].source
        assert by_id[test].cell_type == "code"
    # as in nbgrader (DeduplicateIds), the last copy is the graded answer, the earlier one
    # runs as the student's own code
    assert by_id["attention"].source == "def attention(Q, K, V):\n    return 0"
    assert any(c.source == first_answer and not nbgrader_meta(c) for c in nb.cells)
    assert any(c.source == "x = 1" and not nbgrader_meta(c) for c in nb.cells)
    assert len(notes) == 4, notes


def test_template_takes_tests_from_the_instructor_source():
    template = Template.from_path(SOLUTIONS / NB / f"{NB}.ipynb")
    assert "BEGIN HIDDEN TESTS" in template.tests["test_attention"]
    assert template.setup and "setup(" in template.setup[0]


def test_wire_round_trip():
    import torch

    value = (
        np.arange(6.0).reshape(2, 3),
        [1, "a", None, True, 2.5],
        {"k": np.int64(3)},
        torch.ones(2, dtype=torch.float32),
        complex(1, 2),
        np.array([np.inf, -np.inf]),
    )
    back = wire.decode(wire.encode(value))
    assert np.array_equal(back[0], value[0]) and back[1] == value[1]
    assert back[2]["k"] == 3 and torch.equal(back[3], value[3]) and back[4] == value[4]
    assert np.array_equal(back[5], value[5])


@pytest.mark.parametrize(
    "junk",
    [
        {"__nd__": {"dtype": "|O", "shape": [1], "data": ""}},
        {"__nd__": {"dtype": "<f8", "shape": [10**6], "data": "AAAA"}},
        {"__evil__": 1},
        {"__tuple__": 5},
        {"a": 1, "b": 2, "c": 3},
    ],
)
def test_wire_refuses_junk(junk):
    with pytest.raises(wire.WireError):
        wire.decode(junk)


def test_wire_refuses_objects():
    with pytest.raises(wire.Unsendable):
        wire.encode(object())
    with pytest.raises(wire.Unsendable):
        wire.encode(np.array([object()]))


def test_exceptions_come_back_as_known_classes_only():
    assert type(rebuild_exception({"type": "ValueError", "message": "m"})) is ValueError
    sneaky = rebuild_exception({"type": "Evil", "module": "os", "mro": ["Evil", "KeyError"]})
    assert type(sneaky) is KeyError
    assert type(rebuild_exception({"type": "SystemExit", "mro": ["SystemExit"]})) is RuntimeError


def _stripped(nb, new_ids: bool):
    """`nb` as an editor that drops nbgrader metadata (and perhaps cell ids) saves it."""
    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("nbgrader", None)
        if new_ids:
            cell["id"] = f"fresh-{i}"
    return nb


@pytest.mark.parametrize("new_ids", [False, True], ids=["ids kept", "ids changed"])
def test_cells_that_lost_their_metadata_are_recognised(release, new_ids):
    """A filled-in notebook whose nbgrader metadata was dropped keeps every answer, in place,
    and gets the release's test cells back in their places."""
    student = copy.deepcopy(release)
    answers = {}
    for cell in student.cells:
        meta = nbgrader_meta(cell)
        if meta.get("solution"):
            cell.source = cell.source.replace("raise NotImplementedError()", "pass  # mine")
            answers[meta["grade_id"]] = cell.source
    student.cells.insert(0, nbformat.v4.new_code_cell("scratch = attention  # my notes"))
    nb, notes = normalize(nbformat.writes(_stripped(student, new_ids)).encode(), release)
    assert ids(nb) == ids(release)
    by_id = {nbgrader_meta(c)["grade_id"]: c for c in nb.cells if nbgrader_meta(c)}
    original = {nbgrader_meta(c)["grade_id"]: c for c in release.cells if nbgrader_meta(c)}
    for grade_id, cell in by_id.items():
        expected = answers.get(grade_id, original[grade_id].source)
        assert cell.source == expected, grade_id
        assert cell.metadata["nbgrader"] == original[grade_id].metadata["nbgrader"]
    assert nb.cells[0].source == "scratch = attention  # my notes"
    assert not nbgrader_meta(nb.cells[0])
    assert all("lost their nbgrader metadata" in n for n in notes), notes
    named = [g for n in notes for g in n.split(": ", 1)[1].split(", ")]
    assert sorted(named) == sorted(by_id)
    how = "cell id" if not new_ids else "the line that defines the answer"
    assert any(
        f"recognised by {how}:" in n and "attention" in n.split(": ", 1)[1].split(", ")
        for n in notes
    ), notes


def test_a_scratch_copy_does_not_steal_a_cell_that_kept_its_metadata(release):
    student = copy.deepcopy(release)
    index = {nbgrader_meta(c).get("grade_id"): i for i, c in enumerate(student.cells)}
    student.cells[index["attention"]].source = "def attention(Q, K, V):\n    return 'graded'"
    student.cells.insert(
        0, nbformat.v4.new_code_cell("def attention(Q, K, V):\n    return 'scratch'")
    )
    nb, notes = normalize(nbformat.writes(student).encode(), release)
    graded = [c for c in nb.cells if nbgrader_meta(c).get("grade_id") == "attention"]
    assert [c.source for c in graded] == ["def attention(Q, K, V):\n    return 'graded'"]
    assert nb.cells[0].source.endswith("'scratch'") and not nbgrader_meta(nb.cells[0])
    assert notes == []


def test_the_grader_skips_the_iri_grammar_and_still_validates_notebooks():
    """A grader process leaves out `rfc3987_syntax` (2 s of import for a format no notebook
    schema uses) and nbformat still refuses an invalid notebook."""
    import subprocess
    import sys

    program = (
        "import sys, grader.course, nbformat\n"
        "assert sys.modules['rfc3987_syntax'] is None, sys.modules['rfc3987_syntax']\n"
        "nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('x = 1')])\n"
        "nbformat.validate(nb)\n"
        "nb.cells[0]['cell_type'] = 'banana'\n"
        "try:\n"
        "    nbformat.validate(nb)\n"
        "except nbformat.ValidationError:\n"
        "    print('refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout == "refused\n", done.stderr[-2000:]


# -- issue #27 item 7: the LMS id is the LMS's, not the display name's ------------------------
def test_a_moodle_display_name_that_spells_another_id_does_not_take_it(tmp_path):
    """Moodle writes `_<id>_assignsubmission_file_` after the display name: a name holding
    Ada's id (`Ada Lovelace_4242_assignsubmission_file_`) is still its own student, 7777."""
    ada = tmp_path / "Ada Lovelace_4242_assignsubmission_file_"
    mallory = tmp_path / "Ada Lovelace_4242_assignsubmission_file__7777_assignsubmission_file_"
    for folder, text in ((ada, "ada"), (mallory, "mallory")):
        folder.mkdir()
        (folder / f"{NB}.ipynb").write_text(text)
    os.utime(ada / f"{NB}.ipynb", (1, 1))  # Ada's is older: a shared id would drop it
    intake = collect(tmp_path, ASSIGNMENTS)
    assert sorted(intake.uploads) == [("4242", NB), ("7777", NB)]
    assert intake.uploads[("4242", NB)].data == b"ada"
    assert intake.uploads[("7777", NB)].data == b"mallory"
    assert intake.people["7777"].name == "Ada Lovelace_4242_assignsubmission_file_"
    assert intake.collisions == [] and all(f.status == "graded" for f in intake.files)


def test_a_canvas_file_name_that_spells_another_id_does_not_take_it(tmp_path):
    """Canvas writes `<name>_<id>_<subid>_` before the student's file name (its names hold
    no `_`): a file named `x_4242_1_...` stays with the prefix's id."""
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"lovelaceada_4242_1_{NB}.ipynb", "ada")
        z.writestr(f"mallory_7777_2_x_4242_9_{NB}.ipynb", "mallory")
    intake = collect(archive, ASSIGNMENTS)
    assert sorted(intake.uploads) == [("4242", NB), ("7777", NB)]
    assert intake.uploads[("4242", NB)].data == b"ada"


def test_two_folders_of_one_lms_id_are_a_collision_naming_both(tmp_path):
    """A re-packed download where two students' folders carry one id: both are graded, each
    under an id of its own, and the collision names both folders' names."""
    for name, text in (("Ada Lovelace", "ada"), ("Mallory Meyer", "mallory")):
        folder = tmp_path / f"{name}_4242_assignsubmission_file_"
        folder.mkdir()
        (folder / f"{NB}.ipynb").write_text(text)
    intake = collect(tmp_path, ASSIGNMENTS)
    assert len(intake.uploads) == 2 and "4242" not in intake.people
    by_name = {intake.people[sid].name: intake.uploads[(sid, NB)].data for sid, _ in intake.uploads}
    assert by_name == {"Ada Lovelace": b"ada", "Mallory Meyer": b"mallory"}
    assert all(sid.startswith("4242-") for sid, _ in intake.uploads)
    text = " | ".join(intake.collisions)
    assert "LMS id 4242" in text and "'Ada Lovelace'" in text and "'Mallory Meyer'" in text
    assert all(f.status == "graded" for f in intake.files)


@pytest.mark.parametrize("kind", ["folder", "zip"])
def test_an_empty_student_folder_is_listed_like_one_without_a_notebook(tmp_path, kind):
    """Plain folders: erin's is empty, finn's holds only macOS metadata, gus's only a text
    file: each is a student with no notebook (graded blank), and the report names the
    folder; a zip lists an empty folder as an entry of its own."""
    plain = tmp_path / "class"
    (plain / "ada").mkdir(parents=True)
    (plain / "ada" / f"{NB}.ipynb").write_text("{}")
    (plain / "erin").mkdir()
    (plain / "finn").mkdir()
    (plain / "finn" / ".DS_Store").write_bytes(b"junk")
    (plain / "gus").mkdir()
    (plain / "gus" / "notes.txt").write_text("forgot")
    source = plain
    if kind == "zip":
        source = tmp_path / "class.zip"
        with zipfile.ZipFile(source, "w") as archive:
            for path in sorted(plain.rglob("*")):
                relative = path.relative_to(plain).as_posix()
                if path.is_dir():
                    archive.writestr(relative + "/", b"")
                else:
                    archive.writestr(relative, path.read_bytes())
    intake = collect(source, ASSIGNMENTS)
    assert intake.students() == ["ada", "erin", "finn", "gus"]
    assert sorted(intake.uploads) == [("ada", NB)]
    reasons = {f.path: (f.student, f.reason) for f in intake.files}
    for name in ("erin", "finn"):
        assert reasons[f"{name}/"] == (
            name,
            "an empty folder (no file, or only hidden or system files): no notebook submitted",
        )
    assert "gus/" not in reasons and reasons["gus/notes.txt"][0] == "gus"
    assert intake.report()["summary"]["students"] == 4


def test_an_empty_folder_is_nobody_where_folders_are_not_students(tmp_path):
    """A Canvas download lays each student's files flat: its folder old/ is no student. In a
    Moodle download only a folder named as Moodle names them is one (Eve's, empty); old/ is
    not. The review found old/ graded blank as a student of its own."""
    canvas = tmp_path / "canvas.zip"
    with zipfile.ZipFile(canvas, "w") as archive:
        archive.writestr(f"smithjohn_123_4567_{NB}.ipynb", "{}")
        archive.writestr(f"doeann_124_4568_{NB}.ipynb", "{}")
        archive.writestr("old/", b"")
    assert collect(canvas, ASSIGNMENTS).students() == ["123", "124"]
    moodle = tmp_path / "moodle"
    (moodle / "Ada Lovelace_501_assignsubmission_file_").mkdir(parents=True)
    (moodle / "Ada Lovelace_501_assignsubmission_file_" / f"{NB}.ipynb").write_text("{}")
    (moodle / "Eve Adams_502_assignsubmission_file_").mkdir()
    (moodle / "old").mkdir()
    intake = collect(moodle, ASSIGNMENTS)
    assert intake.students() == ["501", "502"]
    assert {f.path for f in intake.files} == {
        f"Ada Lovelace_501_assignsubmission_file_/{NB}.ipynb",
        "Eve Adams_502_assignsubmission_file_/",
    }


def test_of_two_canvas_uploads_of_one_age_the_later_attachment_wins(tmp_path):
    """Canvas names a file `<name>_<user id>_<attachment id>_<file>` and adds `-1` to a
    re-upload's name; the zip's times are when it zipped them. cleo's later upload (7003,
    `-1`) wins over the earlier one (7002), whose name is the more exact."""
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, data in [
            (f"cleo_2002_7003_{NB}-1.ipynb", "new"),
            (f"cleo_2002_7002_{NB}.ipynb", "old"),
        ]:
            z.writestr(zipfile.ZipInfo(name, date_time=(2025, 3, 1, 12, 0, 0)), data)
    intake = collect(archive, ASSIGNMENTS)
    assert intake.uploads[("2002", NB)].data == b"new"
    reasons = {f.path: f.reason for f in intake.files}
    assert reasons[f"cleo_2002_7002_{NB}.ipynb"] == (
        f"superseded by 'cleo_2002_7003_{NB}-1.ipynb' (an earlier upload: a lower Canvas "
        "attachment id)"
    )
