"""Words of a grading status that more than one module writes.

Its own module so that `grader.preprocessors` (nbgrader's side) and `grader.course` (the TA
command) share them without importing each other: the course imports the configuration,
which imports the preprocessors.
"""

from __future__ import annotations

FAILED = "GRADING FAILED (the grader's fault, not the student's; it is regraded next run)"

# A kernel that never ran a cell of the student's (execute.py writes it in the run report's
# status): the grader's fault, so its 0 is no grade (course.py turns it into a failed grading;
# lms.py reads it in a gradebook graded before that)
NOT_STARTED = "the kernel did not start"
