"""Hidden cases draw their inputs from the course's secret, not from the kit's fixed seeds.

The check library is public, so a hidden case drawn from a fixed seed is public too: run at
home with the package's own functions as the reference, a check records every input the
grader would send. With a course secret (`attnbook.grading.hidden_secret`, which the grader
supplies), `attnbook.checks._core.hidden_seed` draws other inputs; without one (the kit) it
draws the practice cases, which the grader never sends.
"""

from __future__ import annotations

import functools
import importlib
import os
import stat

import numpy as np
import pytest
from conftest import ROOT
from grader.catalogue import apply_variant, load_catalogue, run_graded_cells, solution_notebook
from grader.secret import ensure_secret

from attnbook.checks._core import HIDDEN_STRIDE, hidden_range, hidden_seed
from attnbook.grading import (
    AUTOGRADER_ENV,
    SECRET_ENV,
    SECRET_FILE,
    SUBMISSION_ENV,
    hidden_secret,
)

SECRETS = ("course-a", "course-b", "3f9c0e17d2")

# The notebooks whose checks take plain arrays and numbers, so that every input a check
# sends can be written down as bytes: 01 (random draws per trial, `hidden_range`), 02 and 03
# (one generator drawn from `hidden_seed` for all trials, and sizes drawn from it), 04 (masks:
# lengths and sizes drawn at random) and 09 (random draws per trial, then large inputs and a
# scalar state). Notebooks 05 to 11 draw their hidden cases through the same two functions
# (test_every_hidden_loop_draws_from_the_secret below reads that from their source).
RECORDED = {
    "01_attention_scores": "nb01",
    "02_positions": "nb02",
    "03_rope": "nb03",
    "04_masks": "nb04",
    "09_beyond": "nb09",
}


def _fingerprint(value) -> object:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype), value.tobytes())
    if isinstance(value, list | tuple):
        return (type(value).__name__, *(_fingerprint(v) for v in value))
    return ("value", repr(value))


def _record(check, function, reference=None) -> set:
    """The inputs (as bytes) of every call `check` makes to the graded function."""
    seen: set = set()

    @functools.wraps(function)
    def recording(*args, **kwargs):
        seen.add(_fingerprint((args, sorted(kwargs.items()))))
        return function(*args, **kwargs)

    if reference is None:
        check(recording)
    else:
        check(recording, reference=reference)
    return seen


def _checks():
    from attnbook.grading import load_reference

    for notebook, module_name in RECORDED.items():
        module = importlib.import_module(f"attnbook.checks.{module_name}")
        reference = load_reference(notebook)
        for name in module.__all__:
            if name.startswith("check_"):
                function = getattr(reference, name.removeprefix("check_"))
                yield pytest.param(getattr(module, name), function, id=f"{module_name}.{name}")


@pytest.fixture
def no_secret(monkeypatch):
    """As in the kit: no grader, no secret."""
    monkeypatch.delenv(SECRET_ENV, raising=False)
    monkeypatch.delenv(AUTOGRADER_ENV, raising=False)
    assert hidden_secret() is None


@pytest.mark.parametrize(("check", "function"), list(_checks()))
def test_the_hidden_cases_send_no_input_the_kit_can_produce(
    check, function, no_secret, monkeypatch
):
    visible = _record(check, function)
    kit = _record(check, function, reference=function)  # the kit, the package as reference
    assert kit - visible, "the check has no hidden cases to compare"
    for secret in SECRETS:
        monkeypatch.setenv(SECRET_ENV, secret)
        graded = _record(check, function, reference=function)
        hidden = graded - visible
        assert len(hidden) >= len(kit - visible) // 2, f"secret {secret!r}: too few hidden cases"
        leaked = hidden & kit
        assert not leaked, f"secret {secret!r}: {len(leaked)} hidden input(s) the kit also sends"
        monkeypatch.delenv(SECRET_ENV)


