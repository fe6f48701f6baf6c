"""nbgrader configuration of the workbook. Run nbgrader from this folder (`cd autograder`).

Layout: the instructor source is ../solutions/, the student release is ../notebooks/;
gradebook, submitted, autograded and feedback live here, outside version control.

The last line applies `grader.config.apply`: plain `nbgrader autograde`, `generate_feedback`
and `make formgrader` run student code in the sandbox (`SandboxedExecute`), hide the hidden
tests in feedback and show no student-written HTML, exactly as `python -m grader` does.
"""

import os

from grader.config import apply
from grader.preprocessors import StderrToStdout
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute

here = os.path.dirname(os.path.abspath(__file__))

c = get_config()  # noqa: F821

c.CourseDirectory.course_id = "attnbook"
c.CourseDirectory.root = os.path.dirname(here)
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "autograder/submitted"
c.CourseDirectory.autograded_directory = "autograder/autograded"
c.CourseDirectory.feedback_directory = "autograder/feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback"]

# nbgrader's exchange on a JupyterHub (release_assignment, fetch, submit, feedback): the
# folder the instructor and every student share, nbgrader's default unless ATTNBOOK_EXCHANGE
# says otherwise. Students get the same course id and folder from
# autograder/exchange/student_nbgrader_config.py (autograder/README.md, "JupyterHub").
c.Exchange.root = os.environ.get("ATTNBOOK_EXCHANGE", "/usr/local/share/nbgrader/exchange")

# Under NBGRADER_EXECUTION the heaviest cell of every notebook is its setup cell (importing
# torch and the package): 5 to 9 s on two loaded cores, the rest 2.5 s at most. A slow laptop
# or a class graded in parallel is many times slower; leave wide headroom. The learner's lab
# and the kit give Validate the same limit (scripts/learner/jupyter/, scripts/kit/jupyter/).
c.Execute.timeout = 300
c.Execute.interrupt_on_timeout = True

# A graded answer that delegates to the package's own version of its exercise
# (attnbook.lm.model.sinusoid_table for sinusoidal_positions, ...) or to the PyTorch built-in the
# exercise forbids (F.scaled_dot_product_attention, nn.LayerNorm, ...) gets this fraction of
# the test's points; the status and the feedback name the call (grader/borrowed.py).
# 0: no points (the default); 1: full points when the test passes, the borrowing only noted.
c.SandboxedExecute.borrowed_credit = 0.0

# nbgrader scores a test cell 0 as soon as anything reaches stderr. Torch and matplotlib
# warnings are not failures, so they are moved to stdout right after execution; tracebacks
# are "error" outputs, not stderr, and still fail the cell.
_defaults = list(Autograde.class_traits()["autograde_preprocessors"].default())
c.Autograde.autograde_preprocessors = (
    _defaults[: _defaults.index(Execute) + 1]
    + [StderrToStdout]
    + _defaults[_defaults.index(Execute) + 1 :]
)

# Student code is untrusted: sandboxed execution and safe feedback and formgrader pages for
# every nbgrader command run from here. Run reports go where the TA command puts them.
apply(c, report_directory=os.path.join(here, "reports"))

# nbgrader's own extension points, in the grader's formats: `nbgrader zip_collect` reads the
# LMS downloads the TA command reads, `nbgrader export` writes its grades.csv
c.ZipCollectApp.collector_plugin = "grader.nbgrader_plugins.LMSFileNames"
c.ZipCollectApp.downloaded_directory = "autograder/downloaded"  # beside submitted/
c.ExportApp.plugin_class = "grader.nbgrader_plugins.GradesCsv"

# nbgrader's own collect takes a folder named for a classmate (it only warns) and follows a
# link to any file the TA can read: on this configuration `nbgrader collect` (and
# formgrader's Collect) is refused with a pointer to `python -m grader collect`.
c.ExchangeFactory.collect = "grader.nbgrader_plugins.RefuseCollect"
# the formgrader lists the exchange on every request; without one (the LMS route) it says so once
c.ExchangeFactory.list = "grader.nbgrader_plugins.ListWithoutExchange"
