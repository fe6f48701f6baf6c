"""`python -m grader`: the TA command (see grader/cli.py, whose `main` also draws the run's
throwaway ids and control-group token, as the `attnbook-grader` script runs it)."""

import sys

from grader.cli import main

sys.exit(main())
