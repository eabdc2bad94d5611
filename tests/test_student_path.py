"""The student's path through a lecture (issue 36), measured by the course's own metrics
(tests/support/nbmetrics.py): a picture of the mechanism before the first formula, learning goals
in words, at least three predict-first prompts (two in an optional notebook), import cells of at
most 12 lines, at most 40 minutes of reading, the course's plumbing at most 25 %; the instructor's
material (conventions boxes, deck slips, the opening recall quiz) out of the lectures; and a
README written for learners, whose learning path lists every notebook as core or optional."""

import json
import re
from pathlib import Path

import nbmetrics  # tests/support
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
OPTIONAL = "*Going further (optional).*"
PREDICT = "**Predict first.**"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _src(cell: dict) -> str:
    return "".join(cell["source"])


def _optional(path: Path) -> bool:
    return OPTIONAL in _src(_cells(path)[0])


def _is_diagram(cell: dict) -> bool:
    if cell["cell_type"] == "markdown":
        return bool(re.search(r"!\[[^\]]+\]\([^)]+\)|<img\b", _src(cell)))
    return "diagram" in _src(cell) and any(
        "image/svg+xml" in o.get("data", {}) or "image/png" in o.get("data", {})
        for o in cell.get("outputs", [])
    )


def _has_formula(cell: dict) -> bool:
    return cell["cell_type"] == "markdown" and "$" in _src(cell)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_picture_of_the_mechanism_comes_before_the_first_formula(path):
    cells = _cells(path)
    pictures = [i for i, c in enumerate(cells) if _is_diagram(c)]
    formulas = [i for i, c in enumerate(cells) if _has_formula(c)]
    assert pictures, "no diagram of the lecture's mechanism (lecturekit.viz.diagrams)"
    if formulas:
        assert pictures[0] < formulas[0], (
            f"cell {formulas[0]} has a formula before the first diagram (cell {pictures[0]})"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_learning_goals_are_in_words(path):
    title = _src(_cells(path)[0])
    goals = title.split("**What you will learn**", 1)
    assert len(goals) == 2, "the title cell lists what you will learn"
    assert "$" not in goals[1], "learning goals in words: no formula yet"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_lecture_asks_before_it_tells(path):
    cells = _cells(path)
    prompts = [i for i, c in enumerate(cells)
               if c["cell_type"] == "markdown" and _src(c).lstrip().startswith(PREDICT)]  # fmt: skip
    want = 2 if _optional(path) else 3
    assert len(prompts) >= want, f"{len(prompts)} predict-first prompts, want {want}"
    for i in prompts:
        assert i + 1 < len(cells) and cells[i + 1]["cell_type"] == "code", (
            f"the prompt in cell {i} is answered by the code cell right below it"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_reading_time_and_import_cells_are_within_budget(path):
    m = nbmetrics.metrics(path)
    assert m["read_min"] <= 40, f"{m['read_min']} minutes of reading, budget 40"
    assert m["import_cell"] <= 12, f"a cell with {m['import_cell']} import lines, budget 12"
    assert not m["fig_cells_without_image"], "figure cells that store no image"


def test_the_course_plumbing_share_is_at_most_a_quarter():
    rows = [nbmetrics.metrics(p) for p in NOTEBOOKS]
    share = sum(r["plumbing"] * r["loc"] for r in rows) / sum(r["loc"] for r in rows)
    worst = sorted(rows, key=lambda r: -r["plumbing"])[:3]
    assert share <= 0.25, f"plumbing {share:.3f} of code lines; highest: " + ", ".join(
        f"{r['notebook']} {r['plumbing']:.2f}" for r in worst
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_instructor_material_stays_in_the_companions(path):
    cells = _cells(path)
    text = "\n".join(_src(c) for c in cells if c["cell_type"] == "markdown")
    assert nbmetrics.metrics(path)["conventions"] == 0, (
        "a conventions box or deck slip: companions/"
    )
    assert "**Slides:**" not in text, "the slides a lecture covers are the course map's business"
    assert text.count("../companions/") <= 1, "at most one pointer to the deck companions"
    quiz = [
        i for i, c in enumerate(cells) if c["cell_type"] == "code" and "quiz(recall)" in _src(c)
    ]
    if quiz:
        headings = [i for i, c in enumerate(cells)
                    if c["cell_type"] == "markdown" and _src(c).startswith("## ")]  # fmt: skip
        assert quiz[0] > headings[len(headings) // 2], "the recall quiz closes the lecture"


def test_readme_is_for_learners():
    readme = (ROOT / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) <= 200, f"README has {len(lines)} lines; the rest belongs in docs/"
    first_code = readme.split("```bash", 1)[1].split("```", 1)[0]
    assert "make lab" in first_code and "make test" in first_code, "the two commands come first"
    for section in ("Who it is for", "Start in one click", "How to work a notebook",
                    "The lectures"):  # fmt: skip
        assert f"\n## {section}\n" in readme, section
    for page in ("instructors", "package", "shipped-models", "testing"):
        assert f"](docs/{page}.md)" in readme and (ROOT / "docs" / f"{page}.md").exists(), page


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_learning_path_lists_the_notebook_as_core_or_optional(path):
    readme = (ROOT / "README.md").read_text()
    row = [line for line in readme.splitlines() if f"](notebooks/{path.name})" in line]
    assert len(row) == 1, "one row of the learning path per notebook"
    cols = [c.strip() for c in row[0].strip("|").split(" | ")]
    assert cols[5] == ("optional" if _optional(path) else "core")
    assert re.fullmatch(r"\d+ min", cols[3]), "study time in minutes"
