"""Solution notebooks pass every test in a real kernel; released notebooks are clean stubs."""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import io
import time

import pytest
from conftest import (
    NOTEBOOKS,
    SOLUTIONS,
    errors_of,
    execute,
    grade_cells,
    notebook_names,
    read,
    stderr_of,
)
from grader.catalogue import nbgrader_meta

NAMES = notebook_names()
# Notebook 07 trains a model; it may take longer, with a small budget while graded.
TIME_LIMIT = {"07_training": 300}
GRADING_ENV = {"NBGRADER_EXECUTION": "autograde"}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_solution_runs_top_to_bottom_and_passes_all_tests(name):
    start = time.perf_counter()
    nb = execute(SOLUTIONS / name / f"{name}.ipynb", allow_errors=True, env=GRADING_ENV)
    seconds = time.perf_counter() - start
    failures = {
        c.metadata.get("nbgrader", {}).get("grade_id", c.id): f"{e['ename']}: {e['evalue']}"
        for c in nb.cells
        for e in errors_of(c)
    }
    assert not failures, f"{name}: cells raised with the solutions filled in: {failures}"
    graded = grade_cells(nb)
    assert graded, f"{name} has no graded test cells"
    noisy = {nbgrader_meta(c)["grade_id"]: stderr_of(c) for c in graded if stderr_of(c)}
    assert not noisy, f"{name}: graded cells wrote to stderr (nbgrader scores them 0): {noisy}"
    hidden_ran = [c for c in graded if "BEGIN HIDDEN TESTS" in c.source]
    assert hidden_ran, f"{name}: no hidden tests"
    # The standard's 60 s on two CPU cores is measured, not asserted: a loaded machine would
    # fail a correct notebook. benchmarks/bench_notebooks.py records the figures.
    print(f"{name}: {seconds:.1f} s with solutions (budget {TIME_LIMIT.get(name, 60)} s)")


# Each released notebook, run top to bottom, stops only at its stubs (NotImplementedError in
# every graded cell): tests/test_kit.py runs the kit's copies, byte for byte these files, in
# the student's own environment (test_released_notebook_runs_in_the_kit_up_to_its_stubs).


@pytest.mark.parametrize("name", NAMES)
def test_released_notebook_holds_no_answer_no_hidden_test_no_output(name):
    nb = read(NOTEBOOKS / name / f"{name}.ipynb")
    text = "\n".join(c.source for c in nb.cells)
    for marker in (
        "BEGIN SOLUTION",
        "END SOLUTION",
        "BEGIN HIDDEN TESTS",
        "load_reference",
        "check_answer",
    ):
        assert marker not in text, f"{name}: released notebook contains {marker!r}"
    solution = read(SOLUTIONS / name / f"{name}.ipynb")
    answers = {
        nbgrader_meta(c)["grade_id"] for c in solution.cells if nbgrader_meta(c).get("solution")
    }
    for cell in nb.cells:
        if nbgrader_meta(cell).get("grade_id") in answers:
            assert "raise NotImplementedError()" in cell.source


@pytest.mark.parametrize("tree", ["solutions", "notebooks"])
def test_notebooks_are_stored_without_outputs(root, tree):
    paths = sorted((root / tree).glob("*/*.ipynb"))
    assert paths
    for path in paths:
        for cell in read(path).cells:
            if cell.cell_type == "code":
                assert not cell.outputs, f"{path}: cell {cell.id} is stored with outputs"
                assert cell.execution_count is None, f"{path}: cell {cell.id} has a count"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_standard_structure(name):
    """Goals, prerequisites and time up front, a recap at the end, a concept check per
    section, a difficulty and time on each exercise, points on every test cell."""
    nb = read(SOLUTIONS / name / f"{name}.ipynb")
    first, last = nb.cells[0].source, nb.cells[-1].source
    for phrase in ("Learning goals", "Prerequisites", "Time"):
        assert phrase in first, f"{name}: the first cell lacks {phrase!r}"
    assert "Recap" in last, f"{name}: the last cell should be the recap"
    answers = [c for c in nb.cells if nbgrader_meta(c).get("solution")]
    tests = grade_cells(nb)
    assert all(nbgrader_meta(c).get("points", 0) > 0 for c in tests)
    ids = [nbgrader_meta(c)["grade_id"] for c in answers + tests]
    assert len(ids) == len(set(ids)), f"{name}: duplicate grade ids"
    functions = [c for c in answers if not nbgrader_meta(c)["grade_id"].startswith("answer_")]
    concepts = [c for c in answers if nbgrader_meta(c)["grade_id"].startswith("answer_")]
    sections = [
        c
        for c in nb.cells
        if c.cell_type == "markdown"
        and c.source.lstrip().startswith("## ")
        and "Recap" not in c.source
    ]
    assert len(concepts) >= max(1, len(sections) // 2), (
        f"{name}: {len(concepts)} concept checks for {len(sections)} sections"
    )
    for cell in functions:
        grade_id = nbgrader_meta(cell)["grade_id"]
        assert '"""' in cell.source.split("### BEGIN SOLUTION")[0], (
            f"{name}: {grade_id} needs its docstring outside the solution markers"
        )
        assert f"test_{grade_id}" in {nbgrader_meta(c)["grade_id"] for c in tests}
    exercise_heads = [
        c.source for c in nb.cells if c.cell_type == "markdown" and "### Exercise" in c.source
    ]
    assert len(exercise_heads) >= len(functions)
    for head in exercise_heads:
        assert "difficulty" in head and "minutes" in head, (
            f"{name}: exercise heading without difficulty and time: {head.splitlines()[0]}"
        )


