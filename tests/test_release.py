"""The release pipeline: notebooks/ and autograder/reference/ are exactly what
scripts/release.py makes from solutions/, and its check notices when they are not."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT

# `release` (tests/conftest.py) is scripts/release.py whose nbgrader step copies the release
# generated once per session (`released_tree`) while solutions/ holds the same bytes.


def test_notebooks_and_references_are_not_stale(release, capsys):
    assert release.main(["--check"]) == 0, capsys.readouterr().out


@pytest.mark.slow
def test_the_check_fails_on_a_stale_notebook_or_reference(release, tmp_path, monkeypatch, capsys):
    notebooks, reference = tmp_path / "notebooks", tmp_path / "reference"
    shutil.copytree(ROOT / "notebooks", notebooks)
    shutil.copytree(ROOT / "autograder" / "reference", reference)
    monkeypatch.setattr(release, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(release, "REFERENCE", reference)
    assert release.main(["--check"]) == 0

    stored = notebooks / "01_attention_scores" / "01_attention_scores.ipynb"
    original = stored.read_text()
    stored.write_text(original.replace("Learning goals", "Learning gaols", 1))
    assert release.main(["--check"]) == 1
    assert "notebooks/ is stale" in capsys.readouterr().out
    stored.write_text(original)

    answers = reference / "nb01_attention_scores.py"
    answers.write_text(answers.read_text().replace("'ABC', 'B'", "'ABC', 'A'", 1))
    assert release.main(["--check"]) == 1
    assert "nb01_attention_scores.py" in capsys.readouterr().out
