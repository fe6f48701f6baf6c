"""The TA's tooling around nbgrader: preprocessors, the mistake catalogue, class grading."""
