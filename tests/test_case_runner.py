"""The case-table runner (attnbook/checks/_cases.py): a second right form (`Case.also`), a case
of several calls (`Case.drive`), two known slips that give one output, and the hints a table
falls back on."""

from __future__ import annotations

import numpy as np
import pytest

from attnbook.checks import CheckFailure
from attnbook.checks._cases import Case, Part, Returns, call_local, fallback_hints, run_case
from attnbook.checks._core import HINT_GIVEN_LINES, HINT_NON_FINITE, CheckRun, Mistake
from attnbook.tolerance import Tolerance

SQUARES = Case("squares", "squares([1, 2, 3])", ([1.0, 2.0, 3.0],), expect=np.array([1, 4, 9.0]))


def _run(fn, case: Case, slips=()):
    run = CheckRun(fn)
    return run, run_case(run, case, slips)


def test_a_second_right_form_passes_and_a_wrong_output_still_fails():
    """`also` accepts one other right answer (here the squares reversed), nothing else."""
    case = Case(
        "squares", "squares([1, 2, 3])", ([1.0, 2.0, 3.0],), expect=np.array([1, 4, 9.0]),
        also=lambda xs: np.array([x * x for x in xs])[::-1],
    )  # fmt: skip
    _run(lambda xs: np.array([x * x for x in xs]), case)
    _run(lambda xs: np.array([x * x for x in xs])[::-1], case)
    with pytest.raises(CheckFailure, match="wrong values"):
        _run(lambda xs: np.array([x * x for x in xs]) + 1, case)


class Tally:
    """A stand-in for a model: state that the checked function changes, as training does."""

    def __init__(self, items: list) -> None:
        self.items = list(items)


def _count_up(step, start: int, calls: int):
    """Call the function `calls` times, each on what the last call left: the values it
    returned and the items at the end."""
    tally, values = Tally([start]), []
    for _ in range(calls):
        value, (tally,) = step(tally)
        values.append(value)
    return np.array(values, dtype=float), np.array(tally.items, dtype=float)


def _append_next(tally: Tally) -> int:
    tally.items.append(tally.items[-1] + 1)
    return len(tally.items)


COUNTS = Returns((Part("counts", 0), Part("items", 1)), hint="return the count")


def test_a_driven_case_runs_its_calls_in_turn_on_what_the_last_one_left():
    case = Case("three", "three calls from [5]", (5, 3), drive=_count_up, returns=COUNTS,
                expect=(np.array([2, 3, 4.0]), np.array([5, 6, 7, 8.0])))  # fmt: skip
    run, seen = _run(_append_next, case)
    assert [list(s) for s in seen] == [[2, 3, 4], [5, 6, 7, 8]]
    assert call_local(_append_next, case)[1].tolist() == [5, 6, 7, 8]  # the release's way too
    assert case.args == (5, 3)  # the case's own inputs are untouched


def test_a_driven_case_names_the_slip_its_calls_add_up_to():
    def forgets_the_last(tally: Tally) -> int:  # appends, but counts one too few
        tally.items.append(tally.items[-1] + 1)
        return len(tally.items) - 1

    case = Case("three", "three calls from [5]", (5, 3), drive=_count_up, returns=COUNTS,
                expect=(np.array([2, 3, 4.0]), np.array([5, 6, 7, 8.0])), whole=True)  # fmt: skip
    slip = Mistake("the count one short", (np.array([1, 2, 3.0]), None), "count the new item")
    with pytest.raises(CheckFailure, match="known mistake: the count one short"):
        _run(forgets_the_last, case, [slip])


@pytest.mark.parametrize("whole", [False, True])
def test_two_slips_with_one_output_are_both_named_with_both_hints(whole):
    """Where two known slips of different hints give the same output on a case, the check
    cannot tell which one it saw: it names both, not the first one listed."""
    case = Case("squares", "squares([1, 2, 3])", ([1.0, 2.0, 3.0],),
                expect=np.array([1, 4, 9.0]), whole=whole)  # fmt: skip
    slips = [
        Mistake("doubled", np.array([2, 4, 6.0]), "square, do not double"),
        Mistake("added to itself", np.array([2, 4, 6.0]), "x * x, not x + x"),
        Mistake("cubed", np.array([1, 8, 27.0]), "square, do not cube"),
    ]
    with pytest.raises(CheckFailure) as failure:
        _run(lambda xs: np.array([2 * x for x in xs]), case, slips)
    text = str(failure.value)
    assert "each of these known mistakes gives here: doubled; added to itself" in text
    assert "square, do not double. Or: x * x, not x + x" in text
    assert "cube" not in text
    with pytest.raises(CheckFailure) as failure:  # one slip alone is named alone
        _run(lambda xs: np.array([x**3 for x in xs]), case, slips)
    assert "known mistake: cubed" in str(failure.value)
    assert "Or:" not in str(failure.value)


