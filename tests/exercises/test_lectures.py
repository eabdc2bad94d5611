"""Every lecture's exercises go through lecturekit.exercises: no notebook defines a checker or
holds an expected answer, every exercise has a worked solution in solutions/ that its checker
accepts (stored output "correct", re-checked by nbval), and each lecture has an exercise where
the student writes code."""

import json
import re
from pathlib import Path

import pytest

from lecturekit import exercises

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
CHECK_ID = re.compile(r"""\bcheck\(\s*["'](\d\d[a-z]?\.\d+)["']""")
CHECK = re.compile(r"""\bcheck\(\s*["'](\d\d[a-z]?\.\d+)["']\s*,\s*([A-Za-z_][A-Za-z_0-9]*)""")


def _lecture(path: Path) -> str:
    return path.stem.split("_")[0]


def _code_cells(path: Path) -> list[dict]:
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _stream(cell: dict) -> str:
    return "".join(
        "".join(o.get("text", "")) for o in cell["outputs"] if o["output_type"] == "stream"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_lecture_registers_its_exercises(path):
    assert exercises.lecture_notebook(_lecture(path)) == path.stem
    assert len(exercises.exercise_ids(_lecture(path))) >= 3


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_checks_every_exercise_without_its_answer(path):
    lecture, cells = _lecture(path), _code_cells(path)
    text = "\n".join(_source(c) for c in cells)
    for banned in ("def check_exercise", "def _status", "def _report"):
        assert banned not in text, f"{banned}: checkers live in lecturekit.exercises"
    used = [(m[1], m[2], c) for c in cells for m in CHECK.finditer(_source(c))]
    assert [i for i, _, _ in used] == exercises.exercise_ids(lecture), (
        "one check per exercise, in order"
    )
    code_exercises = 0
    for exercise_id, name, cell in used:
        source = _source(cell)
        asserted = re.findall(rf"^{name} = (.*)$", source, re.M)
        defined = re.search(rf"^(?:def {name}\(|class {name}\b).*?(?=^\S|\Z)", source, re.M | re.S)
        assert asserted or defined, f"{exercise_id}: the cell defines {name}"
        for value in asserted:  # the starting answer is None: the student writes it
            assert value.split("#")[0].strip() == "None", f"{exercise_id}: {name} = {value}"
        if defined:  # a code exercise starts from a stub
            assert "raise NotImplementedError" in defined.group(0), exercise_id
            code_exercises += 1
        assert "not attempted yet" in _stream(cell), f"{exercise_id}: stored from a clean run"
    assert code_exercises >= 1, "each lecture has an exercise where the student writes code"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exercise_has_a_worked_solution_its_checker_accepts(path):
    lecture = _lecture(path)
    solution = ROOT / "solutions" / path.name
    assert solution.exists(), f"solutions/{path.name} is missing"
    cells = _code_cells(solution)
    checked = {}
    for cell in cells:
        for m in CHECK_ID.finditer(_source(cell)):
            checked[m[1]] = _stream(cell)
    assert sorted(checked) == sorted(exercises.exercise_ids(lecture))
    for exercise_id, out in checked.items():
        assert f"{exercise_id} " in out and ": correct: " in out, f"{exercise_id}: {out!r}"
        assert "not yet" not in out and "not attempted" not in out, exercise_id
    last = _source(cells[-1])
    assert f'solved("{lecture}")' in last and "claim(" in last
    assert f"every exercise of lecture {lecture} is solved" in _stream(cells[-1])


SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.name)
def test_solutions_notebook_is_stored_from_one_clean_run(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1))
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]
    assert not re.search(r"/(root|home|tmp|Users|work)/[A-Za-z0-9_.-]+/", json.dumps(nb))
    assert "".join(nb["cells"][0]["source"]).startswith("# Solutions · Lecture ")
    assert (ROOT / "notebooks" / path.name).exists(), "a solutions notebook per lecture notebook"
