"""The notebooks' demonstrations: figures, widgets and experiments, one module per
notebook, named like its checks (`attnbook.demos.nb07` beside `attnbook.checks.nb07`).
They never compute a graded answer for the learner."""