@pytest.mark.parametrize(("check", "function"), list(_checks())[:4])
def test_the_same_secret_and_submission_send_the_same_inputs(check, function, monkeypatch):
    """Determinism per submission: a regrade with the course's secret grades the same cases;
    another course, or another submission of the same course, gets others (what one
    submission's code saw and printed is no table for the next)."""
    monkeypatch.setenv(SECRET_ENV, "course-a")
    monkeypatch.setenv(SUBMISSION_ENV, "digest-of-ada")
    first = _record(check, function, reference=function)
    again = _record(check, function, reference=function)
    monkeypatch.setenv(SUBMISSION_ENV, "digest-of-ada-resubmitted")
    resubmitted = _record(check, function, reference=function)
    monkeypatch.setenv(SECRET_ENV, "course-b")
    monkeypatch.setenv(SUBMISSION_ENV, "digest-of-ada")
    other = _record(check, function, reference=function)
    assert first == again
    assert first != other and first != resubmitted


def test_hidden_seeds_keep_the_kind_of_case_and_leave_the_public_seeds(no_secret, monkeypatch):
    assert hidden_range(5) == [0, 1, 2, 3, 4]  # the kit: the practice cases
    monkeypatch.setenv(SECRET_ENV, "course-a")
    seeds = hidden_range(12)
    assert len(set(seeds)) == 12
    for trial, seed in enumerate(seeds):
        assert seed >= HIDDEN_STRIDE  # no public seed is this large
        assert all(seed % k == trial % k for k in range(1, 17))  # `seed % k` picks the kind
        assert seed < 2**63  # torch's manual_seed takes it
    assert hidden_seed(500) % HIDDEN_STRIDE == 500


def test_the_secret_file_is_created_once_private_and_kept(tmp_path, monkeypatch):
    monkeypatch.delenv(SECRET_ENV, raising=False)
    path = ensure_secret(tmp_path)
    assert path == tmp_path / SECRET_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    first = path.read_bytes()
    assert len(first.strip()) == 64
    assert ensure_secret(tmp_path).read_bytes() == first  # never replaced
    assert ensure_secret(tmp_path / "other").read_bytes() != first  # per course
    monkeypatch.setenv(AUTOGRADER_ENV, str(tmp_path))
    assert hidden_secret() == first.strip()
    monkeypatch.setenv(SECRET_ENV, "from-the-environment")
    assert hidden_secret() == b"from-the-environment"


def test_the_grader_configuration_supplies_a_secret(tmp_path, monkeypatch):
    """Plain nbgrader and the TA command both go through apply(c): the hidden tests in the
    grader's processes find the course's secret through $ATTNBOOK_AUTOGRADER."""
    from grader.config import apply
    from traitlets.config import Config

    for name in (SECRET_ENV, AUTOGRADER_ENV):  # recorded, so that apply's setting is undone
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    c = Config()
    c.CourseDirectory.root = str(tmp_path)
    apply(c)
    assert os.environ[AUTOGRADER_ENV] == str(tmp_path / "autograder")
    assert (tmp_path / "autograder" / SECRET_FILE).is_file()
    assert hidden_secret() is not None


def test_the_secret_is_never_in_the_kit_or_the_repository():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert f"autograder/{SECRET_FILE}" in ignored


# -- the grade does not depend on the secret ------------------------------------------------
# Notebooks 01 (hidden_range per trial), 02 (a generator from hidden_seed, sizes drawn from
# it, the long-sequence and large-shift cases drawn too) and 04 (causal lengths drawn, masks
# of random lengths, `seed % k` choosing causal or not): the three ways a hidden check draws
# its cases, on catalogues that run in seconds. Notebooks 05 to 11 draw through the same two
# functions; their catalogues take minutes each.
SEVERAL = ("01_attention_scores", "02_positions", "04_masks")


