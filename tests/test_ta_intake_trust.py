"""The grader's intake as a trust boundary, without a kernel: every file accounted for,
students told apart by their LMS id (Unicode names kept), Windows zips, topic-named files,
size caps on what is graded, malformed uploads that cost only themselves, and a
normalisation that gives the same bytes for the same upload."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from conftest import NOTEBOOKS, ROOT
from grader import intake as intake_module
from grader.catalogue import nbgrader_meta
from grader.course import assignments
from grader.intake import collect, match_name, printable
from grader.normalize import MAX_SOURCE_BYTES, normalize
from grader.sample import load_builder

NB = "01_attention_scores"
ALL = assignments(ROOT)
SAFE_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"


@pytest.fixture(scope="module")
def build():
    return load_builder()


@pytest.fixture(scope="module")
def release():
    return nbformat.read(NOTEBOOKS / NB / f"{NB}.ipynb", 4)


@pytest.fixture(scope="module")
def solved(build):
    return build.solved(ROOT)


def grade_ids(nb) -> list[str]:
    return [nbgrader_meta(c).get("grade_id") for c in nb.cells if nbgrader_meta(c)]


def answers(nb) -> dict[str, str]:
    return {
        nbgrader_meta(c)["grade_id"]: c.source for c in nb.cells if nbgrader_meta(c).get("solution")
    }


def write_zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def by_path(intake) -> dict:
    return {f.path: f for f in intake.files}


# -- every file is accounted for --------------------------------------------------------------
def test_every_file_of_the_download_is_graded_or_ignored_with_a_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(intake_module, "MAX_RAW_BYTES", 10_000)
    nb = b'{"cells": []}'
    members = {
        f"ada_1000_5000_{NB}.ipynb": nb,
        f"ada_1000_5000_{NB}-1.ipynb": nb,  # a second file of ada: superseded
        "ben_1001_5001_notes.txt": b"forgot",
        "ben_1001_5001_Untitled.ipynb": nb,
        "cleo_1002_5002_02_positions.ipynb": nb,  # another assignment
        "dev_1003_5003_rope_and_masks.ipynb": nb,  # ambiguous
        f"eli_1004_5004_{NB}.ipynb": b"x" * 20_000,  # too big
        "__MACOSX/._ada_1000_5000_x.ipynb": b"junk",
        ".DS_Store": b"junk",
        "readme.txt": b"loose",
        f"fay_1005_5005_..\\..\\{NB}.ipynb": nb,
    }
    intake = collect(write_zip(tmp_path / "d.zip", members), ALL)
    files = by_path(intake)
    assert len(intake.files) == len(members)
    assert all(f.status in ("graded", "ignored") for f in intake.files)
    assert all(f.reason for f in intake.files if f.status == "ignored")
    graded = {f.path for f in intake.files if f.status == "graded"}
    # same age: the exact name wins
    assert graded == {f"ada_1000_5000_{NB}.ipynb", "cleo_1002_5002_02_positions.ipynb"}
    assert "superseded by" in files[f"ada_1000_5000_{NB}-1.ipynb"].reason
    assert "not a notebook" in files["ben_1001_5001_notes.txt"].reason
    assert "matches no assignment" in files["ben_1001_5001_Untitled.ipynb"].reason
    assert "ambiguous" in files["dev_1003_5003_rope_and_masks.ipynb"].reason
    assert "over the" in files[f"eli_1004_5004_{NB}.ipynb"].reason
    assert "system or hidden" in files["__MACOSX/._ada_1000_5000_x.ipynb"].reason
    assert "no student" in files["readme.txt"].reason
    assert "unsafe" in files[f"fay_1005_5005_../../{NB}.ipynb"].reason
    # the too-big upload costs only itself: eli is graded as blank, with the reason
    assert intake.uploads[("1004", NB)].refused.startswith(f"'{NB}.ipynb' is 0 MB, over")
    assert {f.student for f in intake.files if f.path.startswith("ben")} == {"1001"}
    report = json.loads(json.dumps(intake.report()))
    assert report["summary"] == {"files": 11, "graded": 2, "ignored": 9, "students": 5}


def test_links_and_fifos_in_a_folder_are_listed_never_read(tmp_path):
    """A symbolic link (to a notebook, or to a classmate's folder) and a FIFO are never read
    or followed, yet each is in the intake record with its reason, and a notebook so named
    is graded as blank saying why, as one over the size limit is."""
    import os

    (tmp_path / "ada").mkdir()
    real = tmp_path / "ada" / f"{NB}.ipynb"
    real.write_text('{"cells": []}')
    for student in ("eve", "fifo"):
        (tmp_path / student).mkdir()
    (tmp_path / "eve" / f"{NB}.ipynb").symlink_to(real)
    os.mkfifo(tmp_path / "fifo" / f"{NB}.ipynb")
    (tmp_path / "eve" / "notes.txt").symlink_to("/etc/hostname")
    (tmp_path / "linkdir").symlink_to(tmp_path / "ada", target_is_directory=True)
    intake = collect(tmp_path, [NB])
    files = by_path(intake)
    assert set(files) == {
        f"ada/{NB}.ipynb",
        f"eve/{NB}.ipynb",
        f"fifo/{NB}.ipynb",
        "eve/notes.txt",
        "linkdir",
    }
    assert files[f"ada/{NB}.ipynb"].status == "graded"
    assert files["linkdir"].reason == "a symbolic link: not read"
    assert files["eve/notes.txt"].reason == "a symbolic link: not read"
    assert files["eve/notes.txt"].student == "eve"
    for student, why in (("eve", "a symbolic link"), ("fifo", "no regular file")):
        upload = intake.uploads[(student, NB)]
        assert upload.data is None and why in upload.refused, upload.refused
    assert intake.report()["summary"]["students"] == 3


def test_a_refused_file_does_not_shadow_a_readable_one(tmp_path, monkeypatch):
    monkeypatch.setattr(intake_module, "MAX_RAW_BYTES", 10_000)
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / f"{NB}.ipynb").write_text('{"cells": []}')
    (tmp_path / "ana" / f"{NB}-2.ipynb").write_bytes(b" " * 20_000)  # newer, too big
    intake = collect(tmp_path, [NB])
    upload = intake.uploads[("ana", NB)]
    assert upload.data == b'{"cells": []}' and not upload.refused
    assert "superseded" in by_path(intake)[f"ana/{NB}-2.ipynb"].reason


# -- who is who ----------------------------------------------------------------------------
def test_lms_students_are_their_ids_with_full_unicode_names(tmp_path):
    nb = b'{"cells": []}'
    members = {
        f"张伟_2001_1_{NB}.ipynb": nb,
        f"Иван Петров_2002_2_{NB}.ipynb": nb,
        f"محمد_2003_3_{NB}.ipynb": nb,
        f"smithjane_2004_4_{NB}.ipynb": nb,
        f"smithjane_2005_5_{NB}.ipynb": nb,  # another Jane Smith: another student
        f"smithjane_LATE_2005_6_{NB}-1.ipynb": nb,  # the same one, late
        f"Zoë Ångström_77_assignsubmission_file_/{NB}.ipynb": nb,  # Moodle in one zip
    }
    intake = collect(write_zip(tmp_path / "d.zip", members), [NB])
    names = {sid: who.name for sid, who in intake.people.items()}
    assert names == {
        "2001": "张伟",
        "2002": "Иван Петров",
        "2003": "محمد",
        "2004": "smithjane",
        "2005": "smithjane",
        "77": "Zoë Ångström",
    }
    assert sorted(intake.uploads) == [(sid, NB) for sid in sorted(names)]
    assert not intake.collisions


def test_plain_folders_never_collapse_two_names(tmp_path):
    nb = '{"cells": []}'
    folders = [
        "张伟",
        "张三",
        "Иван Петров",
        "Иван Петрова",
        "محمد",
        "ada",
        "Ada",
        "O'Brien",
        "o-brien",
        "Zoë",
    ]
    for folder in folders:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / f"{NB}.ipynb").write_text(nb)
    intake = collect(tmp_path, [NB])
    assert len(intake.people) == len(folders)
    assert sorted(who.name for who in intake.people.values()) == sorted(folders)
    assert len({sid.casefold() for sid in intake.people}) == len(folders)
    for sid in intake.people:
        assert __import__("re").match(SAFE_ID, sid), sid
    # "ada" and "Ada" would be one folder on a case-insensitive disk: both graded, reported
    assert any("'ada'" in c and "'Ada'" in c for c in intake.collisions)
    ids = {who.name: sid for sid, who in intake.people.items()}
    assert ids["o-brien"] == "o-brien" and ids["O'Brien"].startswith("o-brien-")
    assert ids["张伟"].startswith("student-") and ids["Zoë"].startswith("zoe-")


def test_colliding_identities_are_both_graded_and_reported(tmp_path):
    nb = b'{"cells": []}'
    members = {
        f"1000/{NB}.ipynb": nb,  # a plain folder that happens to be an LMS id
        f"ada_1000_5000_{NB}.ipynb": b'{"cells": [], "x": 1}',
    }
    intake = collect(write_zip(tmp_path / "d.zip", members), [NB])
    assert len(intake.uploads) == 2
    assert {u.data for u in intake.uploads.values()} == set(members.values())
    assert len(intake.collisions) == 1 and "would share student id '1000'" in intake.collisions[0]
    assert all(
        "another student would have had the same id" in " ".join(u.notes)
        for u in intake.uploads.values()
    )


def test_an_id_given_in_an_earlier_run_stays_with_its_owner(tmp_path):
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / f"{NB}.ipynb").write_text("{}")
    intake = collect(tmp_path, [NB], known={"ada": "lms:5"})
    (sid,) = intake.people
    assert sid.startswith("ada-") and "earlier run" in intake.collisions[0]
    again = collect(tmp_path, [NB], known={"ada": "lms:5", sid: "folder:ada"})
    assert list(again.people) == [sid] and not again.collisions  # stable across runs


@pytest.mark.parametrize(
    ("members", "students"),
    [
        pytest.param(
            [f"Jane Smith_42_assignsubmission_file_\\{NB}.ipynb", f"ana\\sub\\{NB}.ipynb"],
            ["42", "ana"],
            id="windows separators",
        ),
        pytest.param(
            [
                f"submissions/ada_1000_5000_{NB}.ipynb",
                f"submissions/Jane Smith_42_assignsubmission_file_/{NB}.ipynb",
            ],
            ["1000", "42"],
            id="a wrapper folder around an LMS download",
        ),
    ],
)
def test_zip_layouts_that_lms_downloads_come_in(tmp_path, members, students):
    intake = collect(write_zip(tmp_path / "d.zip", dict.fromkeys(members, b"{}")), [NB])
    assert sorted(intake.uploads) == [(student, NB) for student in students]
    assert intake.people["42"].name == "Jane Smith"


def test_utf8_names_written_without_the_utf8_flag(tmp_path):
    """Most zip tools write UTF-8 names without flagging them; zipfile reads them as cp437."""
    name = f"张伟_2001_1_{NB}.ipynb"
    placeholder = "X" * len(name.encode()) + ""
    path = write_zip(tmp_path / "d.zip", {placeholder: b"{}"})
    path.write_bytes(path.read_bytes().replace(placeholder.encode(), name.encode()))
    intake = collect(path, [NB])
    assert intake.people["2001"].name == "张伟"


def test_a_zip_member_that_lies_about_its_size_is_refused(tmp_path):
    """A member whose header says 1000 bytes but that inflates to 5 MB: read up to what it
    says, then refused by its CRC; the other students are unaffected."""
    path = write_zip(
        tmp_path / "d.zip",
        {f"ada_1_1_{NB}.ipynb": b"0" * (5 * 2**20), f"ben_2_2_{NB}.ipynb": b"{}"},
    )
    raw = path.read_bytes()
    path.write_bytes(raw.replace((5 * 2**20).to_bytes(4, "little"), (1000).to_bytes(4, "little")))
    intake = collect(path, [NB])
    assert "could not be read from the download (BadZipFile" in intake.uploads[("1", NB)].refused
    assert intake.uploads[("2", NB)].data == b"{}"


def test_an_exception_name_with_terminal_controls_reaches_grades_csv_escaped(tmp_path):
    """A student's exception class named with ESC and BEL (a hostile review's) is shown in
    the `errors` column escaped: a TA who cats grades.csv sees it, her terminal runs nothing."""
    from grader.course import Course

    course = Course(root=ROOT, work=tmp_path / "work")
    report = course.work / "reports" / "01_attention_scores" / "s1" / "01_attention_scores.json"
    report.parent.mkdir(parents=True)
    report.write_text(json.dumps({"status": "complete", "errors": [[3, "Evil\x1b]0;x\x07"]]}))
    errors = course.details("s1", "01_attention_scores")["errors"]
    assert errors == "1 cell(s) raised; the first: cell 3 (Evil\\x1b]0;x\\x07)", errors


def test_printable_escapes_terminal_controls():
    assert printable("a\x1b[2Jb\u202ec\n") == "a\\x1b[2Jb\\u202ec\\n"
    assert printable("张伟 محمد\u200c") == "张伟 محمد\u200c"  # letters and ZWNJ kept


# -- which assignment ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("attention_scores.ipynb", NB),
        ("Attention Scores (1).ipynb", NB),
        ("multihead.ipynb", "05_multihead"),
        ("Multi-Head.ipynb", "05_multihead"),
        ("Transformer Block.ipynb", "06_transformer_block"),
        ("TransformerBlock_final.ipynb", "06_transformer_block"),
        ("rope-final.ipynb", "03_rope"),
        ("mask.ipynb", "04_masks"),
        ("my_positions_v2.ipynb", "02_positions"),
        ("europe.ipynb", None),
        ("Untitled.ipynb", None),
        ("01_attn_final.ipynb", NB),
    ],
)
def test_files_named_by_topic(name, expected):
    found = match_name(name, ALL)
    assert (found[0] if found else None) == expected
    if expected and not name.startswith(expected):
        assert "matched by its" in found[1]


@pytest.mark.parametrize("name", ["rope_and_masks.ipynb", "01_multihead.ipynb"])
def test_ambiguous_names_are_reported(name):
    found = match_name(name, ALL)
    assert found.assignment == "" and "ambiguous" in found.note and len(found.among) >= 2


def test_a_notebook_named_nothing_is_recognised_by_its_cells(tmp_path, solved):
    (tmp_path / "ana").mkdir()
    (tmp_path / "ana" / "homework.ipynb").write_text(nbformat.writes(solved))
    (tmp_path / "ana" / "scratch.ipynb").write_text('{"cells": []}')
    ids = {NB: set(grade_ids(solved)), "02_positions": {"x", "y"}}
    intake = collect(tmp_path, [NB, "02_positions"], grade_ids=ids)
    assert list(intake.uploads) == [("ana", NB)]
    assert "recognised as 01_attention_scores by its cells" in intake.uploads[("ana", NB)].notes[0]
    assert "matches no assignment" in by_path(intake)["ana/scratch.ipynb"].reason


# -- sizes ---------------------------------------------------------------------------------
def test_saved_plots_do_not_count_against_the_size_limit(release, solved):
    """An honest notebook with 25 MB of image outputs keeps every answer."""
    nb = copy.deepcopy(solved)
    png = "iVBORw0KGgo" + "A" * (5 * 2**20)
    for cell in [c for c in nb.cells if c.cell_type == "code"][:5]:
        cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png})]
    data = nbformat.writes(nb).encode()
    assert len(data) > 25 * 2**20
    graded, notes = normalize(data, release)
    assert answers(graded) == answers(solved) and notes == []
    assert all(not c.get("outputs") for c in graded.cells)


def test_too_much_source_is_refused_with_the_reason(release, solved):
    nb = copy.deepcopy(solved)
    nb.cells.append(nbformat.v4.new_code_cell("x = 1\n" * (MAX_SOURCE_BYTES // 6 + 10)))
    graded, notes = normalize(nbformat.writes(nb).encode(), release)
    assert answers(graded) == answers(release)
    assert "over the 5 MB limit" in notes[-1] and "blank" in notes[-1]


# -- malformed uploads ---------------------------------------------------------------------
def _mutate(solved, change) -> bytes:
    raw = json.loads(nbformat.writes(solved))
    index = next(
        i
        for i, c in enumerate(raw["cells"])
        if c["metadata"].get("nbgrader", {}).get("grade_id") == "attention"
    )
    change(raw, index)
    return json.dumps(raw).encode()


def _set(path, value):
    def change(raw, index):
        target = raw if path[0] == "nb" else raw["cells"][index if path[0] == "answer" else 0]
        for key in path[1:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


MALFORMED = {
    "nbgrader metadata is a string": (
        _set(("answer", "metadata", "nbgrader"), "x"),
        "nbgrader metadata is a str",
    ),
    "cell metadata is a list": (_set(("answer", "metadata"), []), "metadata is a list"),
    "notebook metadata is a list": (_set(("nb", "metadata"), []), None),
    "source is a number": (_set(("first", "source"), 42), "source is a int"),
    "source is a list of numbers": (_set(("first", "source"), [1, 2]), "source is a list"),
    "cells hold a number and a string": (
        lambda raw, i: raw["cells"].extend([1, "x"]),
        "is a int, not a cell",
    ),
    "a cell without cell_type": (
        lambda raw, i: raw["cells"][0].pop("cell_type"),
        "cell_type missing",
    ),
    "grade_id is a list": (
        _set(("answer", "metadata", "nbgrader", "grade_id"), ["attention"]),
        "grade_id is a list",
    ),
    "a lone surrogate in a source": (
        lambda raw, i: raw["cells"][0].__setitem__("source", "x = '\ud800'"),
        "lone surrogates",
    ),
    "cell id is a number": (_set(("first", "id"), 7), None),
    "cells is a dict": (_set(("nb", "cells"), {"a": 1}), "no list of cells"),
    "the notebook is a list": (lambda raw, i: None, None),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_upload_is_graded_as_far_as_it_can_be(release, solved, case):
    change, expected_note = MALFORMED[case]
    data = _mutate(solved, change) if case != "the notebook is a list" else b"[1, 2]"
    nb, notes = normalize(data, release)
    assert grade_ids(nb) == grade_ids(release)
    text = nbformat.writes(nb)
    text.encode("utf-8")  # no lone surrogate left to break the write
    nbformat.validate(nbformat.reads(text, 4))
    if expected_note:
        assert any(expected_note in n for n in notes), notes
    if case in (
        "source is a number",
        "a cell without cell_type",
        "cells hold a number and a string",
        "a lone surrogate in a source",
        "cell id is a number",
        "notebook metadata is a list",
        "source is a list of numbers",
    ):
        assert answers(nb) == answers(solved), "one bad cell cost the answers"


def test_invalid_utf8_and_a_byte_order_mark(release, solved):
    nb = copy.deepcopy(solved)
    nb.cells[0].source += "PLACEHOLDER"
    data = "\ufeff".encode() + nbformat.writes(nb).encode().replace(b"PLACEHOLDER", b"\xff")
    nb, notes = normalize(data, release)
    assert grade_ids(nb) == grade_ids(release) and "invalid UTF-8" in notes[0]


# -- determinism ---------------------------------------------------------------------------
def test_the_same_upload_gives_the_same_bytes(release, solved):
    student = copy.deepcopy(solved)
    student.cells.insert(0, nbformat.v4.new_code_cell("mine = 1"))
    student.cells.insert(1, nbformat.v4.new_markdown_cell("notes"))
    raw = json.loads(nbformat.writes(student))
    raw["cells"][1]["id"] = raw["cells"][0]["id"]  # a duplicated id
    del raw["cells"][2]["id"]
    data = json.dumps(raw).encode()
    first = nbformat.writes(normalize(data, release)[0])
    assert first == nbformat.writes(normalize(data, release)[0])
    assert first == nbformat.writes(normalize(bytes(data), copy.deepcopy(release))[0])
    ids = [c["id"] for c in nbformat.reads(first, 4).cells]
    assert len(set(ids)) == len(ids)


def test_the_same_upload_gives_the_same_bytes_in_another_process(release, solved, tmp_path):
    import subprocess
    import sys

    upload = tmp_path / "upload.ipynb"
    student = copy.deepcopy(solved)
    student.cells.append(nbformat.v4.new_code_cell("extra = 2"))
    upload.write_text(nbformat.writes(student))
    script = (
        "import nbformat; "
        "from grader.normalize import normalize; "
        f"r = nbformat.read({str(NOTEBOOKS / NB / (NB + '.ipynb'))!r}, 4); "
        f"print(nbformat.writes(normalize(open({str(upload)!r}, 'rb').read(), r)[0]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(outputs) == 1


# -- issue #27 item 5: a notebook's JSON is sized before it is parsed --------------------------
def _with_field(nb, text: str) -> bytes:
    """The notebook's JSON with an extra top-level field, written out as `text`."""
    raw = nbformat.writes(nb).rstrip()
    return (raw[:-1] + ', "x": ' + text + "}").encode()


