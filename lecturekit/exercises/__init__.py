"""Exercises that check an answer without showing it: ``check(id, answer)`` and ``hint(id)``.

Public API::

    from lecturekit.exercises import check, hint
    answer = None                      # the student's answer
    check("03.2", answer)              # "not attempted yet" / "correct: ..." / "not yet: ..."
    hint("03.2")                       # the next hint, one more each call
    check("01.3", answer, teacher_forced=losses, attention=ATTENTION)  # given the cell's objects
    progress("03")                     # the lecture's exercises with ✓ / ✗ / ·
    solved("03")                       # a Verdict for claim(): every exercise correct here
    grade("03.2", answer)              # for graders: AssertionError unless correct, no state
    quiz({"03.r1": None, "03.r2": "smaller"})  # the decks' fill-in blanks (recall)

Expected values are stored as salted hashes or computed by a checker (``core``); the worked
solutions are in ``solutions/NN_*.ipynb``, outside the student's notebooks. Each lecture's
exercises are registered by its module (``lecture_00`` ... ``lecture_15``, ``lecture_10b``)
on import.
Command line for authors: ``python -m lecturekit.exercises list | hash`` (``cli``).

Modules:

- ``core``: the registry, hashed expected answers, the checkers' helpers;
- ``recall``: the decks' fill-in blanks and ``quiz``;
- ``cli``: ``list`` / ``hash`` / ``export-nbgrader`` (``__main__`` runs it);
- ``nbgrader``: every lecture's exercises as an nbgrader course;
- ``lecture_00`` ... ``lecture_15`` (with ``lecture_00b``, ``02b``, ``07b``, ``08a``, ``08b``,
  ``09a``, ``09b``, ``10b``, ``11b``, ``14b``): each lecture's exercises, registered on import.
"""

from lecturekit.exercises import (  # noqa: F401  (importing registers the exercises)
    lecture_00,
    lecture_00b,
    lecture_01,
    lecture_02,
    lecture_02b,
    lecture_03,
    lecture_04,
    lecture_05,
    lecture_06,
    lecture_07,
    lecture_07b,
    lecture_08a,
    lecture_08b,
    lecture_09,
    lecture_09a,
    lecture_09b,
    lecture_10,
    lecture_10b,
    lecture_11,
    lecture_11b,
    lecture_12,
    lecture_13,
    lecture_14,
    lecture_14b,
    lecture_15,
    recall,
)
from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    answer_hashes,
    check,
    exercise_ids,
    get,
    grade,
    hint,
    lecture_notebook,
    lectures,
    progress,
    reset,
    solved,
    status,
)
from lecturekit.exercises.recall import quiz, recall_ids

__all__ = ["Exercise", "Expected", "NotYet", "answer_hashes", "check", "exercise_ids", "get",
           "grade", "hint", "lecture_notebook", "lectures", "progress", "quiz", "recall_ids",
           "reset", "solved", "status"]  # fmt: skip