@pytest.mark.slow
@pytest.mark.parametrize("notebook", SEVERAL)
@pytest.mark.parametrize("secret", SECRETS)
def test_full_marks_and_every_mistake_caught_under_any_secret(notebook, secret, monkeypatch):
    monkeypatch.setenv(SECRET_ENV, secret)
    results = run_graded_cells(solution_notebook(notebook))
    failed = {k: repr(r.error) for k, r in results.items() if r.error is not None}
    assert not failed, f"{notebook}, secret {secret!r}: the solution failed {failed}"
    missed = []
    for variant in load_catalogue(notebook).MISTAKES:
        nb = apply_variant(solution_notebook(notebook), variant)
        result = run_graded_cells(nb, only_test=variant.test)[variant.test]
        if result.error is None or variant.hint not in str(result.error):
            missed.append(f"{variant.name} ({variant.test}): {result.error!r}"[:300])
    assert not missed, f"{notebook}, secret {secret!r}: mistakes not caught:\n" + "\n".join(missed)


# -- the lookup-table attack (autograder/sample_class/build.py, case "lookuptable") --------
def test_a_table_of_the_kits_answers_passes_at_home_and_fails_the_hidden_cases(monkeypatch):
    """The hostile suite grades it through the sandbox (tests/test_ta_hostile.py); here, in
    process: full marks without a secret, as at home, and no function test with one."""
    from grader.sample import load_builder

    build = load_builder()
    nb = build.lookup_table_notebook(ROOT, solution_notebook(build.NOTEBOOK))  # hidden tests in
    for name in (SECRET_ENV, AUTOGRADER_ENV):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    at_home = run_graded_cells(nb)
    assert all(r.error is None for r in at_home.values()), {
        k: repr(r.error)[:200] for k, r in at_home.items() if r.error is not None
    }
    monkeypatch.setenv(SECRET_ENV, "course-a")
    graded = run_graded_cells(nb)
    failed = sorted(k for k, r in graded.items() if r.error is not None)
    assert failed == sorted(f"test_{name}" for name in build.LOOKUP_FUNCTIONS), failed
    assert "an input I never recorded" in str(graded["test_attention"].error)


def test_a_submissions_digest_is_what_its_kernel_can_read(tmp_path):
    """What the hidden cases draw from besides the secret: the same code cells and own files
    give the same digest (a regrade, another machine: outputs, metadata, file times, the
    folder's place, prose and the test cells never reach the kernel); another own file, other
    code, or only another comment gives another (a kernel reads its cells' text, so the same
    code with a table in a comment must not draw the inputs the table answers)."""
    import os
    import shutil

    import nbformat
    from grader.execute import submission_digest

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    own = tmp_path / "ada"
    (own / "data").mkdir(parents=True)
    (own / "data" / "table.json").write_text("{}")
    (own / "notebook.ipynb").write_text("not read: the notebook is the cells")
    first = submission_digest(nb, own)
    moved = tmp_path / "elsewhere" / "ada"
    shutil.copytree(own, moved)
    os.utime(moved / "data" / "table.json", (0, 0))
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="1")]
    nb.metadata["kernelspec"] = {"name": "other"}
    nb.cells.append(nbformat.v4.new_markdown_cell("My notes."))
    test = nbformat.v4.new_code_cell("check(x)  # edited by the student")
    test.metadata["nbgrader"] = {"grade": True, "grade_id": "test_x", "points": 1}
    nb.cells.append(test)
    assert submission_digest(nb, moved, {"test_x"}) == first
    # a cell that calls itself a test the course does not have runs in the kernel: it counts
    assert submission_digest(nb, moved, {"test_y"}) != first
    (moved / "data" / "table.json").write_text('{"a": 1}')
    assert submission_digest(nb, moved, {"test_x"}) != first
    nb.cells[0].source = "x = 1  # TABLE {'inputs': 'answers'}"
    assert submission_digest(nb, own, {"test_x"}) != first
    nb.cells[0].source = "x = 2"
    assert submission_digest(nb, own, {"test_x"}) != first
    assert submission_digest(nb, None) != submission_digest(nb, own)
