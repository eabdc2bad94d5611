"""Graded assignments for a class, graded by real nbgrader (marker ``nbgrader``; skip it with
``-m 'not nbgrader'``).

``python -m lecturekit.exercises export-nbgrader`` writes an nbgrader course of every lecture's
exercises (``lecturekit.exercises.nbgrader``). This test runs nbgrader 0.9 on it, in-process
through its Python API (``NbGraderAPI``, what the ``nbgrader`` commands call), as an instructor
would:

1. ``generate_assignment`` of every lecture: the released notebooks hold no worked answer and
   no hidden test;
2. ``autograde`` (each submission run afresh in a new kernel, hidden tests put back) of three
   students: ``worked`` submits the source notebooks (the worked solutions) and must get full
   marks in every lecture; ``untouched`` submits the released notebooks as they are and must get
   0 in every lecture; ``onewrong`` submits lecture 03 with its attention function missing the
   division by sqrt(d_k) and must lose exactly that exercise's points;
3. ``generate_feedback`` writes each lecture-03 student's feedback page, which says what the
   hidden test found.

Offline; nbgrader's kernels use one thread each.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import kernel_sockets  # tests/support
import pytest

from lecturekit.exercises import core
from lecturekit.exercises.nbgrader import assignment_name, export_nbgrader

pytestmark = pytest.mark.nbgrader
nbgrader_apps = pytest.importorskip("nbgrader.apps", reason="nbgrader is not installed")

ROOT = Path(__file__).resolve().parents[1]
# the course's lectures (tests/exercises registers a lecture "99" with no notebook)
LECTURES = [
    x
    for x in core.lectures()
    if (ROOT / "solutions" / f"{core.lecture_notebook(x)}.ipynb").is_file()
]
WRONG_LECTURE, WRONG_EXERCISE = "03", "03.3"
WRONG_ATTENTION = """def my_attention(Q, K, V):
    weights = torch.softmax(Q @ K.transpose(-2, -1), dim=-1)  # forgot / sqrt(d_k)
    return weights @ V"""


def _cell(nb: dict, grade_id: str) -> dict:
    return next(
        c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The course exported, released, submitted by three students, autograded; returns the
    course folder and {lecture: {student: {grade_id: (score, max)}}}."""
    from nbgrader.api import Gradebook
    from traitlets.config.loader import PyFileConfigLoader

    course = tmp_path_factory.mktemp("course")
    export_nbgrader(course, LECTURES, source=ROOT)
    env = dict(os.environ)
    # nbgrader runs its database migrations with the alembic command, found on PATH
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
        # autograde's kernels on Unix sockets: TCP ports are raced for by the other worker's
        # kernels (tests/support/kernel_sockets.py); one kernel at a time, so one prefix
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = kernel_sockets.socket_prefix()
        api = nbgrader_apps.NbGraderAPI(config=config)
        scores: dict[str, dict[str, dict[str, tuple[float, float]]]] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SQLAlchemy's session warnings inside nbgrader
            for lecture in LECTURES:
                name = assignment_name(lecture)
                notebook = f"{core.lecture_notebook(lecture)}.ipynb"
                result = api.generate_assignment(name, force=True, create=True)
                assert result["success"], f"{name}: generate_assignment failed:\n{result['log']}"
                submissions = {"worked": course / "source" / name / notebook,
                               "untouched": course / "release" / name / notebook}  # fmt: skip
                if lecture == WRONG_LECTURE:
                    nb = json.loads(submissions["worked"].read_text())
                    cell = _cell(nb, f"ex{WRONG_EXERCISE.replace('.', '_')}_answer")
                    cell["source"] = WRONG_ATTENTION
                    wrong = course / "onewrong.ipynb"
                    wrong.write_text(json.dumps(nb))
                    submissions["onewrong"] = wrong
                for student, path in submissions.items():
                    folder = course / "submitted" / student / name
                    folder.mkdir(parents=True)
                    shutil.copy(path, folder / notebook)
                    result = api.autograde(name, student, force=True, create=True)
                    assert result["success"], (
                        f"{name}/{student}: autograde failed:\n{result['log']}"
                    )
            with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
                for lecture in LECTURES:
                    name = assignment_name(lecture)
                    stem = core.lecture_notebook(lecture)
                    scores[lecture] = {
                        student: {g.name: (g.score, g.max_score)
                                  for g in gb.find_submission_notebook(stem, name, student).grades}
                        for student in ("worked", "untouched", "onewrong")
                        if (course / "submitted" / student / name).is_dir()
                    }  # fmt: skip
            result = api.generate_feedback(assignment_name(WRONG_LECTURE), force=True)
            assert result["success"], f"generate_feedback failed:\n{result['log']}"
    finally:
        os.environ.clear()
        os.environ.update(env)
    return course, scores


def test_released_notebooks_hold_no_answer_and_no_hidden_test(graded):
    course, _ = graded
    for lecture in LECTURES:
        name = assignment_name(lecture)
        released = (
            course / "release" / name / f"{core.lecture_notebook(lecture)}.ipynb"
        ).read_text()
        for secret in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "grade("):
            assert secret not in released, f"{name}'s released notebook contains {secret!r}"
        assert released.count("raise NotImplementedError()") == len(core.exercise_ids(lecture))


def test_worked_solutions_get_full_marks_in_every_lecture(graded):
    _, scores = graded
    for lecture, students in scores.items():
        grades = students["worked"]
        assert len(grades) == len(core.exercise_ids(lecture)), lecture
        lost = {g: s for g, s in grades.items() if s[0] != s[1]}
        assert not lost, f"lecture {lecture}: the worked solutions lose points in {lost}"


def test_untouched_notebooks_get_zero_in_every_lecture(graded):
    _, scores = graded
    for lecture, students in scores.items():
        got = {g: s for g, s in students["untouched"].items() if s[0] != 0}
        assert not got, f"lecture {lecture}: the untouched notebook scores in {got}"
        assert sum(s[1] for s in students["untouched"].values()) > 0


def test_one_wrong_answer_loses_exactly_that_exercises_points(graded):
    course, scores = graded
    grades = scores[WRONG_LECTURE]["onewrong"]
    wrong = f"ex{WRONG_EXERCISE.replace('.', '_')}_test"
    assert grades[wrong] == (0, 2), grades
    assert all(score == top for g, (score, top) in grades.items() if g != wrong), grades
    page = course / "feedback" / "onewrong" / assignment_name(WRONG_LECTURE)
    html = (page / f"{core.lecture_notebook(WRONG_LECTURE)}.html").read_text()
    assert f"{WRONG_EXERCISE} scaled dot-product attention, yourself: not yet" in html
