"""One hostile-intake class through the TA's command (`python -m grader grade ZIP`).

A single LMS zip mixes Canvas files, Moodle folders (one written with Windows separators) and
a plain folder. It holds an honest full-marks student and an honest partial one, whose grades
must be exact, and around them: non-Latin names, two students of one name, a file named by
its topic, 25 MB of saved plots, an LMS id that is also a folder name, too much source, and
a dozen malformed notebooks (metadata of the wrong type, numbers for sources and cells, a
cell without a type, a list for a grade_id, a lone surrogate, invalid UTF-8). Each upload
costs only itself: every student is graded, with a status naming what was wrong.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from conftest import ROOT
from grader.sandbox import sandbox_available

SANDBOX_OK, SANDBOX_WHY = sandbox_available()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SANDBOX_OK, reason=f"no sandbox: {SANDBOX_WHY}"),
]

NB = "01_attention_scores"
FILE = f"{NB}.ipynb"


def _json(nb) -> dict:
    return json.loads(nbformat.writes(nb))


def _index(raw: dict, cell_id: str) -> int:
    return next(i for i, c in enumerate(raw["cells"]) if c.get("id") == cell_id)


def _malformed(solved) -> dict[str, tuple[bytes, float, str]]:
    """name -> (upload, expected score, what the status must say)."""
    cases = {}

    def case(name, score, says, change):
        raw = _json(solved)
        change(raw)
        cases[name] = (json.dumps(raw).encode(), score, says)

    def on(cell_id, key, value):
        return lambda raw: raw["cells"][_index(raw, cell_id)].__setitem__(key, value)

    case(
        "metastring",
        14.0,
        "nbgrader metadata is a str",
        lambda raw: raw["cells"][_index(raw, "attention")]["metadata"].__setitem__("nbgrader", "x"),
    )
    case("metalist", 14.0, "metadata is a list", on("attention", "metadata", []))
    case("nbmetalist", 14.0, "ok", lambda raw: raw.__setitem__("metadata", []))
    case("sourcenumber", 14.0, "source is a int", on("cell-003", "source", 42))
    case("cellsjunk", 14.0, "is a int, not a cell", lambda raw: raw["cells"].extend([1, "x"]))
    case(
        "notype",
        14.0,
        "cell_type missing",
        lambda raw: raw["cells"][_index(raw, "cell-000")].pop("cell_type"),
    )
    case(
        "gradeidlist",
        14.0,
        "grade_id is a list",
        lambda raw: raw["cells"][_index(raw, "attention")]["metadata"]["nbgrader"].__setitem__(
            "grade_id", ["attention"]
        ),
    )
    case(
        "surrogate",
        14.0,
        "lone surrogates",
        lambda raw: raw["cells"][_index(raw, "attention")].__setitem__(
            "source", "".join(raw["cells"][_index(raw, "attention")]["source"]) + "\n# \ud800"
        ),
    )
    case("cellsdict", 0.0, "no list of cells", lambda raw: raw.__setitem__("cells", {"a": 1}))
    case(
        "toomuch",
        0.0,
        "over the 5 MB limit",
        lambda raw: raw["cells"].append(
            _json(
                nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("# padding\n" * 600_000)])
            )["cells"][0]
        ),
    )
    marked = copy.deepcopy(solved)
    marked.cells[0].source += "PLACEHOLDER"
    cases["badutf8"] = (
        nbformat.writes(marked).encode().replace(b"PLACEHOLDER", b"\xff\xfe"),
        14.0,
        "invalid UTF-8",
    )
    return cases


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from grader.sample import load_builder

    build = load_builder()
    solved, wrong = build.solved(ROOT), build.with_mistake(ROOT, *build.MISTAKE)
    full, partial = (nbformat.writes(nb).encode() for nb in (solved, wrong))
    plots = copy.deepcopy(solved)
    for cell in [c for c in plots.cells if c.cell_type == "code"][:5]:
        cell.outputs = [
            nbformat.v4.new_output(
                "display_data", data={"image/png": "iVBORw0KGgo" + "A" * (5 * 2**20)}
            )
        ]
    members = {  # zip member -> (bytes, readable name, expected score)
        f"ada_1000_5000_{FILE}": (full, "ada", 14.0),
        f"cleo_1001_5001_{FILE}": (partial, "cleo", 11.0),
        f"张伟_2001_1_{FILE}": (full, "张伟", 14.0),
        f"Иван Петров_2002_2_{FILE}": (partial, "Иван Петров", 11.0),
        f"محمد_2003_3_{FILE}": (full, "محمد", 14.0),
        f"smithjane_2004_4_{FILE}": (full, "smithjane", 14.0),
        f"smithjane_2005_5_{FILE}": (partial, "smithjane", 11.0),
        f"Jane Smith_42_assignsubmission_file_\\{FILE}": (full, "Jane Smith", 14.0),
        "topic_2006_6_attention_scores.ipynb": (full, "topic", 14.0),
        f"plots_2007_7_{FILE}": (nbformat.writes(plots).encode(), "plots", 14.0),
        f"2008/{FILE}": (full, "2008", 14.0),  # a folder named like kim's LMS id
        f"kim_2008_8_{FILE}": (partial, "kim", 11.0),
    }
    for number, (name, (data, score, _)) in enumerate(sorted(_malformed(solved).items())):
        members[f"{name}_{3000 + number}_1_{FILE}"] = (data, name, score)
    download = tmp_path_factory.mktemp("in") / "class.zip"
    with zipfile.ZipFile(download, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, (data, _, _) in members.items():
            archive.writestr(member, data)
    work = tmp_path_factory.mktemp("work")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "autograder"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            str(download),
            "-a",
            NB,
            "--workers",
            "2",
            "--timeout",
            "30",
            "--work",
            str(work),
        ],
        cwd=ROOT / "autograder",
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    with open(work / "grades.csv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {
        "result": result,
        "rows": rows,
        "members": members,
        "work": work,
        "malformed": _malformed(solved),
    }


def test_the_class_run_ends_well(graded):
    result = graded["result"]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "FAILED" not in result.stderr and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert f"graded {len(graded['members'])} notebook(s)" in result.stdout


def test_every_student_is_graded_once_with_the_expected_score(graded):
    got = sorted((r["name"], float(r["score"])) for r in graded["rows"])
    expected = sorted((name, score) for _, name, score in graded["members"].values())
    assert got == expected
    assert len({r["student_id"] for r in graded["rows"]}) == len(graded["members"])


@pytest.mark.parametrize("name", ["ada", "cleo"])
def test_honest_students_get_exact_grades(graded, name):
    (row,) = [r for r in graded["rows"] if r["name"] == name]
    assert (row["score"], row["max_score"], row["status"]) == (
        {"ada": "14.0", "cleo": "11.0"}[name],
        "14.0",
        "ok",
    )
    assert row["student_id"] == {"ada": "1000", "cleo": "1001"}[name]


def test_lms_ids_are_the_student_ids(graded):
    ids = {r["student_id"]: r["name"] for r in graded["rows"]}
    assert ids["2001"] == "张伟" and ids["2002"] == "Иван Петров" and ids["2003"] == "محمد"
    assert ids["2004"] == ids["2005"] == "smithjane" and ids["42"] == "Jane Smith"


def test_the_collision_is_graded_twice_and_reported(graded):
    pair = {r["name"]: r for r in graded["rows"] if r["student_id"].startswith("2008-")}
    assert set(pair) == {"2008", "kim"}
    assert "another student would have had the same id" in pair["kim"]["notes"]
    assert "collision:" in graded["result"].stdout


def test_topic_named_file_is_noted(graded):
    (row,) = [r for r in graded["rows"] if r["name"] == "topic"]
    assert "matched by its topic" in row["notes"]
    assert row["status"] == "ok", row  # a harmless rename is a note, not a status


@pytest.mark.parametrize(
    "name",
    [
        "metastring",
        "metalist",
        "nbmetalist",
        "sourcenumber",
        "cellsjunk",
        "notype",
        "gradeidlist",
        "surrogate",
        "cellsdict",
        "toomuch",
        "badutf8",
    ],
)
def test_a_malformed_upload_costs_only_itself(graded, name):
    (row,) = [r for r in graded["rows"] if r["name"] == name]
    _, score, says = graded["malformed"][name]
    assert float(row["score"]) == score and says in row["status"], row


def test_the_intake_report_accounts_for_every_file(graded):
    report = json.loads((graded["work"] / "intake.json").read_text(encoding="utf-8"))
    assert len(report["files"]) == len(graded["members"])
    assert all(f["status"] == "graded" for f in report["files"])
    assert len(report["collisions"]) == 1


def test_the_class_report_adds_up_over_malformed_and_duplicate_uploads(graded):
    """The report of this class: each test's passed students and its slips' students make
    the whole class, and the partial students (weights transposed) are counted as one slip."""
    with open(graded["work"] / "reports" / NB / "class_report.csv", encoding="utf-8") as handle:
        report = list(csv.reader(handle))
    rows, n = graded["rows"], len(graded["rows"])
    failing: dict[str, int] = {}
    for row in report:
        if row[0] == "slip":
            failing[row[1]] = failing.get(row[1], 0) + int(row[3])
    assert failing, report
    for test, count in failing.items():
        passed = sum(1 for r in rows if float(r[f"{NB[:2]}:{test}"] or 0) > 0)
        assert passed + count == n, (test, passed, count, n)
    partial = sum(1 for r in rows if float(r["score"]) == 11.0)
    transposed = [r for r in report if r[:2] == ["slip", "test_attention"] and "transposed" in r[2]]
    assert len(transposed) == 1 and int(transposed[0][3]) == partial >= 4, (transposed, partial)
