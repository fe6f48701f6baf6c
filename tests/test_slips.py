"""The known slips come from the mistake catalogue: `make release` runs every catalogued
mistake on the visible cases of the checks (attnbook/checks/slips/, generated) and writes
the mistakes into the private reference for the hidden trials (scripts/release.py)."""

from __future__ import annotations

import importlib
import sys
import types

import numpy as np
import pytest
from conftest import ROOT

from attnbook.checks import CheckFailure
from attnbook.checks._core import as_array
from attnbook.grading import load_reference

sys.path.insert(0, str(ROOT / "scripts"))
release = importlib.import_module("release")

NOTEBOOK = "01_attention_scores"


@pytest.fixture(scope="module")
def reference_namespace() -> dict:
    """The reference of notebook 01 with its resolved mistakes, as the release generates it."""
    namespace = types.ModuleType("reference_nb01").__dict__
    exec(compile(release.reference_source(NOTEBOOK), "<reference>", "exec"), namespace)
    return namespace


def test_a_mistake_that_no_visible_case_tells_apart_fails_the_release(reference_namespace):
    namespace = dict(reference_namespace)
    namespace["SLIPS"] = {
        **namespace["SLIPS"],
        "score_matrix": [("a rewrite, not a slip", "its hint", namespace["score_matrix"])],
    }
    with pytest.raises(release.UntoldSlip, match=r"add a case\):\n  score_matrix: 'a rewrite"):
        release.slip_data(NOTEBOOK, namespace)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # mistakes that overflow, on purpose
def test_the_stored_slips_are_wrong_outputs_of_their_mistakes(reference_namespace):
    """Each stored output is what its mistake returns on that visible case, and differs from
    the reference's there: the data holds no right answer (parts it gets right are None)."""
    from attnbook.checks import nb01
    from attnbook.checks._cases import case_tolerance
    from attnbook.checks.slips.nb01 import SLIPS

    mutants = {
        (function, name): fn
        for function, rows in reference_namespace["SLIPS"].items()
        for name, _, fn in rows
    }
    cases = {(f, c.id): c for f, table in nb01.CASES.items() for c in table}
    count = 0
    for function, by_case in SLIPS.items():
        for case_id, rows in by_case.items():
            case = cases[function, case_id]
            right = reference_namespace[function](*case.args)
            for name, _, output in rows:
                wrong = mutants[function, name](*case.args)
                parts = output if isinstance(output, tuple) else (output,)
                rights = right if isinstance(right, tuple) else (right,)
                wrongs = wrong if isinstance(wrong, tuple) else (wrong,)
                for stored, r, w in zip(parts, rights, wrongs, strict=True):
                    tol = case_tolerance(case, r)
                    a, b = as_array(w), as_array(r)  # a whole slip may have another shape
                    same = a.shape == b.shape and np.allclose(a, b, rtol=tol.rtol, atol=tol.atol)
                    if stored is None:
                        assert same, f"{function}: {name!r}: a wrong part stored as None"
                        continue
                    assert not same, f"{function}: {name!r} on {case_id!r} stores a right answer"
                    assert np.allclose(
                        as_array(stored), as_array(w), rtol=tol.rtol, atol=tol.atol, equal_nan=True
                    )
                count += 1
    assert count > 30, count


@pytest.mark.parametrize("secret", ["", *(f"course {k}" for k in range(24))])
def test_a_hidden_trial_names_the_slip_through_the_private_mistakes(secret, monkeypatch):
    """Right on every visible case, scaled by the number of queries elsewhere: only a hidden
    trial tells, and it names the slip because the reference carries the mistake, whatever
    the course's secret draws (a 1-query trial, where this slip is no scaling at all, is not
    the one reported)."""
    from attnbook.checks import check_score_matrix, nb01

    monkeypatch.setenv("ATTNBOOK_HIDDEN_SECRET", secret)

    reference = load_reference(NOTEBOOK)
    (slip,) = [fn for name, _, fn in reference.SLIPS["score_matrix"] if "number of tokens" in name]
    visible = [c.args[0].tobytes() for c in nb01.SCORE_CASES]

    def score_matrix(Q, K):
        Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
        if Q.tobytes() in visible:
            return reference.score_matrix(Q, K)
        return Q @ K.T / np.sqrt(len(Q))

    check_score_matrix(score_matrix)  # the visible cases pass
    with pytest.raises(CheckFailure) as named:
        check_score_matrix(score_matrix, reference=reference.score_matrix)
    assert "(seed" in str(named.value) and "known mistake: scaled by the wrong dimension" in str(
        named.value
    )
    assert nb01.HINT_SCALED_BY_TOKENS in str(named.value)
    with pytest.raises(CheckFailure) as plain:  # a reference without its mistakes names none
        check_score_matrix(score_matrix, reference=lambda Q, K: reference.score_matrix(Q, K))
    assert "known mistake" not in str(plain.value)


