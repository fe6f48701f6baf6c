"""The nbgrader settings that make `nbgrader autograde` and `generate_feedback` safe.

`apply(c)` is called by the TA command on the configuration it loads from
`autograder/nbgrader_config.py`; calling it at the end of that file gives plain nbgrader
commands the same behaviour:

- autograde executes with `SandboxedExecute` instead of nbgrader's `Execute`;
- test cells deleted by a student are added back (`OverwriteCells.add_missing_cells`);
- feedback hides the hidden tests' code and the tracebacks of failed tests.
"""

from __future__ import annotations

import os


def apply(c, report_directory: str | None = None) -> None:
    from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute, GetGrades

    from grader.preprocessors import HideHiddenTests, SandboxedExecute

    current = c.Autograde.get("autograde_preprocessors")
    current = list(current) if current else list(
        Autograde.class_traits()["autograde_preprocessors"].default())
    c.Autograde.autograde_preprocessors = [SandboxedExecute if p is Execute else p
                                           for p in current]
    c.OverwriteCells.add_missing_cells = True
    c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
    root = c.CourseDirectory.get("root") or os.getcwd()
    c.SandboxedExecute.source_root = os.path.join(root,
                                                  c.CourseDirectory.get("source_directory",
                                                                        "source"))
    if "timeout" in c.Execute:
        c.SandboxedExecute.cell_timeout = float(c.Execute.timeout)
    if report_directory is not None:
        c.SandboxedExecute.report_directory = report_directory
