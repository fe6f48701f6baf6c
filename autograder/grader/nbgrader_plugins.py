"""The grader's formats at nbgrader's own extension points, so plain nbgrader speaks them too.

- `LMSFileNames`, a `zip_collect` file-name processor: `nbgrader zip_collect NN_topic` reads
  a Canvas, Moodle or per-student-folder download (`downloaded/NN_topic/archive/`) with the
  same rules as the TA command's intake (`grader.intake`): the student is their LMS id, the
  notebook is matched by its name, number or topic.
- `ListWithoutExchange`, nbgrader's exchange listing (`ExchangeFactory.list`): on the LMS route
  there is no exchange folder, and the formgrader asks for one on every request; it is said
  once, at INFO level, not as a CRITICAL line per request.
- `GradesCsv`, an export plugin: `nbgrader export` writes the TA command's `grades.csv`
  (`grader.course.export_csv`: readable names, status, manual flags, one column per test).

`nbgrader_config.py` selects both; `python -m grader` uses the same functions. What plain
nbgrader still lacks is the intake's view of the whole download (collisions between
students, superseded files, the report of ignored files), which needs every file at once.
"""

from __future__ import annotations

import os
from pathlib import Path

from nbgrader.exchange.abc import ExchangeError
from nbgrader.exchange.default import ExchangeCollect, ExchangeList
from nbgrader.plugins import ExportPlugin, FileNameCollectorPlugin
from traitlets import Unicode

from grader.intake import _identity, match_name


class LMSFileNames(FileNameCollectorPlugin):
    """Who handed in a file of an extracted LMS download, and which notebook it is."""

    named_regexp = Unicode("(unused: the LMS layouts of grader.intake)").tag(config=True)

    def collect(self, submitted_file: str) -> dict | None:
        if not submitted_file.lower().endswith(".ipynb"):
            return None
        app = self.parent
        extracted = Path(app._format_collect_path(app.extracted_directory))
        relative = Path(submitted_file).resolve().relative_to(extracted.resolve())
        parts = [p for p in relative.as_posix().replace("\\", "/").split("/") if p]
        archives = Path(app._format_collect_path(app.archive_directory))
        if len(parts) > 1 and any(a.name.split(".")[0] == parts[0] for a in archives.iterdir()):
            parts = parts[1:]  # the folder zip_collect made for the archive it extracted
        if ".." in parts or any(p.startswith((".", "__MACOSX")) for p in parts):
            return None
        found = _identity(parts)
        if found is None:
            return None
        who, filename = found
        assignment = app.coursedir.assignment_id
        matched = match_name(filename, [assignment])
        if matched is None or matched.assignment != assignment:
            self.log.warning("%s matches no notebook of %s: skipped", relative, assignment)
            return None
        return {
            "student_id": who.natural_id(),
            "file_id": f"{assignment}.ipynb",
            "first_name": who.name,
            "timestamp": None,
        }


class GradesCsv(ExportPlugin):
    """`nbgrader export` as the TA command's grades.csv."""

    def export(self, gradebook) -> None:
        from grader.course import Course, export_csv

        coursedir = self.parent.coursedir
        root = Path(coursedir.root)
        work = (root / coursedir.submitted_directory).parent
        course = Course(root=root, work=work, db_url=coursedir.db_url)
        path = Path(self.to or work / "grades.csv")
        export_csv(course, path if path.is_absolute() else Path(os.getcwd()) / path)
        self.log.info("Wrote %s", path)


COLLECT_REFUSED = (
    "nbgrader collect is refused for this course: it copies a submission folder named for a "
    "classmate (it only warns) and follows a link to a file the TA can read (the "
    "solutions). Collect with `python -m grader collect -a ASSIGNMENT` (or `python -m grader "
    "grade --from-exchange -a ASSIGNMENT`), which takes a folder only from the student who "
    "owns it and follows no link (autograder/README.md, JupyterHub with nbgrader's exchange)."
)


class RefuseCollect(ExchangeCollect):
    """nbgrader's collect (`nbgrader collect`, formgrader's Collect button) on this
    configuration (`ExchangeFactory.collect`): refused, with a pointer to the grader's."""

    def start(self):
        self.log.error(COLLECT_REFUSED)
        raise ExchangeError(COLLECT_REFUSED)

    def init_src(self):
        raise ExchangeError(COLLECT_REFUSED)

    def init_dest(self):
        raise ExchangeError(COLLECT_REFUSED)

    def copy_files(self):
        raise ExchangeError(COLLECT_REFUSED)


_NO_EXCHANGE_SAID: set[str] = set()


class ListWithoutExchange(ExchangeList):
    """nbgrader's list, which the formgrader runs on every request to learn what was released
    (`ExchangeFactory.list`). Where the exchange folder does not exist (the LMS route: grades
    come from a download, not from nbgrader's exchange) it says so once per process, at INFO
    level, and the formgrader shows the notebooks as drafts, as nbgrader does for a missing
    exchange. An exchange that exists but cannot be written is still nbgrader's error."""

    def ensure_root(self):
        if not os.path.exists(self.root):
            if self.root not in _NO_EXCHANGE_SAID:
                _NO_EXCHANGE_SAID.add(self.root)
                self.log.info(
                    "No nbgrader exchange at %s: fine on the LMS route (grades from a download); "
                    "for a JupyterHub course set ATTNBOOK_EXCHANGE (autograder/README.md)",
                    self.root,
                )
            raise ExchangeError(f"no exchange folder at {self.root}")
        super().ensure_root()
