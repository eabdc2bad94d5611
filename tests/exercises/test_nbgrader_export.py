"""The nbgrader export (lecturekit.exercises.nbgrader) without nbgrader: what it writes and what
it refuses. tests/test_nbgrader.py grades the export with real nbgrader."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lecturekit.exercises import core, grade
from lecturekit.exercises.cli import main
from lecturekit.exercises.nbgrader import assignment_name, export_nbgrader, source_notebook

ROOT = Path(__file__).resolve().parents[2]
VALID_ID = re.compile(r"^[a-zA-Z0-9_\-]+$")  # nbgrader's schema for grade ids
# the course's lectures (other tests register a lecture "99" with no notebook)
LECTURES = [
    x
    for x in core.lectures()
    if (ROOT / "solutions" / f"{core.lecture_notebook(x)}.ipynb").is_file()
]


def _read(folder: str, lecture: str) -> dict:
    return json.loads((ROOT / folder / f"{core.lecture_notebook(lecture)}.ipynb").read_text())


def test_every_lecture_exports_with_valid_ids_points_and_hidden_tests(tmp_path):
    written = export_nbgrader(tmp_path, LECTURES, source=ROOT)
    assert len(LECTURES) >= 25
    assert (tmp_path / "nbgrader_config.py").is_file() and (tmp_path / "README.md").is_file()
    for lecture, path in zip(LECTURES, written, strict=True):
        assert path.parent.name == assignment_name(lecture) and "." not in path.parent.name
        nb = json.loads(path.read_text())
        meta = [c["metadata"]["nbgrader"] for c in nb["cells"]]
        ids = [m["grade_id"] for m in meta]
        assert len(ids) == len(set(ids)) and all(VALID_ID.match(i) for i in ids), ids
        tests = [c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade"]]
        answers = [c for c in nb["cells"] if c["metadata"]["nbgrader"]["solution"]]
        assert len(tests) == len(answers) == len(core.exercise_ids(lecture))
        for cell in tests:
            assert cell["metadata"]["nbgrader"]["points"] in (1, 2)
            assert cell["metadata"]["nbgrader"]["locked"]
            visible, hidden = cell["source"].split("### BEGIN HIDDEN TESTS")
            assert visible.startswith("check(") and hidden.strip().startswith("grade(")
        for cell in answers:
            assert "### BEGIN SOLUTION" in cell["source"] and "check(" not in cell["source"]


def test_a_function_to_write_is_worth_two_points_a_value_one():
    nb = source_notebook("03", _read("notebooks", "03"), _read("solutions", "03"))
    points = {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"].get("points")
              for c in nb["cells"] if c["metadata"]["nbgrader"]["grade"]}  # fmt: skip
    assert points == {"ex03_1_test": 1, "ex03_2_test": 1, "ex03_3_test": 2, "ex03_4_test": 1}


def test_grade_judges_afresh_and_says_why():
    core.reset()
    with pytest.raises(AssertionError, match=r"03\.1 the softmax by hand: not attempted"):
        grade("03.1", None)
    with pytest.raises(AssertionError, match="not yet: number 1, 2 of 2 is not right"):
        grade("03.1", (0.5, 0.5))
    assert "0.88" in grade("03.1", (0.8808, 0.1192))
    assert core.status("03.1") == core.NOT_ATTEMPTED  # nothing recorded
    with pytest.raises(ValueError, match=r"grade\('04.1', answer, \.\.\.\) takes mha=\.\.\., x="):
        grade("04.1", 1.0)


def test_a_missing_check_is_refused_naming_the_lecture_and_exercise():
    lecture = _read("notebooks", "03")
    for cell in lecture["cells"]:
        src = "".join(cell["source"])
        if 'check("03.2"' in src:
            cell["source"] = src.replace('check("03.2", answer)', "pass")
    with pytest.raises(ValueError, match=r"lecture 03's notebook has no check\('03.2', \.\.\.\)"):
        source_notebook("03", lecture, _read("solutions", "03"))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--lecture", "42"], "lecture must be one of"),
        (["--from", "nowhere"], "source must be the course repository"),
        (["--out", "FILE"], "out must be a folder"),
    ],
)
def test_the_command_refuses_bad_arguments_in_one_line(args, message, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    argv = ["export-nbgrader", "--out", str(tmp_path / "course"), "--from", str(ROOT)]
    argv += [str(tmp_path / "file") if a == "FILE" else a for a in args]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "course").exists()


def test_the_command_writes_one_lecture(tmp_path, capsys):
    assert main(["export-nbgrader", "--out", str(tmp_path), "--lecture", "03",
                 "--from", str(ROOT)]) == 0  # fmt: skip
    assert "wrote 1 assignments" in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "source").iterdir()] == ["lecture03"]
