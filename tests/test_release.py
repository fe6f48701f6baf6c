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


def test_a_reused_tree_is_taken_only_when_made_from_the_same_inputs(
    released_tree, tmp_path, monkeypatch
):
    """$ATTNBOOK_RELEASE_REUSE (the suite's `make release` in a clone): the script copies
    the named tree instead of running nbgrader only when the digest beside it is that of
    this checkout's inputs; a changed solution (another digest) is generated again."""
    from conftest import release_module

    module = release_module()
    tree = released_tree[0]
    monkeypatch.delenv(module.REUSE_ENV, raising=False)
    assert module.reusable_tree() is None
    monkeypatch.setenv(module.REUSE_ENV, str(tree))
    assert module.reusable_tree() == tree
    copied = tmp_path / "copied"
    module.generate(copied)
    assert sorted(p.relative_to(copied) for p in copied.rglob("*")) == sorted(
        p.relative_to(tree) for p in tree.rglob("*")
    )
    solutions = tmp_path / "solutions"  # one byte changed in one solution file
    shutil.copytree(ROOT / "solutions", solutions)
    first = sorted(solutions.glob("*/*.ipynb"))[0]
    first.write_bytes(first.read_bytes() + b"\n")
    monkeypatch.setattr(module, "SOLUTIONS", solutions)
    assert module.reusable_tree() is None


def test_the_generated_slips_are_checked_by_meaning_not_bytes(release, tmp_path, monkeypatch):
    """attnbook/checks/slips/ is stale when a slip's output moved beyond the checks' tolerance
    or a slip is missing, not when another machine's last bits differ (a release there would
    rewrite nothing)."""
    import re

    slips = tmp_path / "slips"
    slips.mkdir()
    shutil.copy(ROOT / "attnbook" / "checks" / "slips" / "nb01.py", slips)  # notebook 01 alone
    monkeypatch.setattr(release, "SLIP_DATA", slips)
    texts = {"01_attention_scores": release.reference_source("01_attention_scores")}
    assert release.write_slips(True, texts) == []
    stored = slips / "nb01.py"
    original = stored.read_text()
    number = re.compile(r"(?<=\[)(-?\d+\.\d+)(?=,)")  # the first number of each row
    first = float(number.search(original).group(1))

    nudged = number.sub(lambda m: repr(float(m.group(1)) * (1 + 1e-12)), original, count=1)
    stored.write_text(nudged)
    assert release.write_slips(True, texts) == [], "a last-bits difference counted as stale"
    release.write_slips(False, texts)
    assert stored.read_text() == nudged, "a release rewrote slips that agree within tolerance"

    stored.write_text(number.sub(repr(first + 0.5), original, count=1))
    assert release.write_slips(True, texts) == ["attnbook/checks/slips/nb01.py"]
    hint = "'use W_K for K: K = X @ W_K.T'"  # a slip's hint, as its catalogue entry gives it
    assert hint in original
    stored.write_text(original.replace(hint, "'use W_K'", 1))
    assert release.write_slips(True, texts) != [], "a changed hint did not count as stale"
