"""Concept questions test understanding: neither length nor wording gives the key away.

Every concept check is parsed from `solutions/`. Its format:

* the Markdown cell just before the answer cell holds `**Concept check.**` (or
  `**Concept check** (from the decks).`), the stem, then exactly the options
  `- A. ...`, `- B. ...`, `- C. ...` (a long option may go on over lines indented by two
  spaces), then the line that starts `Set` and names `answer_<topic>`; anything before the
  marker is prose;
* the answer cell `answer_<topic>` opens with `answer_<topic> = None  # replace None with
  "A", "B" or "C"` and sets the letter between the solution markers;
* the test cell `test_answer_<topic>` follows it, with `check_choice` and the hidden
  `check_answer` of the notebook's reference;
* `ANSWERS["answer_<topic>"]` of `autograder/reference/nbNN_topic.py` is
  `("ABC", letter, explanation)`, the explanation a single line.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import re
from collections import Counter
from dataclasses import dataclass

import pytest
from conftest import ROOT, SOLUTIONS, notebook_names, read
from grader.catalogue import nbgrader_meta

NAMES = notebook_names()
LETTERS = "ABC"
MARKER = re.compile(r"\*\*Concept check\.?\*\*(?: \([^)]*\)\.)?\s*")
OPTION = re.compile(r"^- ([A-Z])\. (.*)$")
MAX_EXPLANATION = 200  # characters: the hint a student reads under a wrong answer
NEAR_STEM = 0.7  # difflib ratio above which two normalised stems are the same question
NEAR_OPTION = 0.85  # ... and two options the same option


@dataclass
class Question:
    notebook: str
    name: str
    stem: str
    options: dict[str, str]
    key: str | None

    @property
    def where(self) -> str:
        return f"{self.notebook}:{self.name}"


def parse_question(markdown: str, name: str) -> tuple[str, dict[str, str]]:
    """(stem, {letter: option}) of a question cell; ValueError when it breaks the format."""
    match = MARKER.search(markdown)
    if not match:
        raise ValueError(f"{name}: no '**Concept check.**' in the cell before the answer")
    stem_lines, options, current, tail = [], {}, None, None
    for line in markdown[match.end() :].split("\n"):
        option = OPTION.match(line)
        if option:
            current = option.group(1)
            if current in options:
                raise ValueError(f"{name}: option {current} appears twice")
            options[current] = option.group(2).strip()
        elif current and line.startswith("  ") and line.strip():
            options[current] += " " + line.strip()
        elif line.startswith("Set `"):
            tail = line
            break
        elif not options:
            stem_lines.append(line)
        elif line.strip():
            raise ValueError(f"{name}: unexpected line between the options: {line!r}")
    if tail is None or not tail.startswith(f"Set `{name}`"):
        raise ValueError(f"{name}: the question should end with 'Set `{name}`...'")
    stem = " ".join(line.strip() for line in stem_lines).strip()
    if not stem:
        raise ValueError(f"{name}: the question has no stem")
    return stem, options


def keyed_letter(source: str, name: str) -> str | None:
    first = source.split("\n", 1)[0]
    if first != f'{name} = None  # replace None with "A", "B" or "C"':
        raise ValueError(f"{name}: the answer cell should open with {name} = None  # ...")
    solution = re.search(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", source, re.DOTALL)
    if not solution:
        raise ValueError(f"{name}: no solution region")
    # the region holds "# Why: ..." lines (the explanation a wrong answer gets), then the letter
    body = "".join(
        line for line in solution.group(1).splitlines(True) if not line.lstrip().startswith("#")
    )
    letter = re.fullmatch(rf'{name} = "([A-Z])"\n', body)
    return letter.group(1) if letter else None


def notebook_questions(notebook: str) -> tuple[list[Question], list[str]]:
    """The questions of a solution notebook, and what breaks the format."""
    nb = read(SOLUTIONS / notebook / f"{notebook}.ipynb")
    questions, problems = [], []
    for i, cell in enumerate(nb.cells):
        name = nbgrader_meta(cell).get("grade_id", "")
        if not (name.startswith("answer_") and nbgrader_meta(cell).get("solution")):
            continue
        try:
            if nb.cells[i - 1].cell_type != "markdown":
                raise ValueError(f"{name}: the cell before the answer is not Markdown")
            stem, options = parse_question(nb.cells[i - 1].source, name)
            test = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
            if test is None or nbgrader_meta(test).get("grade_id") != f"test_{name}":
                raise ValueError(f"{name}: test_{name} should follow the answer cell")
            if (
                f'check_choice("{name}", {name}, "ABC")' not in test.source
                or f'load_reference("{notebook}"), "{name}",' not in test.source
            ):
                raise ValueError(f"{name}: test_{name} lacks check_choice or check_answer")
            key = keyed_letter(cell.source, name)
        except ValueError as error:
            problems.append(f"{notebook}: {error}")
            continue
        questions.append(Question(notebook, name, stem, options, key))
    return questions, problems


def reference_answers(notebook: str) -> dict:
    """ANSWERS of the notebook's reference module, read without importing it."""
    path = ROOT / "autograder" / "reference" / f"nb{notebook}.py"
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "ANSWERS":
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path} defines no ANSWERS")


