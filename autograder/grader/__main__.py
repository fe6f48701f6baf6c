"""`python -m grader`: the TA command (see grader/cli.py)."""

import os
import sys

from grader import cgroups
from grader.cli import main
from grader.sandbox import UID_BASE_ENV, new_uid_base

# One block of throwaway user ids per run, inherited by its workers: runs side by side on
# one machine never share a sandbox id.
os.environ.setdefault(UID_BASE_ENV, str(new_uid_base()))
cgroups.run_token()  # and one token naming its control groups ($ATTNBOOK_CGROUP_RUN)
sys.exit(main())
