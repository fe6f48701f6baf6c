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
    ],
)
def test_the_letter_is_read_from_common_forms(answer, capsys):
    check_choice("answer_demo", answer, "ABC", correct="B")
    assert "correct" in capsys.readouterr().out


@pytest.mark.parametrize(
    "answer", ["D", "AB", "A or B", "", "the second one", "B C", 2, ["B"], "BB"]
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