def normalise(text: str) -> str:
    """Lower case, no Markdown or LaTeX markup, single spaces: what a reader compares."""
    text = re.sub(r"\\[a-zA-Z]+", " ", text.lower())
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def keyed_is_longest(question: Question) -> bool:
    """True when the keyed option has strictly more characters than every other option."""
    keyed = len(question.options[question.key])
    return all(keyed > len(o) for letter, o in question.options.items() if letter != question.key)


def keyed_is_shortest(question: Question) -> bool:
    """True when the keyed option has strictly fewer characters than every other option."""
    keyed = len(question.options[question.key])
    return all(keyed < len(o) for letter, o in question.options.items() if letter != question.key)


def same_question(a: Question, b: Question) -> bool:
    """Two questions ask the same thing: equal or nearly equal stems, or mostly the same
    options (the remove-the-mask quiz once came back with its verbs in another form)."""
    stem_a, stem_b = normalise(a.stem), normalise(b.stem)
    if stem_a == stem_b or difflib.SequenceMatcher(None, stem_a, stem_b).ratio() >= NEAR_STEM:
        return True
    shared = sum(
        any(
            difflib.SequenceMatcher(None, normalise(x), normalise(y)).ratio() >= NEAR_OPTION
            for y in b.options.values()
        )
        for x in a.options.values()
    )
    return shared >= 2


PARSED = {notebook: notebook_questions(notebook) for notebook in NAMES}
QUESTIONS = {notebook: questions for notebook, (questions, _) in PARSED.items()}
ALL = [q for questions in QUESTIONS.values() for q in questions]


def test_every_question_follows_the_format():
    problems = [p for _, notebook_problems in PARSED.values() for p in notebook_problems]
    assert not problems, "\n".join(problems)


def test_every_notebook_has_concept_questions():
    assert ALL, "no concept questions found in solutions/"
    empty = [notebook for notebook, questions in QUESTIONS.items() if not questions]
    assert not empty, f"notebooks without a concept question: {empty}"


@pytest.mark.parametrize("question", ALL, ids=lambda q: q.where)
def test_three_options_and_a_matching_answers_entry(question):
    assert list(question.options) == list(LETTERS), (
        f"{question.where}: options {list(question.options)}, expected A, B and C"
    )
    assert all(question.options.values()), f"{question.where}: an option is empty"
    assert question.key in LETTERS, f"{question.where}: the solution sets no letter A-C"
    answers = reference_answers(question.notebook)
    assert question.name in answers, f"{question.where}: no ANSWERS entry"
    options, letter, explanation = answers[question.name]
    assert options == "".join(question.options), f"{question.where}: ANSWERS lists {options!r}"
    assert letter == question.key, (
        f"{question.where}: the notebook keys {question.key}, ANSWERS {letter}"
    )
    assert isinstance(explanation, str) and explanation.strip(), f"{question.where}: no hint"
    assert "\n" not in explanation and len(explanation) <= MAX_EXPLANATION, (
        f"{question.where}: the explanation should be one line of at most "
        f"{MAX_EXPLANATION} characters, got {len(explanation)}"
    )


@pytest.mark.parametrize("notebook", NAMES)
def test_answers_hold_no_stale_entry(notebook):
    asked = {q.name for q in QUESTIONS[notebook]}
    stale = set(reference_answers(notebook)) - asked
    assert not stale, f"{notebook}: ANSWERS entries without a question: {sorted(stale)}"


@pytest.mark.parametrize("notebook", NAMES)
def test_the_keyed_option_is_rarely_the_longest(notebook):
    questions = QUESTIONS[notebook]
    longest = [q.name for q in questions if keyed_is_longest(q)]
    assert 3 * len(longest) <= len(questions), (
        f"{notebook}: the keyed option is the longest in {len(longest)} of {len(questions)} "
        f"questions ({longest}); at most a third may be"
    )


@pytest.mark.parametrize("notebook", NAMES)
def test_the_keyed_option_is_rarely_the_shortest(notebook):
    """The reversed cue: a key that is the shortest option too often gives itself away to a
    student who has learnt that the longest option is never right."""
    questions = QUESTIONS[notebook]
    shortest = [q.name for q in questions if keyed_is_shortest(q)]
    assert 3 * len(shortest) <= len(questions), (
        f"{notebook}: the keyed option is the shortest in {len(shortest)} of {len(questions)} "
        f"questions ({shortest}); at most a third may be"
    )


