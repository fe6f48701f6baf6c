"""``python -m attnbook``: the same as the ``attnbook`` command."""

from attnbook.cli import run

if __name__ == "__main__":
    run()
