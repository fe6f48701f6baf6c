"""`python -m grader ...` from autograder/: the TA's command (see autograder/README.md)."""

from grader.cli import main

raise SystemExit(main())
