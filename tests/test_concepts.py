"""Concept answers: the letter is found in the forms students write it in, and only there."""

from __future__ import annotations

import pytest

from attnbook.checks import CheckFailure
from attnbook.checks.concepts import check_choice


@pytest.mark.parametrize(
    "answer",
    [
        "B",
        "b",
        " B ",
        "(B)",
        "B)",
        "b.",
        "[B]",
        "Option B",
        "answer: b",
        "B) the keys",
        "B: because the mask blocks it",
        "'B'",
        "B\n",
        "B (one row per token)",
        "B \u2014 (4, 2)",
        "B \u2013 (4, 2)",
        "**B**",
        "`B`",
        "\u201cB\u201d",
        "B!",
        "B = (4, 2)",
        "B because Q is (4, 2)",
        "B because A would be W_Q X^T, one column per token",
        "B (the rows move with the tokens; A ignores that)",
        "B, a matrix of shape (4, 2)",
    ],
)
def test_the_letter_is_read_from_common_forms(answer, capsys):
    check_choice("answer_demo", answer, "ABC", correct="B")
    assert "correct" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer",
    [
        "D",
        "AB",
        "A or B",
        "",
        "the second one",
        "B C",
        2,
        ["B"],
        "BB",
        "B, C",
        "B/C",
        "B or C",
        "b, a",
        "B; or maybe C",
    ],
)
def test_anything_else_is_not_an_answer(answer):
    with pytest.raises(CheckFailure, match="expected one letter from"):
        check_choice("answer_demo", answer, "ABC", correct="B")


def test_a_wrong_letter_gets_the_explanation():
    with pytest.raises(CheckFailure, match=r"(?s)'A\)' is not the best answer.*Hint: keys decide"):
        check_choice("answer_demo", "A)", "ABC", correct="B", explanation="keys decide")


def test_none_means_not_answered_yet():
    with pytest.raises(NotImplementedError, match="answer_demo is still None"):
        check_choice("answer_demo", None, "ABC")


def _keyed_answers() -> dict[str, str]:
    """Every concept question's keyed letter, read from the autograder's reference modules."""
    import ast

    from conftest import ROOT

    keyed = {}
    for path in sorted((ROOT / "autograder" / "reference").glob("nb*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
                "ANSWERS"
            ]:
                keyed |= {name: key[1] for name, key in ast.literal_eval(node.value).items()}
    return keyed


def test_the_package_shows_no_keyed_concept_answer():
    """attnbook ships to every student (the kit's wheel): no file of it may show a question
    with its keyed letter (`answer_x = "B"`), in a docstring or anywhere (tests/test_kit.py
    scans the built kit as well; this runs without building it)."""
    from conftest import ROOT

    keyed = _keyed_answers()
    assert len(keyed) > 20 and set(keyed.values()) <= set("ABCDEFG"), keyed
    shown = {
        f"{path.relative_to(ROOT)}: {name} = {letter}"
        for path in (ROOT / "attnbook").rglob("*.py")
        for name, letter in keyed.items()
        for quote in "\"'"
        if f"{name} = {quote}{letter}{quote}" in path.read_text()
    }
    assert not shown, f"keyed answers in the package: {sorted(shown)}"
