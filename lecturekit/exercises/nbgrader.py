"""The lectures' exercises as an nbgrader course: graded assignments for a class on a hub.

    python -m lecturekit.exercises export-nbgrader --out course/                 # every lecture
    python -m lecturekit.exercises export-nbgrader --out course/ --lecture 03 --lecture 08a

run in the course repository (or ``--from`` it): it reads each lecture's exercises from
``notebooks/`` (what the student is asked) and ``solutions/`` (the worked answers and the set-up
they need), and writes an nbgrader course folder::

    course/nbgrader_config.py
    course/README.md                        # the nbgrader commands, in order
    course/source/lecture03/03_self_attention.ipynb
    ...

One assignment per lecture (``lecture03``; nbgrader ids allow letters, digits, ``_`` and ``-``,
not the dots of ``03.1``), one notebook per assignment: the lecture's exercises as a problem set,
standalone, so that grading a student runs a few seconds of set-up rather than the whole
lecture. Its cells:

* the set-up of the worked solutions (read-only): what the exercises need from the lecture;
* per exercise, the lecture's statement (read-only), an **answer cell** (an nbgrader solution
  cell: the worked solution between ``### BEGIN SOLUTION`` and ``### END SOLUTION``, which
  ``nbgrader generate_assignment`` replaces by ``raise NotImplementedError()``), and a **test
  cell** (read-only, graded, 1 point, 2 for an exercise where the student writes a function or a
  class): the lecture's ``check(...)``, so the student sees *correct* / *not yet* as in the
  lecture, and in a hidden-test block ``grade(...)``, which judges the answer afresh
  (``lecturekit.exercises.core.grade``: no notebook state is read, so resetting or faking the
  in-notebook checker changes nothing).

What a grade can and cannot tell: answers stored as salted hashes in lecturekit are the same
for every student and a small whole number can be found by trying values against ``check``
(which is meant for self-study); the code exercises (2 points each) are judged by running the
student's function, which no search finds. docs/teaching-a-class.md says how to weigh them.

The export checks what it reads (every exercise of the lecture found once in the notebook and
once in the solutions, their ``check`` calls parseable) and refuses with a clear error naming
the lecture and the exercise otherwise.
"""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lecturekit.exercises import core

__all__ = ["assignment_name", "export_nbgrader", "source_notebook"]

SCHEMA_VERSION = 3
_HEADING = re.compile(r"^##\s+Exercise\s+(\d+)\b")  # in the solutions
_EXERCISE = re.compile(r"^(###\s+Exercise|\*\*Exercise)", re.M)  # in the lecture


def assignment_name(lecture: str) -> str:
    """The nbgrader assignment of a lecture: "03" -> "lecture03" (no dots: nbgrader's ids are
    letters, digits, "_" and "-")."""
    core.lecture_notebook(lecture)  # ValueError naming the known lectures
    return f"lecture{lecture}"


def _grade_id(exercise_id: str, part: str) -> str:
    return f"ex{exercise_id.replace('.', '_')}_{part}"  # "03.1" -> "ex03_1_answer"


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _parse(code: str) -> ast.Module:
    # IPython's magics (the set-up cell's %pip) are not Python: blank them for the parser only
    return ast.parse(re.sub(r"^(\s*)[%!].*$", r"\1pass", code, flags=re.M))


@dataclass
class _Check:
    cell: int  # index of the code cell holding the call
    call: ast.Call
    code: str  # that cell's source
    statement: ast.stmt  # the top-level statement that is the call

    def arg(self) -> str:
        return ast.get_source_segment(self.code, self.call.args[1])

    def keywords(self) -> list[str]:
        return [ast.get_source_segment(self.code, k) for k in self.call.keywords]


def _checks(nb: dict, where: str) -> dict[str, _Check]:
    """exercise id -> its ``check("id", answer, ...)`` call (a top-level statement)."""
    found: dict[str, _Check] = {}
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        code = _source(cell)
        for stmt in _parse(code).body:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "check"):
                continue
            if len(call.args) != 2 or not isinstance(call.args[0], ast.Constant):
                raise ValueError(
                    f"{where}, cell {i}: check(...) should read "
                    f'check("NN.k", answer, ...), got {ast.unparse(call)}'
                )
            ex_id = call.args[0].value
            if ex_id in found:
                raise ValueError(
                    f"{where}: exercise {ex_id} is checked in two cells "
                    f"({found[ex_id].cell} and {i}); the export needs one"
                )
            found[ex_id] = _Check(i, call, code, stmt)
    return found


def _markdown(text: str, grade_id: str) -> dict:
    return {"cell_type": "markdown", "id": grade_id, "source": text,
            "metadata": {"nbgrader": _meta(grade_id, locked=True)}}  # fmt: skip


def _code(text: str, grade_id: str, **meta: object) -> dict:
    return {"cell_type": "code", "id": grade_id, "source": text, "execution_count": None,
            "outputs": [], "metadata": {"nbgrader": _meta(grade_id, **meta)}}  # fmt: skip