@pytest.mark.parametrize("question", ALL, ids=lambda q: q.where)
def test_the_keyed_option_is_not_much_longer_than_the_rest(question):
    keyed = len(question.options[question.key])
    others = max(len(o) for letter, o in question.options.items() if letter != question.key)
    assert keyed <= 1.25 * others, (
        f"{question.where}: the keyed option has {keyed} characters, the longest other "
        f"{others}: its length gives it away"
    )


def test_no_two_questions_share_a_stem():
    repeated = [
        (a.where, b.where) for a, b in itertools.combinations(ALL, 2) if same_question(a, b)
    ]
    assert not repeated, f"questions asked twice: {repeated}"


def test_every_letter_is_keyed_and_none_dominates():
    overall = Counter(q.key for q in ALL)
    for letter in LETTERS:
        assert 4 * overall[letter] >= len(ALL), f"{letter} keyed only {overall[letter]} times"
    for notebook, questions in QUESTIONS.items():
        most, count = Counter(q.key for q in questions).most_common(1)[0]
        assert 2 * count <= len(questions) + 1, (
            f"{notebook}: {most} is keyed in {count} of {len(questions)} questions"
        )


# -- the checks above can fail ---------------------------------------------------------------
def _question(stem, options, key="A", name="answer_x"):
    return Question("99_demo", name, stem, dict(zip(LETTERS, options)), key)


def test_the_parser_reads_prose_a_decks_marker_and_continued_options():
    cell = (
        "Some prose first.\n\n**Concept check** (from the decks). Which change\nhelps?\n\n"
        "- A. One\n- B. Two, which goes on\n  over a second line\n- C. Three\n\n"
        'Set `answer_x` to `"A"`, `"B"` or `"C"`.'
    )
    stem, options = parse_question(cell, "answer_x")
    assert stem == "Which change helps?"
    assert options == {"A": "One", "B": "Two, which goes on over a second line", "C": "Three"}


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("Which?\n\n- A. x\n- B. y\n- C. z\n\nSet `answer_x`.", "no '\\*\\*Concept check"),
        ("**Concept check.** Which?\n\n- A. x\n- B. y\n- C. z\n\nSet `answer_y`.", "should end"),
        ("**Concept check.** Which?\n\n- A. x\n- A. y\n- C. z\n\nSet `answer_x`.", "twice"),
        ("**Concept check.** Which?\n\n- A. x\nstray\n- C. z\n\nSet `answer_x`.", "unexpected"),
    ],
)
def test_the_parser_rejects_a_broken_question(cell, message):
    with pytest.raises(ValueError, match=message):
        parse_question(cell, "answer_x")


def test_a_key_that_is_always_the_longest_is_caught():
    giveaway = _question(
        "What does a causal mask control?",
        ["Which earlier or current inputs each query may access, and why", "Position", "Distance"],
    )
    assert keyed_is_longest(giveaway)
    fair = _question(
        "What does a causal mask control?",
        [
            "Which keys a query reads",
            "Where each token stands in the text",
            "How far apart two tokens are",
        ],
    )
    assert not keyed_is_longest(fair)


def test_a_key_that_is_always_the_shortest_is_caught():
    giveaway = _question(
        "What does a causal mask control?",
        ["Access", "Where each token stands in the text", "How far apart two tokens are"],
    )
    assert keyed_is_shortest(giveaway) and not keyed_is_longest(giveaway)
    tied = _question(
        "What does a causal mask control?",
        ["Which keys a query reads", "Where a token stands", "How far apart two go"],
        key="B",
    )
    assert not keyed_is_shortest(tied)  # B and C both have 20 characters: no strict shortest


def test_the_old_duplicates_are_caught_and_distinct_questions_are_not():
    peek = _question(
        "One forward pass scores every shifted target of an email at once. Which "
        "model change would let an early prediction read its future target?",
        [
            "Compute all causal output rows together",
            "Normalise each token over its own features",
            "Remove the causal attention mask",
        ],
        key="C",
    )
    future = _question(
        "The training batch contains each full email, and one forward pass "
        "scores all shifted targets. Which change would let an early prediction "
        "read its own future target?",
        [
            "Computing all causal output rows together",
            "Normalising each token over its own features",
            "Removing the causal attention mask",
        ],
        key="C",
    )
    assert same_question(peek, future)
    assert same_question(
        peek,
        _question(
            "**one** forward pass scores every shifted target "
            "of an email at once; which model change would let an "
            "early prediction read its future target",
            ["a", "b", "c"],
        ),
    )
    other = _question(
        "What does the cache store and reuse from one step to the next?",
        ["The queries", "The keys and values", "Nothing"],
    )
    assert not same_question(peek, other)
