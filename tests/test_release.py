"""The release pipeline: notebooks/ and autograder/reference/ are exactly what
scripts/release.py makes from solutions/, and its check notices when they are not."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT


def _release_module():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_notebooks_and_references_are_not_stale():
    result = subprocess.run(
        [sys.executable, "scripts/release.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_the_check_fails_on_a_stale_notebook_or_reference(tmp_path, monkeypatch, capsys):
    release = _release_module()
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