def _meta(grade_id: str, *, locked: bool = False, solution: bool = False,
          points: int | None = None) -> dict:  # fmt: skip
    meta = {"grade": points is not None, "grade_id": grade_id, "locked": locked,
            "schema_version": SCHEMA_VERSION, "solution": solution, "task": False}  # fmt: skip
    if points is not None:
        meta["points"] = points
    return meta


def _statement(nb: dict, stub_cell: int) -> str:
    """The lecture's markdown cells just above the exercise's cell (its heading and text)."""
    cells = []
    i = stub_cell - 1
    while i >= 0 and nb["cells"][i]["cell_type"] == "markdown":
        text = _source(nb["cells"][i]).strip()
        head = _EXERCISE.search(text)
        if head:  # the exercise's own heading, maybe under the "## Exercises" introduction
            cells.insert(0, text[head.start() :])
            break
        if text.startswith("#"):  # another section's heading: not the exercise's
            break
        cells.insert(0, text)
        i -= 1
    return "\n\n".join(cells)


def _defines(code: str) -> set[str]:
    """The names a cell's code defines at its top level."""
    names: set[str] = set()
    for stmt in _parse(code).body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(stmt.name)
        for node in (
            ast.walk(stmt)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For))
            else ()
        ):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def _without(code: str, stmt: ast.stmt) -> str:
    """``code`` without the lines of one top-level statement (the check call)."""
    lines = code.splitlines()
    del lines[stmt.lineno - 1 : stmt.end_lineno]
    return "\n".join(lines).strip("\n")


