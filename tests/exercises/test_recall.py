"""The decks' fill-in blanks: all 24 of the Yoon deck (and six questions of the other decks), each
accepted with its synonyms whatever the case or spacing, checked through the exercise helper
without showing the answer until hint() is asked twice; each asked where its
notebook closes (under "## Recall"), listed in docs/recall-blanks.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lecturekit import exercises
from lecturekit.exercises import core, recall

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem.split("_")[0]: p for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb")}


@pytest.fixture(autouse=True)
def fresh():
    core.reset()


def test_the_yoon_deck_has_all_its_blanks():
    yoon = [b for b in recall.BLANKS if b.deck == recall.YOON]
    assert (
        len(yoon) == 24
    )  # 22 written "_____", "weighted sum of ___ s", "multi-head ____-attention"
    assert len({b.id for b in recall.BLANKS}) == len(recall.BLANKS)
    words = {b.answers[0] for b in yoon}
    assert {"heads", "masked", "beam", "left-to-right", "cross", "value"} <= words


@pytest.mark.parametrize("blank", recall.BLANKS, ids=lambda b: b.id)
def test_each_blank_accepts_its_words_in_any_case_or_spacing(blank, capsys):
    for word in blank.answers:
        for variant in (word, word.upper(), f"  {word.title()} ", word.replace("-", " ")):
            assert recall.accepts(blank.id, variant), (blank.id, variant)
    assert not recall.accepts(blank.id, "banana")
    exercises.check(blank.id, "banana")
    out = capsys.readouterr().out
    assert "not yet" in out and blank.answers[0] not in out.split(": not yet")[1]
    exercises.check(blank.id, blank.answers[-1].upper())
    assert ": correct: " in capsys.readouterr().out
    assert core.status(blank.id) == "correct"


def test_hint_gives_a_clue_then_the_decks_word(capsys):
    exercises.hint("03.r1")
    first = capsys.readouterr().out
    assert "encodes" not in first and "hint 1 of 2" in first
    exercises.hint("03.r1")
    assert "the deck's word: encodes" in capsys.readouterr().out


def test_blanks_are_not_exercises():
    assert not [i for i in exercises.exercise_ids() if ".r" in i]
    assert exercises.recall_ids("07") == ["07.r1", "07.r2", "07.r3"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: exercises.quiz({}), r"answers must be a dict"),
        (lambda: exercises.quiz(["03.r1"]), r"answers must be a dict"),
        (lambda: exercises.quiz({"03.r9": None}), r"'03.r9', which is not a blank"),
        (lambda: recall.accepts("03.r9", "x"), r"blank_id '03.r9' is not a blank"),
        (lambda: recall.accepts("03.r1", 3), r"answer"),
        (lambda: recall.blanks("97"), r"lecture must be one of"),
        (lambda: exercises.check("03.rx", "x"), r"exercise_id must look like"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("lecture", sorted({b.lecture for b in recall.BLANKS}))
def test_each_notebook_asks_its_blanks_when_the_lecture_closes(lecture):
    nb = json.loads(NOTEBOOKS[lecture].read_text())
    code = [(i, c) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]
    found = [(i, c) for i, c in code if "quiz(" in "".join(c["source"])]
    assert len(found) == 1, "one self-check cell"
    index, cell = found[0]
    recall_heading = [i for i, c in enumerate(nb["cells"])
                      if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## Recall")]  # fmt: skip
    assert recall_heading and recall_heading[0] < index, "under '## Recall', closing the lecture"
    assert index > len(nb["cells"]) // 2, "after the lecture, not before it"
    source = "".join(cell["source"])
    asked = re.findall(r'"(\d\d[a-z]?\.r\d+)": None', source)
    assert asked == exercises.recall_ids(lecture)
    out = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    for b in recall.blanks(lecture):
        assert f"{b.id} {b.prompt.rstrip('.')}: not attempted yet" in out
        assert all(f'"{w}"' not in source for w in b.answers), "the answer is not in the cell"


def test_notebooks_without_blanks_have_no_quiz():
    for lecture, path in NOTEBOOKS.items():
        if not recall.blanks(lecture):
            assert "quiz(" not in path.read_text(), path.name


def test_the_list_of_blanks_is_current():
    assert (ROOT / "docs" / "recall-blanks.md").read_text().endswith(recall.table())
