"""Checks of the concept questions: `answer_some_question = "B"` and the like.

The examples here use a made-up question name: this module ships to every student, so no
example may show a real question's keyed letter (tests/test_kit.py fails on one).
"""

from __future__ import annotations

from attnbook.checks._core import CheckFailure

PREFIXES = ("option", "answer", "choice")
PUNCTUATION = ")].:,;-(!?=/\u2013\u2014"  # \u2013, \u2014: the en and em dashes
MARKS = "'\"`*_\u2018\u2019\u201c\u201d"  # quotes (curly too) and Markdown's marks around it
LONGEST = 2000  # characters of an answer that are read; the letter comes first
HEDGES = ("or", "and", "maybe", "perhaps", "possibly", "probably", "also", "either", "nor")


def _letter(answer, options: str) -> str | None:
    """The option letter a concept answer names, or None when it names none clearly.

    "A", "(b)", "**A**", "Option A", "answer: B) because ...", "B because A is ...": one
    letter, in quotes or brackets or not, then punctuation (or, after a capital, a space) and
    any words; a second option right after it ("A or B", "a, c") names none. Read in one
    pass (no regular expression): any string, however long or odd, costs linear time."""
    if not isinstance(answer, str):
        return None
    text = answer[:LONGEST].strip().strip(MARKS).strip()
    prefix = next((p for p in PREFIXES if text[: len(p)].lower() == p), "")
    text = text[len(prefix) :].lstrip()
    text = text[1:].lstrip() if prefix and text[:1] in (":", "=", "-") else text
    text = text[1:].lstrip() if text[:1] in ("(", "[") else text
    if not text or not ("a" <= text[0].lower() <= "z"):
        return None
    letter, rest = text[0].upper(), text[1:].lstrip()
    spaced = text[0].isupper() and text[1:2].isspace()  # "B because ..."
    if rest and rest[0] not in PUNCTUATION and not spaced:
        return None
    words = "".join(c if c.isalpha() else " " for c in rest).split()
    while words and words[0].lower() in HEDGES:
        words = words[1:]
    second = words[:1] and len(words[0]) == 1 and words[0].upper() in options
    hedged = second and (words[0].isupper() or len(words) == 1)  # "B, a matrix": an article
    return letter if letter in options and not hedged else None


def check_choice(
    name: str, answer, options: str, correct: str | None = None, explanation: str = ""
) -> None:
    """Check a multiple-choice concept answer such as `answer_some_question = "B"`.

    Without `correct` (the visible test) only the form is checked; the hidden test passes the
    right letter and the explanation shown when the answer is wrong.
    """
    if answer is None:
        raise NotImplementedError(f"{name} is still None: set it to one of {list(options)}")
    letter = _letter(answer, options)
    if letter is None:
        raise CheckFailure(f"{name}: expected one letter from {list(options)}, seen {answer!r}.")
    if correct is not None and letter != correct:
        message = f"{name}: {answer!r} is not the best answer."
        if explanation:
            message += f"\nHint: {explanation}"
        raise CheckFailure(message)
    print(f"\u2713 {name}: answer recorded" + (" and correct." if correct else "."))


def check_answer(reference, name: str, answer) -> None:
    """The hidden half: compare with the letter stored in the autograder's reference module."""
    options, correct, explanation = reference.ANSWERS[name]
    check_choice(name, answer, options, correct=correct, explanation=explanation)