def test_a_slip_whose_output_holds_nan_is_stored_and_named():
    """A wrong program that returns NaN (0 / 0 on a row with nothing kept, say) is written
    into the generated data as NaN, read back, and named when a learner's output has NaN in
    the same places; an output with NaN elsewhere gets only the finiteness message."""
    from attnbook.checks._cases import Case, run_case
    from attnbook.checks._core import CheckRun, Mistake

    slip = np.array([[0.5, 0.5], [np.nan, np.nan]])
    rows = {"f": {"c": [("0 / 0", "give an empty row zeros", slip)]}}
    namespace: dict = {}
    exec(compile(release.slip_source("01_attention_scores", rows), "<slips>", "exec"), namespace)
    ((name, hint, stored),) = namespace["SLIPS"]["f"]["c"]
    assert np.array_equal(np.isnan(np.asarray(stored)), np.isnan(slip))

    case = Case("c", "f(x)", (np.ones(2),), expect=np.array([[0.5, 0.5], [0.0, 0.0]]))
    slips = [Mistake(name, stored, hint)]
    with pytest.raises(CheckFailure) as named:
        run_case(CheckRun(lambda x: slip.copy()), case, slips)
    assert "known mistake: 0 / 0" in str(named.value)
    assert "give an empty row zeros" in str(named.value)
    other = np.array([[np.nan, 0.5], [0.0, 0.0]])
    with pytest.raises(CheckFailure) as plain:
        run_case(CheckRun(lambda x: other.copy()), case, slips)
    assert "known mistake" not in str(plain.value) and "non-finite" in str(plain.value)


@pytest.mark.parametrize("module", ["nb01", "nb05", "nb10"])
def test_a_stored_slip_carries_the_hint_of_its_catalogue_entry(module):
    """What a check names from the generated data is the catalogue entry's own hint (or the
    detector it names), word for word: one home for each slip's text."""
    from grader.catalogue import load_catalogue

    from attnbook.checks._cases import Slips

    notebook = {"nb01": "01_attention_scores", "nb05": "05_multihead", "nb10": "10_modern_decoder"}
    hints = {(v.cell, v.name): v.hint for v in load_catalogue(notebook[module]).MISTAKES}
    data = importlib.import_module(f"attnbook.checks.slips.{module}").SLIPS
    named = [
        (function, mistake)
        for function, cases in data.items()
        for case_id in cases
        for mistake in Slips(module).visible(function, case_id)
    ]
    assert len(named) > 20, named
    wrong = [(f, m.name) for f, m in named if hints.get((f, m.name)) != m.hint]
    assert not wrong, wrong


def test_two_slips_that_agree_where_v_is_2k_are_named_apart():
    """A top-k threshold from torch.kthvalue keeps V - k + 1 tokens, one read at index k keeps
    k + 1: the same output on the worked top_k = 2 of V = 4. A visible case with V != 2k comes
    first, so each learner reads their own slip's hint and not the other's."""
    from conftest import run_mistake
    from grader.catalogue import apply_variant, load_catalogue, solution_notebook

    entries = {v.name: v for v in load_catalogue("08_generation").MISTAKES}
    kth = entries["top-k threshold from torch.kthvalue (the k-th SMALLEST)"]
    k_plus_one = entries["top-k keeps k + 1 (sorted values indexed at k)"]
    for mine, other in ((kth, k_plus_one), (k_plus_one, kth)):
        run = run_mistake(apply_variant(solution_notebook("08_generation"), mine), mine.test)
        assert mine.hint in run.text and other.hint not in run.text, run.text