def test_the_fallback_hints_are_the_cases_own_not_their_slips():
    case = Case("squares", "squares([1, 2, 3])", ([1.0],), expect=np.array([1.0]),
                hint="square each number", shape_hint="one number per input",
                crash_hints=(("TypeError", "pass a list"),))  # fmt: skip
    assert fallback_hints([case, SQUARES]) == {
        "square each number", "one number per input", "pass a list", HINT_NON_FINITE,
    }  # fmt: skip


def test_the_runners_own_fallbacks_are_listed_and_given():
    """A case that must raise falls back on the given lines' hint, a finite one on the
    non-finite hint: both are listed with the table's fallbacks, and both are what a wrong
    answer that no slip names is told."""
    raising = Case("empty", "squares([])", ([],), raises=ValueError, mentions=("empty",))
    assert HINT_GIVEN_LINES in fallback_hints([raising])
    assert HINT_NON_FINITE in fallback_hints([SQUARES])
    assert HINT_GIVEN_LINES not in fallback_hints([SQUARES])
    with pytest.raises(CheckFailure) as failure:
        _run(lambda xs: np.array([x * x for x in xs]), raising)
    assert HINT_GIVEN_LINES in str(failure.value)
    with pytest.raises(CheckFailure) as failure:
        _run(lambda xs: np.array([x * x for x in xs]) * np.inf, SQUARES)
    assert HINT_NON_FINITE in str(failure.value)


def test_a_short_output_of_the_wrong_length_shows_both_values():
    """Token ids one too few: the message says which, not only the two shapes."""
    with pytest.raises(CheckFailure) as failure:
        _run(lambda xs: np.array([x * x for x in xs])[:2], SQUARES)
    text = str(failure.value)
    assert "returned shape (2,); expected (3,)" in text
    assert "[1., 4., 9.]" in text and "[1., 4.]" in text
    big = Case("big", "squares(range(40))", (list(range(40)),), expect=np.arange(40.0) ** 2)
    with pytest.raises(CheckFailure) as failure:  # a long output: the shapes alone
        _run(lambda xs: np.array(xs[:39], dtype=float) ** 2, big)
    assert "seen" not in str(failure.value)


def test_values_that_differ_past_four_digits_are_shown_apart_and_counts_whole():
    """A float32 rounding beyond the tolerance, or a count one parameter short: the message
    shows the two numbers with enough digits to tell them apart, a count as a whole number."""
    close = Case("close", "near([0.0246])", ([0.0246],), expect=np.array([0.0246, 1.0]),
                 tolerance=Tolerance(rtol=1e-12, atol=1e-12))  # fmt: skip
    with pytest.raises(CheckFailure) as failure:
        _run(lambda xs: np.array([xs[0] + 1e-8, 1.0]), close)
    assert "expected 0.0246, seen 0.02460001" in str(failure.value)
    count = Case("count", "count(3)", (3,), expect=124_490_065, scalar=True,
                 tolerance=Tolerance(rtol=0.0, atol=0.0), what="count")  # fmt: skip
    with pytest.raises(CheckFailure) as failure:
        _run(lambda n: 124_462_417.0, count)
    assert "expected 124490065\n  seen     124462417" in str(failure.value)
    one = Case("one", "one(3)", (3,), expect=0.0246, scalar=True,
               tolerance=Tolerance(rtol=1e-12, atol=1e-12))  # fmt: skip
    with pytest.raises(CheckFailure) as failure:
        _run(lambda n: 0.02460001, one)
    assert "to more digits: expected 0.0246, seen 0.02460001" in str(failure.value)