def source_notebook(lecture: str, lecture_nb: dict, solution_nb: dict) -> dict:
    """The nbgrader source notebook of one lecture: its exercises as a problem set (see the
    module's docstring), from the lecture's notebook and its worked solutions (as dicts)."""
    ids = core.exercise_ids(lecture)
    where_l = f"lecture {lecture}'s notebook"
    where_s = f"lecture {lecture}'s solutions"
    asked, solved = _checks(lecture_nb, where_l), _checks(solution_nb, where_s)
    for ex_id in ids:
        for where, found in ((where_l, asked), (where_s, solved)):
            if ex_id not in found:
                raise ValueError(f"{where} has no check({ex_id!r}, ...) cell")
    cells = solution_nb["cells"]
    heads = {}  # exercise number -> index of its "## Exercise k" heading in the solutions
    for i, cell in enumerate(cells):
        match = _HEADING.match(_source(cell)) if cell["cell_type"] == "markdown" else None
        if match:
            heads[int(match.group(1))] = i
    if sorted(heads) != list(range(1, len(ids) + 1)):
        raise ValueError(f"{where_s}: expected headings '## Exercise 1' .. '## Exercise "
                         f"{len(ids)}', found {sorted(heads)}")  # fmt: skip

    title = _source(lecture_nb["cells"][0]).splitlines()[0].lstrip("# ").strip()
    grade_words = (
        "Each exercise has an answer cell (write your code where it says `YOUR CODE HERE`) "
        "and a test cell below it that runs the lecture's `check`: *correct* or *not yet*, "
        'never the answer; `hint("NN.k")` gives one hint at a time. Your grade comes from '
        "tests your instructor runs after you submit."
    )
    out = [_markdown(f"# Graded exercises · {title}\n\n{grade_words}", "intro")]
    setup = []
    for cell in cells[1 : heads[1]]:
        if cell["cell_type"] == "code":
            setup.append(_source(cell).strip("\n"))
        elif setup or _source(cell).strip():
            setup.append("# " + _source(cell).strip().replace("\n", "\n# "))  # its prose
    setup.append("from lecturekit.exercises import check, grade, hint")
    out.append(_code("\n\n".join(setup), "setup", locked=True))

    order = sorted(ids, key=lambda i: int(i.split(".")[1]))
    for k, ex_id in enumerate(order, start=1):
        ask, sol = asked[ex_id], solved[ex_id]
        first = heads[k]
        last = heads.get(k + 1, len(cells))
        if not first < sol.cell < last:
            raise ValueError(f"{where_s}: check({ex_id!r}, ...) is not under '## Exercise {k}'")
        answer_name = ask.arg()
        if not answer_name.isidentifier():
            raise ValueError(f"{where_l}: check({ex_id!r}, ...) should pass a name as the answer, "
                             f"got {answer_name}")  # fmt: skip
        parts = [_source(c).strip("\n") for c in cells[first + 1 : sol.cell]
                 if c["cell_type"] == "code"]  # fmt: skip
        parts.append(_without(sol.code, sol.statement))
        if sol.arg() != answer_name:
            parts.append(f"{answer_name} = {sol.arg()}")
        solution = "\n\n".join(p for p in parts if p.strip())
        context = {n for kw in sol.call.keywords for n in _names(kw.value)}
        wanted = [answer_name, *sorted(context & _defines(solution))]
        writes_code = any(
            isinstance(s, (ast.FunctionDef, ast.ClassDef)) and s.name == answer_name
            for s in _parse(_source(lecture_nb["cells"][ask.cell])).body
        )
        points = 2 if writes_code else 1
        call = ", ".join([repr(ex_id), answer_name, *sol.keywords()])
        gid = ex_id.replace(".", "_")
        out.append(_markdown(f"{_statement(lecture_nb, ask.cell)}\n\n*({points} point"
                             f"{'s' if points > 1 else ''})*", f"ex{gid}_text"))  # fmt: skip
        out.append(_code(
            f"# Define {', '.join(f'`{n}`' for n in wanted)} (see the exercise above).\n"
            f"### BEGIN SOLUTION\n{solution}\n### END SOLUTION",
            _grade_id(ex_id, "answer"), solution=True))  # fmt: skip
        out.append(_code(
            f"check({call})\n### BEGIN HIDDEN TESTS\ngrade({call})\n### END HIDDEN TESTS",
            _grade_id(ex_id, "test"), locked=True, points=points))  # fmt: skip
    meta = copy.deepcopy(lecture_nb.get("metadata", {}))
    meta = {k: meta[k] for k in ("kernelspec", "language_info") if k in meta}
    return {"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


CONFIG = """\
# nbgrader's configuration of the lecturekit course (python -m lecturekit.exercises
# export-nbgrader wrote it; see README.md here and docs/teaching-a-class.md).
c = get_config()  # noqa: F821 (nbgrader defines it)
c.CourseDirectory.course_id = "lecturekit"
c.CourseDirectory.root = __import__("os").path.dirname(__import__("os").path.abspath(__file__))
# the released answer cells say where to write
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}
# a problem set's set-up trains a tiny model for at most a few seconds on one core; allow a
# busy hub ten times that per cell
c.Execute.timeout = 300
"""

README = """\
# The lecturekit course for nbgrader

Written by `python -m lecturekit.exercises export-nbgrader`: one assignment per lecture
(`{first}` ... `{last}`), each one notebook of that lecture's exercises. Run the commands from
this folder (where `nbgrader_config.py` is), in an environment with lecturekit and nbgrader:

    nbgrader generate_assignment {first} --create
    #   release/{first}/: worked answers and hidden tests removed; students fetch it (nbgrader's
    #   exchange, or an nbgitpuller link to release/), submit it, and you collect the
    #   submissions into submitted/<student>/{first}/
    nbgrader autograde {first}          # each submission run afresh, hidden tests put back
    nbgrader generate_feedback {first}  # feedback/<student>/{first}/*.html
    nbgrader export                      # grades.csv

Points: {points}
"""


def export_nbgrader(out: str | Path, lectures: Iterable[str] | None = None,
                    source: str | Path = ".") -> list[Path]:  # fmt: skip
    """Write the nbgrader course of ``lectures`` (default: every lecture with exercises) into
    ``out``, reading ``source``'s ``notebooks/`` and ``solutions/``; returns the source
    notebooks written. Validates every input and the output folder before writing anything."""
    source, out = Path(source), Path(out)
    chosen = list(core.lectures() if lectures is None else lectures)
    if not chosen:
        raise ValueError("lectures must name at least one lecture, got none")
    for lecture in chosen:
        core.lecture_notebook(lecture)  # ValueError naming the known lectures
    for folder in ("notebooks", "solutions"):
        if not (source / folder).is_dir():
            raise ValueError(f"source must be the course repository (with notebooks/ and "
                             f"solutions/), got {str(source)!r}: it has no {folder}/")  # fmt: skip
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must be a folder, got {str(out)!r}, which is a file")
    notebooks = {}
    for lecture in chosen:
        stem = core.lecture_notebook(lecture)
        read = {}
        for folder in ("notebooks", "solutions"):
            path = source / folder / f"{stem}.ipynb"
            if not path.is_file():
                raise ValueError(f"lecture {lecture}: {folder}/{stem}.ipynb is missing in "
                                 f"{str(source)!r}")  # fmt: skip
            read[folder] = json.loads(path.read_text(encoding="utf-8"))
        notebooks[lecture] = source_notebook(lecture, read["notebooks"], read["solutions"])
    out.mkdir(parents=True, exist_ok=True)
    written = []
    points = []
    for lecture, nb in notebooks.items():
        folder = out / "source" / assignment_name(lecture)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{core.lecture_notebook(lecture)}.ipynb"
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
        total = sum(c["metadata"]["nbgrader"].get("points", 0) for c in nb["cells"])
        points.append(f"{assignment_name(lecture)} {total}")
    (out / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    names = [assignment_name(lecture) for lecture in chosen]
    (out / "README.md").write_text(
        README.format(first=names[0], last=names[-1], points=", ".join(points)), encoding="utf-8"
    )
    return written
