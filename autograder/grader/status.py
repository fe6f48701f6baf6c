"""Words of a grading status that more than one module writes.

Its own module so that `grader.preprocessors` (nbgrader's side) and `grader.course` (the TA
command) share them without importing each other: the course imports the configuration,
which imports the preprocessors.
"""

from __future__ import annotations

FAILED = "GRADING FAILED (the grader's fault, not the student's; it is regraded next run)"