# -- While graded, the slow demonstrations are skipped or shrunk (issue 13) ---------------------
# Each demonstration cell named below runs with every notebook name replaced by a spy that
# records its calls; the calls that make the cell slow raise. With GRADED true the cell must
# finish without reaching them and print that it was skipped; with GRADED false it must reach
# one, so the spies see the real work and a test of the skip can fail.
SKIPPED_WHILE_GRADED = [
    ("05_multihead", "attention_cost(", {"attention_cost"}),
    ("07_training", "chain_timing(", {"chain_timing"}),
    ("07_training", "causal_mask_experiment(", {"causal_mask_experiment"}),
    ("07_training", "head_survey(", {"head_survey"}),
    ("08_generation", "long_model = ", {"generate_tokens"}),
    ("08_generation", "perplexity(model, val_batches)", {"perplexity"}),
    ("08_generation", "quality_diversity_sweep(", {"quality_diversity_sweep"}),
    ("09_beyond", "rerun_pair()", {"rerun_pair"}),
    ("11_encoder_decoder", "train_replies(", {"train_replies"}),
    ("11_encoder_decoder", "decode_table(", {"task.one_sentence_emails", "decode_table"}),
    ("11_encoder_decoder", 'REPLY_TABLES["check"]', {"task.one_sentence_emails"}),
    ("11_encoder_decoder", "greeting_under_ablation(", {"task.sample_pairs"}),
]
SKIP_NOTE = "skipped while the grader runs this"


class _Reached(Exception):
    """A slow call was made."""


class _Spy:
    """Stands for any notebook name: attributes, calls, items and arithmetic give more spies,
    iteration gives nothing, and every call is recorded (a slow one raises _Reached)."""

    def __init__(self, path: str, calls: list, slow: set):
        self._path, self._calls, self._slow = path, calls, slow

    def __getattr__(self, attr):
        return _Spy(f"{self._path}.{attr}", self._calls, self._slow)

    def __call__(self, *args, **kwargs):
        self._calls.append((self._path, args, kwargs))
        if self._path in self._slow:
            raise _Reached(self._path)
        return _Spy(f"{self._path}()", self._calls, self._slow)

    def __getitem__(self, key):
        return _Spy(f"{self._path}[]", self._calls, self._slow)

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __format__(self, spec):
        return "?"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def _same(self, *other):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = _same


class _Names(dict):
    """Globals in which every name not set and not a builtin is a spy."""

    def __init__(self, calls: list, slow: set, **given):
        super().__init__(__builtins__=builtins, **given)
        self._calls, self._slow = calls, slow

    def __missing__(self, key):
        if hasattr(builtins, key):
            raise KeyError(key)  # on to the builtins
        return _Spy(key, self._calls, self._slow)


def _demo_cell(name: str, marker: str) -> str:
    nb = read(SOLUTIONS / name / f"{name}.ipynb")
    found = [c.source for c in nb.cells if c.cell_type == "code" and marker in c.source]
    assert len(found) == 1, f"{name}: {len(found)} code cells contain {marker!r}"
    return found[0]


def _run_demo(source: str, graded: bool, slow: set = frozenset(), **given) -> tuple[list, str]:
    calls: list = []
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<demo cell>", "exec"), _Names(calls, slow, GRADED=graded, **given))
    return calls, out.getvalue()


@pytest.mark.parametrize(
    ("name", "marker", "slow"),
    SKIPPED_WHILE_GRADED,
    ids=[f"{n}:{m.split('(')[0]}" for n, m, _ in SKIPPED_WHILE_GRADED],
)
def test_graded_run_skips_the_slow_demonstrations(name, marker, slow):
    from attnbook.experiments.ablation import RERUN_PAIR

    source = _demo_cell(name, marker)
    given = {"RERUN_PAIR": RERUN_PAIR}  # unpacked before the skip in notebook 09
    calls, printed = _run_demo(source, graded=True, slow=slow, **given)
    assert not [path for path, _, _ in calls if path in slow]
    assert SKIP_NOTE in " ".join(printed.split()) and "earns no points" in printed, printed
    with pytest.raises(_Reached) as reached:  # not graded: the demonstration runs
        _run_demo(source, graded=False, slow=slow, **given)
    assert str(reached.value) in slow


def test_graded_run_trains_07s_small_decoders_briefly():
    """Notebook 07's own training loop and the package's trainer still run while graded (later
    cells read their models), on a handful of steps and emails."""
    from attnbook.lm.train import PRESETS

    loop = _demo_cell("07_training", "small_splits = make_splits(")
    runs = {graded: _run_demo(loop, graded)[0] for graded in (True, False)}
    steps = {
        graded: sum(path == "train_step" for path, _, _ in calls) for graded, calls in runs.items()
    }
    emails = {
        graded: next(kw["n_train"] for path, _, kw in calls if path == "make_splits")
        for graded, calls in runs.items()
    }
    assert steps == {True: 10, False: 200} and emails == {True: 500, False: 4000}

    trainer = _demo_cell("07_training", "metrics = train(config)")
    configs = {}
    for graded in (True, False):
        calls, _ = _run_demo(trainer, graded, dataclasses=dataclasses, PRESETS=PRESETS)
        (config,) = [args[0] for path, args, _ in calls if path == "train"]
        configs[graded] = config
    assert configs[True].steps <= 10 and configs[True].n_train <= 300
    assert configs[True].entropy_samples <= 300 and configs[True].n_val <= 50
    assert configs[False].steps == PRESETS["cpu"].steps
