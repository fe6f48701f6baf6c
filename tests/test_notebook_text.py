"""What a notebook's text promises agrees with the notebook itself: the time header with the
exercise headings, and the two loss-mask tables (notebooks 04 and 07) with each other and
with the batch that notebook 07's make_batch builds."""

from __future__ import annotations

import re

import pytest
from conftest import NOTEBOOKS, SOLUTIONS, notebook_names, read

from attnbook.grading import load_reference
from attnbook.lm.tokenizer import WordTokenizer

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
TIME = re.compile(
    r"\*\*Time\.\*\*\s+About\s+(\d+)\s+minutes:\s+(\d+)\s+for\s+the\s+(\w+)\s+"
    r"exercises?"
)
EXERCISE = re.compile(
    r"^### Exercise (\d+) · .*\(difficulty [★☆]+, about (\d+) minutes\)", re.MULTILINE
)


def _markdown(name: str) -> list[str]:
    return [
        c.source
        for c in read(SOLUTIONS / name / f"{name}.ipynb").cells
        if c.cell_type == "markdown"
    ]


def time_budget(name: str) -> dict:
    """The first cell's Time line and the exercise headings of one solution notebook."""
    cells = _markdown(name)
    header = TIME.search(" ".join(cells[0].split()))
    assert header, f"{name}: the first cell has no 'Time. About T minutes: E for the N exercises'"
    exercises = [
        (int(number), int(minutes)) for cell in cells for number, minutes in EXERCISE.findall(cell)
    ]
    return {
        "total": int(header[1]),
        "exercises": int(header[2]),
        "count": NUMBER_WORDS.get(header[3].lower()),
        "headings": exercises,
    }


@pytest.mark.parametrize("name", notebook_names())
def test_time_header_adds_up(name):
    """'About T minutes: E for the N exercises' holds N headed exercises whose minutes sum to
    E, with time left over (T > E) for the experiments and questions."""
    budget = time_budget(name)
    headings = budget["headings"]
    assert [number for number, _ in headings] == list(range(1, len(headings) + 1)), (
        f"{name}: exercises are not numbered 1..{len(headings)}: {headings}"
    )
    assert budget["count"] == len(headings), (
        f"{name}: the header counts {budget['count']} exercises, the notebook heads {len(headings)}"
    )
    minutes = [m for _, m in headings]
    assert budget["exercises"] == sum(minutes), (
        f"{name}: the header gives {budget['exercises']} minutes for the exercises; their "
        f"headings add up to {' + '.join(map(str, minutes))} = {sum(minutes)}"
    )
    assert budget["total"] > budget["exercises"], f"{name}: no time left beyond the exercises"


def test_time_header_parser_reads_a_known_header():
    budget = time_budget("04_masks")
    assert budget == {
        "total": 60,
        "exercises": 35,
        "count": 4,
        "headings": [(1, 5), (2, 15), (3, 5), (4, 10)],
    }


def loss_mask_table(name: str) -> dict[str, dict[str, list[str]]]:
    """The Markdown table with columns inputs, targets and loss mask, row by message."""
    for cell in _markdown(name):
        lines = [line.strip() for line in cell.splitlines() if line.strip().startswith("|")]
        for i, line in enumerate(lines):
            head = [c.strip() for c in line.strip("|").split("|")]
            if head[1:] == ["inputs", "targets", "loss mask"]:
                rows = {}
                for row in lines[i + 2 :]:
                    message, *columns = [c.strip() for c in row.strip("|").split("|")]
                    rows[message] = {
                        key: [t.strip().strip("`") for t in column.split("·")]
                        for key, column in zip(head[1:], columns)
                    }
                return rows
    raise AssertionError(f"{name}: no table with the columns inputs | targets | loss mask")


def test_loss_mask_tables_of_notebooks_04_and_07_agree_with_make_batch():
    """One convention for the decks' Message A and Message B: <BOS> ... <EOS>, inputs ids[:-1],
    targets ids[1:], padded on the right, loss mask 1 on real targets (<EOS> included). Both
    notebooks print the same table, and it is the batch make_batch builds from the tokenizer."""
    table_04, table_07 = loss_mask_table("04_masks"), loss_mask_table("07_training")
    assert table_04 == table_07
    tokenizer = WordTokenizer()
    sequences = [tokenizer.encode("please send the report"), tokenizer.encode("send report")]
    inputs, targets, loss_mask = load_reference("07_training").make_batch(
        sequences, tokenizer.pad_id
    )
    expected = {}
    for name, row_in, row_out, row_mask in zip(
        ("Message A", "Message B"), inputs.tolist(), targets.tolist(), loss_mask.tolist()
    ):
        expected[name] = {
            "inputs": [tokenizer.id_to_token[i] for i in row_in],
            "targets": [tokenizer.id_to_token[i] for i in row_out],
            "loss mask": [str(int(m)) for m in row_mask],
        }
    assert table_04 == expected


# "slides" alone is a word of the email corpus ("send the report before the slides")
CITES_A_LECTURE = re.compile(r"\b(lectures?|decks?|live slides?)\b", re.IGNORECASE)


def lecture_citations(nb) -> list[str]:
    """The lines of a notebook's cells, markdown and code, that cite a lecture, the decks or
    a live slide: a learner alone has none of them."""
    return [
        line.strip()
        for cell in nb.cells
        for line in cell.source.splitlines()
        if CITES_A_LECTURE.search(line)
    ]


def test_lecture_citations_are_found():
    import nbformat

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("The lecture's example, then the decks' picture."),
            nbformat.v4.new_code_cell('for pair in ("lecture", 1):\n    pass'),
            nbformat.v4.new_markdown_cell("The live slide: pick a word."),
            nbformat.v4.new_markdown_cell("Send the slides; electures, a slider: none of these."),
        ]
    )
    assert len(lecture_citations(nb)) == 3


@pytest.mark.parametrize("name", notebook_names())
def test_released_notebook_needs_no_lecture(name):
    """Each example, figure and number is shown in the notebook itself, in its own words: a
    self-learner has no lecture to look it up in."""
    nb = read(NOTEBOOKS / name / f"{name}.ipynb")
    assert not lecture_citations(nb), f"{name} cites a lecture: {lecture_citations(nb)}"
