"""The nbgrader settings that make `nbgrader autograde`, feedback and formgrader safe.

`apply(c)` is called at the end of `autograder/nbgrader_config.py`, so plain nbgrader
commands and `make formgrader` get it, and again by the TA command on the configuration it
loads from there (after moving the folders; calling it twice is the same as once):

- autograde executes with `SandboxedExecute` instead of nbgrader's `Execute`;
- test cells deleted by a student are added back (`OverwriteCells.add_missing_cells`);
- feedback hides the hidden tests' code and the tracebacks of failed tests;
- no student-written HTML reaches a page (`grader.feedback.NeutraliseStudentHTML`): it runs
  last in autograde, so the stored autograded notebook that formgrader and feedback read is
  already neutral, and again in every HTML export made with this configuration (feedback,
  formgrader's submission view), for notebooks graded before or by other means.
"""

from __future__ import annotations

import os


def apply(c, report_directory: str | None = None) -> None:
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute, GetGrades

    from grader.feedback import HideHiddenTests, NeutraliseStudentHTML
    from grader.preprocessors import SandboxedExecute

    current = c.Autograde.get("autograde_preprocessors")
    current = (
        list(current)
        if current
        else list(Autograde.class_traits()["autograde_preprocessors"].default())
    )
    c.Autograde.autograde_preprocessors = [
        SandboxedExecute if p is Execute else p for p in current if p is not NeutraliseStudentHTML
    ] + [NeutraliseStudentHTML]
    c.OverwriteCells.add_missing_cells = True
    c.GenerateFeedback.preprocessors = [
        GetGrades,
        HideHiddenTests,
        NeutraliseStudentHTML,
        CSSHTMLHeaderPreprocessor,
    ]
    _html_exports(c, NeutraliseStudentHTML)
    root = c.CourseDirectory.get("root") or os.getcwd()
    # the hidden cases draw from the course's secret (grader/secret.py), kept beside the
    # reference answers; the trusted test processes find it through $ATTNBOOK_AUTOGRADER
    from grader.secret import ensure_secret

    autograder = os.environ.setdefault("ATTNBOOK_AUTOGRADER", os.path.join(root, "autograder"))
    ensure_secret(autograder)
    folder = {
        name: os.path.join(root, c.CourseDirectory.get(f"{name}_directory", name))
        for name in ("source", "release")
    }
    c.SandboxedExecute.source_root = folder["source"]
    c.NeutraliseStudentHTML.source_root = folder["source"]
    c.NeutraliseStudentHTML.release_root = folder["release"]
    if "timeout" in c.Execute:
        c.SandboxedExecute.cell_timeout = float(c.Execute.timeout)
    if report_directory is not None:
        c.SandboxedExecute.report_directory = report_directory


def _html_exports(c, neutralise) -> None:
    """Every HTMLExporter built on this configuration neutralises the notebook first.

    formgrader renders a submission with its own HTMLExporter (no nbgrader converter, so
    only this reaches it); nbgrader's templates render Markdown without `clean_html`, so
    `sanitize_html` guards outputs only and the preprocessor does the real work.
    """
    current = [p for p in (c.HTMLExporter.get("preprocessors") or []) if p is not neutralise]
    c.HTMLExporter.preprocessors = [*current, neutralise]
    c.HTMLExporter.sanitize_html = True