def test_json_shape_counts_containers_and_values_outside_strings():
    from grader.intake import json_shape

    assert json_shape(b'{"a": [1, 2, {}], "b": "{[,,,]}"}') == (3, 6)
    assert json_shape(b'["\\"{[", {"k": "\\\\"}]') == (2, 3)


# Each text opens a string that never closes: the quoted-string pattern once restarted at every
# escaped quote and read on to the end, quadratic time (80 KB took 29 s, so 2 MB took hours). One
# such upload stopped intake before any student was graded; one such kernel reply stopped a worker.
UNCLOSED = {
    "escaped quotes": "b'\"' + b'\\\\\"' * 1_000_000",
    "escaped quotes and a last backslash": "b'\"' + b'\\\\\"' * 1_000_000 + b'\\\\'",
    "backslashes": "b'\"' + b'\\\\' * 2_000_001",
}


@pytest.mark.parametrize("text", UNCLOSED.values(), ids=list(UNCLOSED))
def test_json_shape_reads_an_unclosed_string_in_one_pass(text):
    """In a child process, so that the old pattern fails the test (by its time limit) rather
    than holding the suite: json_shape, the intake's size test and a kernel frame's parse."""
    code = (
        "from grader.wire import WireError, json_shape, parse_frame\n"
        "from grader.intake import json_too_big\n"
        f"data = {text}\n"
        "assert json_shape(data) == (0, 0), json_shape(data)\n"
        "assert not json_too_big(data)\n"
        "try:\n    parse_frame(data)\nexcept WireError as err:\n    print(err)\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'autograder'}"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "frame is not JSON" in done.stdout


def test_a_read_stops_at_its_byte_cap_and_its_deadline(tmp_path):
    """wire.read_at_most copies an untrusted file (no deadline) and reads a test process's
    outcome pipe (a deadline): all it holds up to the cap, None one byte past it, and None
    when the writer neither writes nor closes before the deadline."""
    import time

    from grader.wire import read_at_most

    opened: list[int] = []

    def piped(data: bytes, close: bool = True) -> int:
        r, w = os.pipe()
        opened.extend((r, w))
        os.write(w, data)
        if close:
            os.close(opened.pop())
        return r

    try:
        assert read_at_most(piped(b"abc"), 3, time.monotonic() + 5) == b"abc"
        assert read_at_most(piped(b"abcd"), 3, time.monotonic() + 5) is None
        start = time.monotonic()
        assert read_at_most(piped(b"ab", close=False), 3, start + 0.3) is None
        assert 0.25 < time.monotonic() - start < 5
        assert read_at_most(piped(b""), 3, start - 1) is None  # a deadline already past
    finally:
        for fd in opened:
            os.close(fd)
    path = tmp_path / "upload"
    path.write_bytes(b"x" * (3 << 20))  # more than one read of 1 MiB
    for limit, expected in ((3 << 20, path.read_bytes()), ((3 << 20) - 1, None)):
        fd = os.open(path, os.O_RDONLY)
        try:
            assert read_at_most(fd, limit) == expected
        finally:
            os.close(fd)


def test_every_solution_notebook_is_far_within_the_json_limits():
    from grader.intake import MAX_JSON_CONTAINERS, MAX_JSON_VALUES, json_shape

    for path in sorted((ROOT / "solutions").glob("*/*.ipynb")):
        containers, values = json_shape(path.read_bytes())
        assert containers < MAX_JSON_CONTAINERS // 20 and values < MAX_JSON_VALUES // 20, path


def test_a_notebook_of_millions_of_empty_objects_is_refused_unparsed(release, solved):
    """The finding: 40 million `{}` took the grade command to 3.2 GB and were graded ok. Here
    one million: refused with the reason before json.loads, graded as the blank notebook."""
    data = _with_field(solved, "[" + ",".join(["{}"] * 1_000_000) + "]")
    nb, notes = normalize(data, release)
    assert "refused notebook" in notes[-1] and "1,000,1" in notes[-1], notes
    assert "graded as the blank notebook" in notes[-1]
    assert [c.source for c in nb.cells] == [c.source for c in release.cells]
    flat = _with_field(solved, "[" + ",".join(["0"] * 6_000_000) + "]")  # values, not objects
    assert "refused notebook" in normalize(flat, release)[1][-1]


def test_a_notebook_that_is_mostly_not_cells_is_refused(release, solved):
    from grader.normalize import MAX_OUTSIDE_CELLS

    data = _with_field(solved, json.dumps("x" * (MAX_OUTSIDE_CELLS + 1)))
    nb, notes = normalize(data, release)
    assert "outside its cells" in notes[-1] and "graded as the blank notebook" in notes[-1]
    small = _with_field(solved, json.dumps("x" * 100_000))  # an honest bit of metadata
    assert not any("refused" in n for n in normalize(small, release)[1])


def test_intake_of_a_notebook_of_empty_objects_keeps_memory_bounded(tmp_path, solved):
    """Peak memory of intake and normalisation in a fresh process: 4 million `{}` (12 MB)
    cost some 300 MB parsed; sized first they cost little more than the bytes."""
    import subprocess
    import sys

    folder = tmp_path / "inbox" / "mallory"
    folder.mkdir(parents=True)
    (folder / f"{NB}.ipynb").write_bytes(
        _with_field(solved, "[" + ",".join(["{}"] * 4_000_000) + "]")
    )
    script = (
        "import resource, sys, nbformat\n"
        "from pathlib import Path\n"
        "from grader.intake import collect\n"
        "from grader.normalize import normalize\n"
        "release = nbformat.read(sys.argv[2], 4)\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"intake = collect(Path(sys.argv[1]), [{NB!r}])\n"
        f"nb, notes = normalize(intake.uploads[('mallory', {NB!r})].data, release)\n"
        "print(notes[-1][:40])\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            str(tmp_path / "inbox"),
            str(NOTEBOOKS / NB / f"{NB}.ipynb"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    note, grown_mb = done.stdout.split("\n")[:2]
    assert note.startswith("refused notebook"), note
    assert int(grown_mb) < 100, f"intake grew by {grown_mb} MB"


def test_a_wrapper_folder_around_plain_student_folders(tmp_path):
    """`Submissions/<student>/...` re-zipped: each folder under the wrapper is a student, not
    the wrapper one student whose files supersede each other."""
    members = {
        f"Submissions/alice/{NB}.ipynb": b"{}",
        f"Submissions/bob smith/{NB}/{NB}.ipynb": b"[]",
    }
    intake = collect(write_zip(tmp_path / "d.zip", members), [NB])
    named = {who.name: student for student, who in intake.people.items()}
    assert sorted(named) == ["alice", "bob smith"]
    assert intake.uploads[(named["alice"], NB)].data == b"{}"
    assert intake.uploads[(named["bob smith"], NB)].data == b"[]"


@pytest.mark.parametrize(
    ("members", "name"),
    [
        # one student's folder holding a folder per notebook
        ({f"ada/{NB}/{NB}.ipynb": b"{}", "ada/02_positions/02_positions.ipynb": b"{}"}, "ada"),
        # one Moodle student's folder with folders of their own inside
        (
            {
                f"Jane Smith_42_assignsubmission_file_/v1/{NB}.ipynb": b"{}",
                f"Jane Smith_42_assignsubmission_file_/v2/{NB}.ipynb": b"{}",
            },
            "Jane Smith",
        ),
    ],
)
def test_one_students_folders_are_not_taken_for_a_wrapper(tmp_path, members, name):
    intake = collect(write_zip(tmp_path / "d.zip", members), [NB, "02_positions"])
    assert [who.name for who in intake.people.values()] == [name]


@pytest.mark.parametrize(
    "inside",
    [
        {"ada": f"ada/{NB}.ipynb", "bob": f"bob/{NB}.ipynb"},  # plain folders, as a wrapper
        {"1000": f"ada_1000_5000_{NB}.ipynb", "2000": f"bob_2000_6000_{NB}.ipynb"},  # Canvas
    ],
)
def test_what_a_student_put_in_their_own_folder_names_no_one_else(tmp_path, inside):
    """The exchange's collected folder and a Gradescope upload: each top folder is its owner's
    own (`wrapped=False`). Folders or LMS file names inside it are the owner's files, never
    other students (a download from an LMS may sit in a wrapper; this may not)."""
    members = {f"mallory/{path}": b"{}" for path in inside.values()}
    intake = collect(write_zip(tmp_path / "d.zip", members), [NB], wrapped=False)
    assert [who.name for who in intake.people.values()] == ["mallory"]
    assert sorted(intake.uploads) == [(next(iter(intake.people)), NB)]
    wrapped = collect(write_zip(tmp_path / "e.zip", members), [NB])  # a TA's download
    assert sorted(student for student, _ in wrapped.uploads) == sorted(inside)


def test_the_exchange_grades_each_collected_folder_as_its_owners_own(tmp_path, monkeypatch):
    """`grade --from-exchange` hands grade_class the collected folder as owned: the folder of
    a student who put classmates' names inside it is not looked through."""
    import argparse

    from grader import cli, exchange
    from grader import course as course_module

    asked = []
    monkeypatch.setattr(cli, "_collect", lambda args, course: [NB])
    monkeypatch.setattr(exchange, "collected_folder", lambda course, a: tmp_path / a)
    course = course_module.Course(work=tmp_path / "work")

    def grade_class(*args, **kwargs):
        asked.append(kwargs)
        course.last_intake = object()  # what grade_class leaves after its intake
        return []

    monkeypatch.setattr(cli, "grade_class", grade_class)
    args = argparse.Namespace(student=None, workers=1, force=False, quiet=False)
    cli._grade_from_exchange(args, course, (0, 1), course_module.Progress())
    assert asked and all(k.get("owned") is True for k in asked), asked


def test_grading_the_collected_folder_by_its_path_reads_it_as_owned(tmp_path, monkeypatch):
    """The README's `grade collected/NB`: after collect took in one student, whose folder
    holds ada/ and bob/, that student is the one graded, not ada and bob."""
    from grader.course import Course, grade_class

    course = Course(work=tmp_path / "work")
    folder = course.work / "collected" / NB / "mallory"
    for name in ("ada", "bob"):
        (folder / name).mkdir(parents=True)
        (folder / name / f"{NB}.ipynb").write_text("{}")
    graded = []
    monkeypatch.setattr(Course, "grade_one", lambda self, a, s: graded.append(s) or {"ok": True})
    grade_class(course, course.work / "collected" / NB, [NB])
    assert [who.name for who in course.last_intake.people.values()] == ["mallory"]
    assert len(graded) == 1
