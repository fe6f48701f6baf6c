"""Package data of the grader (see autograder/pyproject.toml)."""
