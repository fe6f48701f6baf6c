"""attnbook: the support package of the transformer workbook.

It holds what students do not write: plots, widgets, checks, the corpus and the reference
decoder. It never holds an answer to a graded exercise.
"""

__version__ = "0.1.0"
