"""The exercise registry and the student's two functions, ``check`` and ``hint``.

Every exercise of every lecture is registered here (by ``lecturekit.exercises.lecture_NN``)
under an id ``"NN.k"`` (lecture, number), with its hints and one of two ways to judge an answer:

* a **stored expected value**, kept only as salted hashes (``Expected``): the answer is put in a
  canonical form (``canonical``: whole numbers as they are, floats rounded to a stated number
  of decimals, text lower-cased with its spacing collapsed, word lists in order, sets sorted)
  and its hash compared. The notebook never holds the value, and neither does this package's
  source; the solutions notebooks (``solutions/``) work it out. (A salted hash hides an answer
  from reading, not from a brute-force search over small integers: it keeps honest students
  honest, which is all it is for.)
* a **checker** that computes the truth itself, from lecturekit or from the student's own
  objects passed to ``check`` as keywords, and returns the message to print on success or
  raises ``NotYet`` with what is wrong (never the expected value). Exercises where the student
  writes code are judged this way: the checker runs the student's function on several inputs
  and compares it with lecturekit's. Checkers share ``run_student`` (call the student's code),
  ``as_tensor`` / ``as_mask`` (the answer as a tensor of the right shape) and ``same_values``
  (compare it with the truth), so that every lecture says "not yet" the same way.

A float answer is accepted when it, or it plus or minus half a unit of the last decimal, rounds
to the expected value's rounding at ``precision`` decimals: an answer within one unit of the
last decimal passes (the expected 0.8808 accepts 0.88071 to 0.88089), so rounding the answer
differently never fails it.

``check`` and ``hint`` talk to the student (they print; library code otherwise never does).

Lecture: every notebook's exercises.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch

from lecturekit.utils.checks import check_choice, check_non_negative_int, check_str, did_you_mean
from lecturekit.utils.claims import Verdict, close

__all__ = ["KINDS", "SALT", "Exercise", "Expected", "NotYet", "PageAnswer", "answer_hashes",
           "as_mask", "as_tensor", "canonical", "check", "form_hash", "same_values",
           "exercise", "exercise_ids", "get", "grade", "hint", "is_recall", "lecture_notebook",
           "lectures", "progress",
           "register", "register_lecture", "reset", "run_student", "solved", "status"]  # fmt: skip

SALT = "lecturekit/exercises/v1"
KINDS = ("int", "float", "floats", "text", "words", "set")
NOT_ATTEMPTED, NOT_YET, CORRECT = "not attempted", "not yet", "correct"


class NotYet(Exception):
    """Raised by a checker: the answer is not right yet. The message says what is wrong without
    giving the expected answer away."""


class _NotAttempted(NotYet):
    """The student's function still raises NotImplementedError: the exercise's starting stub."""


@dataclass(frozen=True)
class Expected:
    """A stored expected answer: its kind, its salted hashes and, for floats, the decimals.

    ``hashes`` holds alternatives (any one matches), except for ``kind="floats"``, where it
    holds one hash per element, in order.
    """

    kind: str
    hashes: tuple[str, ...]
    precision: int = 0

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        check_non_negative_int("precision", self.precision)
        if not self.hashes:
            raise ValueError("hashes must hold at least one hash, got none")


@dataclass(frozen=True)
class PageAnswer:
    """A checker exercise's answer as a short value, for the course website, which checks
    answers without a kernel (``lecturekit_publish.answers``): the ``value`` the checker accepts,
    judged as an ``Expected`` of this ``kind`` and ``precision`` would judge it, and ``traps``,
    wrong values whose own "not yet" message (the checker's) the page shows. Only hashes of
    them reach the page."""

    kind: str
    value: object
    precision: int = 0
    traps: tuple[object, ...] = ()

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        check_non_negative_int("precision", self.precision)


@dataclass(frozen=True)
class Exercise:
    """One exercise: ``id`` ("NN.k"), a short ``title``, ``hints`` (revealed one at a time) and
    either ``expected`` (hashed) or ``checker(answer, **context) -> message``. ``correct`` is
    the message printed for a right hashed answer (``{answer}`` is replaced by the answer).
    ``page``, for a checker without context whose answer is a short value, computes that value
    (a ``PageAnswer``) so the website can check it too."""

    id: str
    title: str
    hints: tuple[str, ...]
    expected: Expected | None = None
    checker: Callable[..., str] | None = None
    correct: str = "{answer}"
    page: Callable[[], PageAnswer] | None = None
    context: tuple[str, ...] = field(default=(), init=False)

    def __post_init__(self):
        _check_id(self.id)
        check_str("title", self.title)
        if not self.hints or not all(isinstance(h, str) and h.strip() for h in self.hints):
            raise ValueError(f"exercise {self.id}: hints must be one or more non-empty strings")
        if (self.expected is None) == (self.checker is None):
            raise ValueError(f"exercise {self.id}: give exactly one of expected= or checker=")
        if self.checker is not None:
            params = inspect.signature(self.checker).parameters.values()
            needed = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
            object.__setattr__(self, "context", needed)
        if self.page is not None and (self.checker is None or self.context):
            raise ValueError(f"exercise {self.id}: page= is for a checker without context")

    @property
    def lecture(self) -> str:
        return self.id.split(".")[0]


_REGISTRY: dict[str, Exercise] = {}
_NOTEBOOKS: dict[str, str] = {}  # lecture -> notebook stem, e.g. "03" -> "03_self_attention"
_STATUS: dict[str, str] = {}
_HINTS_SHOWN: dict[str, int] = {}


def _check_id(exercise_id: object) -> str:
    check_str("exercise_id", exercise_id)
    lecture, _, number = exercise_id.partition(".")
    number = number.removeprefix("r")  # "03.r1": a recall blank (lecturekit.exercises.recall)
    if not (len(lecture) in (2, 3) and lecture[:2].isdigit() and number.isdigit()):
        raise ValueError(
            f"exercise_id must look like '03.2' (lecture, then the exercise's number) or "
            f"'03.r1' (a recall blank), got {exercise_id!r}"
        )
    return exercise_id


def is_recall(exercise_id: str) -> bool:
    """Whether ``exercise_id`` names a recall blank ("03.r1") rather than an exercise."""
    return exercise_id.partition(".")[2].startswith("r")


def register_lecture(lecture: str, notebook: str) -> None:
    """Name the notebook (file stem, e.g. "03_self_attention") of a lecture's exercises; its
    worked solutions are in ``solutions/<notebook>.ipynb``."""
    check_str("lecture", lecture)
    check_str("notebook", notebook)
    _NOTEBOOKS[lecture] = notebook


def register(ex: Exercise) -> Exercise:
    """Add an exercise to the registry (its lecture registered first); returns it."""
    if not isinstance(ex, Exercise):
        raise ValueError(f"ex must be an Exercise, got {type(ex).__name__}")
    if ex.lecture not in _NOTEBOOKS:
        raise ValueError(f"exercise {ex.id}: register_lecture({ex.lecture!r}, ...) first")
    if ex.id in _REGISTRY:
        raise ValueError(f"exercise {ex.id} is registered twice")
    _REGISTRY[ex.id] = ex
    return ex


def exercise(
    exercise_id: str,
    title: str,
    hints: Iterable[str],
    page: Callable[[], PageAnswer] | None = None,
) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Decorator: register the function as the checker of a new exercise (``page``: see
    ``Exercise``)."""

    def wrap(checker: Callable[..., str]) -> Callable[..., str]:
        register(Exercise(exercise_id, title, tuple(hints), checker=checker, page=page))
        return checker

    return wrap


def lectures() -> list[str]:
    """The lectures that have exercises, in course order ("01", ..., "08a", "08b", ...)."""
    return sorted(_NOTEBOOKS)


def lecture_notebook(lecture: str) -> str:
    """The notebook stem of a lecture ("03" -> "03_self_attention")."""
    if lecture not in _NOTEBOOKS:
        close = did_you_mean(lecture, _NOTEBOOKS)
        raise ValueError(f"lecture must be one of {lectures()}, got {lecture!r}{close}")
    return _NOTEBOOKS[lecture]


def exercise_ids(lecture: str | None = None) -> list[str]:
    """Every registered exercise id (of one lecture, if given), in course order (the recall
    blanks, "03.r1", are listed by ``lecturekit.exercises.recall.recall_ids``)."""
    if lecture is not None:
        lecture_notebook(lecture)
    ids = [i for i in _REGISTRY if not is_recall(i)
           and (lecture is None or _REGISTRY[i].lecture == lecture)]  # fmt: skip
    return sorted(ids, key=lambda i: (i.split(".")[0], int(i.split(".")[1])))


def get(exercise_id: object) -> Exercise:
    """The registered exercise ``exercise_id`` (ValueError naming the close ids if unknown)."""
    _check_id(exercise_id)
    if exercise_id not in _REGISTRY:
        lecture = exercise_id.split(".")[0]
        known = (f"lecture {lecture}'s are {exercise_ids(lecture)}" if lecture in _NOTEBOOKS
                 else f"the lectures with exercises are {lectures()}")  # fmt: skip
        from lecturekit import __version__

        raise ValueError(
            f"exercise_id {exercise_id!r} is not an exercise; {known}"
            f"{did_you_mean(exercise_id, _REGISTRY)} (a notebook newer than this kernel's "
            f"lecturekit {__version__} may ask for one it does not know yet: update lecturekit)"
        )
    return _REGISTRY[exercise_id]


# ---------------------------------------------------------------------------------------------
# canonical forms and hashes


def _number(value: object) -> float:
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise NotYet(f"expected one number, got a tensor of shape {tuple(value.shape)}")
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise NotYet(f"expected a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise NotYet(f"expected a finite number, got {value}")
    return value


def _round(value: float, precision: int) -> str:
    text = f"{round(value, precision):.{precision}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.00"


def _float_forms(value: float, precision: int) -> list[str]:
    # an answer on a rounding boundary (0.125 to 2 decimals) may round either way; just under
    # half a unit, so that a whole number is never taken for its neighbour (1 + 0.5 rounds to
    # 2 and 1 - 0.5 to 0 under Python's round-half-to-even)
    half = 0.5 * 10.0**-precision * (1 - 1e-9)
    return list(dict.fromkeys(_round(value + d, precision) for d in (0.0, -half, half)))


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise NotYet(f"expected a string, got {type(value).__name__}")
    text = " ".join(value.lower().split()).strip(" .\"'`")
    if not text:
        raise NotYet("the answer is an empty string")
    return text


def _items(value: object) -> list[object]:
    if isinstance(value, torch.Tensor):
        return value.flatten().tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise NotYet(f"expected a list, got {type(value).__name__}")
    return list(value)


def canonical(kind: str, value: object, precision: int = 0) -> list[list[str]]:
    """The canonical forms of an answer: one list of candidate forms per compared part (one
    part, except for ``floats``: one per element). Raises NotYet when the answer cannot be of
    this kind (a string where a number is wanted, ...)."""
    check_choice("kind", kind, KINDS)
    if kind == "int":
        number = _number(value)
        if number != int(number):
            raise NotYet(f"expected a whole number, got {number:g}")
        return [[str(int(number))]]
    if kind == "float":
        return [_float_forms(_number(value), precision)]
    if kind == "floats":
        return [_float_forms(_number(v), precision) for v in _items(value)]
    if kind == "text":
        return [[_text(value)]]
    if kind == "words":
        words = value.split() if isinstance(value, str) else _items(value)
        return [[" ".join(_text(w) for w in words)]]
    items = _items(value)  # set: order and repeats do not matter
    forms = sorted({_text(v) if isinstance(v, str) else str(int(_number(v))) for v in items})
    return [["|".join(forms)]]


def form_hash(exercise_id: str, kind: str, part: int, form: str) -> str:
    """The salted hash of one canonical form (``canonical``) of part ``part`` of an answer; the
    website's checker (``lecturekit_publish``'s ``lk-answers.js``) computes the same."""
    text = f"{SALT}|{exercise_id}|{kind}|{part}|{form}"
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def answer_hashes(
    exercise_id: str, kind: str, value: object, precision: int = 0
) -> tuple[str, ...]:
    """The hashes to store in ``Expected`` for the answer ``value`` (for the people writing
    exercises: ``python -m lecturekit.exercises hash 03.3 int 256``). For ``floats``, one hash
    per element; otherwise one (call again for each accepted alternative)."""
    _check_id(exercise_id)
    check_non_negative_int("precision", precision)
    try:
        parts = canonical(kind, value, precision)
    except NotYet as err:
        raise ValueError(f"value cannot be a {kind} answer: {err}") from None
    return tuple(form_hash(exercise_id, kind, i, forms[0]) for i, forms in enumerate(parts))


def _to(precision: int) -> str:
    return f"to {precision} decimals" if precision else "as whole numbers"


def _judge_expected(ex: Exercise, answer: object) -> str:
    exp = ex.expected
    parts = canonical(exp.kind, answer, exp.precision)
    if exp.kind == "floats":
        if len(parts) != len(exp.hashes):
            raise NotYet(f"expected {len(exp.hashes)} numbers, got {len(parts)}")
        wrong = [
            i for i, forms in enumerate(parts)
            if not any(form_hash(ex.id, exp.kind, i, f) == exp.hashes[i] for f in forms)
        ]  # fmt: skip
        if wrong:
            which = ", ".join(str(i + 1) for i in wrong)
            raise NotYet(f"number {which} of {len(parts)} is not right ({_to(exp.precision)})")
    elif not any(form_hash(ex.id, exp.kind, 0, f) in exp.hashes for f in parts[0]):
        what = f" (compared {_to(exp.precision)})" if exp.kind == "float" else ""
        raise NotYet(f"that is not the expected answer{what}")
    shown = answer
    if exp.kind in ("float", "floats"):
        nums = [_number(v) for v in (_items(answer) if exp.kind == "floats" else [answer])]
        text = ", ".join(f"{v:.{exp.precision}f}" for v in nums)
        shown = text if exp.kind == "float" else f"({text})"
    return ex.correct.format(answer=shown)


# ---------------------------------------------------------------------------------------------
# helpers for checkers


def run_student(fn: object, *args: object, what: str = "your function", **kwargs: object) -> object:
    """Call the student's ``fn``; any exception it raises becomes NotYet naming ``what`` (a
    ``NotImplementedError``, the exercise's starting stub, counts as not attempted yet)."""
    if not callable(fn):
        raise NotYet(f"expected a function (def ...), got {type(fn).__name__}")
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise _NotAttempted("still the stub") from None
    except Exception as err:  # the student's code: report it, do not crash the check
        raise NotYet(f"{what} raised {type(err).__name__}: {err}") from None


def _check_shape(t: torch.Tensor, name: str, shape: tuple[int, ...], dims: str | None) -> None:
    if tuple(t.shape) != tuple(shape):
        wanted = f"{dims} = {tuple(shape)}" if dims else f"{tuple(shape)}"
        raise NotYet(f"{name} should have shape {wanted}, got {tuple(t.shape)}")


def as_tensor(
    value: object,
    name: str,
    *,
    shape: tuple[int, ...] | None = None,
    dims: str | None = None,
    dtype: torch.dtype | None = None,
) -> torch.Tensor:
    """The student's ``value`` as a tensor (a list or array is converted; ``dtype`` if given),
    of ``shape`` if given; otherwise NotYet naming ``name``, what it got and what it wants.

    A tuple whose first element is a tensor stands for that tensor (a function that returns
    ``(output, weights)``). ``dims`` names the dimensions in the message ("(B, T) = (3, 9)").
    """
    if isinstance(value, tuple) and value and isinstance(value[0], torch.Tensor):
        value = value[0]  # a function that returns (output, weights, ...): its output
    try:
        t = torch.as_tensor(value, dtype=dtype)
    except (TypeError, ValueError, RuntimeError):
        raise NotYet(f"{name} should be a tensor, got {type(value).__name__}") from None
    if shape is not None:
        _check_shape(t, name, shape, dims)
    return t


def as_mask(
    value: object, name: str, *, shape: tuple[int, ...] | None = None, dims: str | None = None
) -> torch.Tensor:
    """``as_tensor`` for an attention mask: the student's ``value`` must also be a bool tensor
    (True = may attend); a 0/1 tensor of another dtype gets a NotYet saying how to make one."""
    t = as_tensor(value, name)
    if t.dtype != torch.bool:
        raise NotYet(
            f"{name} should be a bool tensor (True = may attend), got dtype {t.dtype}: "
            "compare, or call .bool()"
        )
    if shape is not None:
        _check_shape(t, name, shape, dims)
    return t


def same_values(
    got: object,
    want: torch.Tensor,
    name: str,
    *,
    dims: str | None = None,
    atol: float = 1e-5,
    rtol: float = 1.3e-6,
) -> torch.Tensor:
    """NotYet unless the student's ``got`` has ``want``'s shape and values; the message names
    ``name``, the shapes or what differs, never the expected values. Returns ``got`` as a
    tensor.

    A floating ``want`` is compared within ``atol`` + ``rtol`` * |want| (a list ``got`` is
    converted in ``want``'s dtype), and the message gives the largest difference; an integer
    or bool ``want`` (ids, masks) is compared exactly, and the message counts the entries that
    differ. ``dims`` names the dimensions in a shape message, as in ``as_tensor``.
    """
    dtype = want.dtype if want.is_floating_point() else None
    t = as_tensor(got, name, shape=tuple(want.shape), dims=dims, dtype=dtype)
    if want.is_floating_point():
        verdict = close(t, want, atol=atol, rtol=rtol)
        if not verdict:
            raise NotYet(f"{name} is not right yet ({verdict.reason})")
        return t
    wrong = (t != want).flatten()
    if bool(wrong.any()):
        first = int(wrong.nonzero()[0])
        index = [int(i) for i in torch.unravel_index(torch.tensor(first), want.shape)]
        where = f", the first at {index}" if index else ""
        raise NotYet(
            f"{name} is not right yet ({int(wrong.sum())} of {want.numel()} entries differ{where})"
        )
    return t


# ---------------------------------------------------------------------------------------------
# the student's functions


def _hint_line(ex: Exercise) -> str:
    shown, total = _HINTS_SHOWN.get(ex.id, 0), len(ex.hints)
    if shown < total:
        return f'   hint("{ex.id}") shows hint {shown + 1} of {total}.'
    if is_recall(ex.id):
        return f'   hint("{ex.id}") again shows the deck\'s word.'
    return f"   worked solution: solutions/{lecture_notebook(ex.lecture)}.ipynb"


def check(exercise_id: str, answer: object, **context: object) -> None:
    """Check an answer to exercise ``exercise_id`` and say how it went (never the answer).

    Args:
        exercise_id: "NN.k", as in the notebook ("03.2").
        answer: the student's answer (``None``: not attempted yet).
        **context: the objects the exercise is about, when its checker needs them (the
            notebook's check cell passes them; a missing one raises ValueError naming it).

    Prints one of "not attempted yet", "correct: ..." or "not yet: <what is wrong>" (with the
    first hint, the first time). Returns None; ``status(exercise_id)`` tells the outcome.
    """
    ex = get(exercise_id)
    _check_context(ex, context, "check")
    not_attempted = f"{ex.id} {ex.title}: not attempted yet (write your answer, run the cell again)"
    if answer is None or answer is Ellipsis:
        _STATUS.setdefault(ex.id, NOT_ATTEMPTED)
        print(not_attempted)
        return
    try:
        if ex.checker is not None:
            message = ex.checker(answer, **context)
        else:
            message = _judge_expected(ex, answer)
    except _NotAttempted:
        _STATUS.setdefault(ex.id, NOT_ATTEMPTED)
        print(not_attempted)
        return
    except NotYet as err:
        _STATUS[ex.id] = NOT_YET
        print(f"{ex.id} {ex.title}: not yet: {err}")
        if _HINTS_SHOWN.get(ex.id, 0) == 0:
            hint(ex.id)
        else:
            print(_hint_line(ex))
        return
    _STATUS[ex.id] = CORRECT
    print(f"{ex.id} {ex.title}: correct: {message}")


def hint(exercise_id: str) -> None:
    """Print the next hint of an exercise (one more each call; then where the worked solution
    is)."""
    ex = get(exercise_id)
    shown = _HINTS_SHOWN.get(ex.id, 0)
    if shown >= len(ex.hints) and is_recall(ex.id):
        print(f"{ex.id} hint {len(ex.hints)} of {len(ex.hints)}: {ex.hints[-1]}")
        return
    if shown >= len(ex.hints):
        print(f"{ex.id}: no more hints; the worked solution is in "
              f"solutions/{lecture_notebook(ex.lecture)}.ipynb")  # fmt: skip
        return
    _HINTS_SHOWN[ex.id] = shown + 1
    print(f"{ex.id} hint {shown + 1} of {len(ex.hints)}: {ex.hints[shown]}")


def _check_context(ex: Exercise, context: dict[str, object], caller: str) -> None:
    missing = [name for name in ex.context if name not in context]
    unknown = [name for name in context if name not in ex.context]
    if missing or unknown:
        wanted = ", ".join(f"{n}=..." for n in ex.context) or "no keyword arguments"
        raise ValueError(
            f"{caller}({ex.id!r}, answer, ...) takes {wanted}; got "
            f"{', '.join(context) or 'none'} (the exercise's cell defines them)"
        )


def grade(exercise_id: str, answer: object, **context: object) -> str:
    """Judge an answer afresh, for a grader (the hidden tests of an nbgrader assignment,
    ``lecturekit.exercises.nbgrader``): returns the "correct" message, or raises
    AssertionError saying "not attempted" or "not yet: <what is wrong>" (never the answer).

    Unlike ``check`` it prints nothing and neither reads nor records the notebook's status, so a
    grade depends on the answer only, not on what was checked (or reset) before.
    """
    ex = get(exercise_id)
    _check_context(ex, context, "grade")
    if answer is None or answer is Ellipsis:
        raise AssertionError(f"{ex.id} {ex.title}: not attempted")
    try:
        return ex.checker(answer, **context) if ex.checker else _judge_expected(ex, answer)
    except _NotAttempted:
        raise AssertionError(f"{ex.id} {ex.title}: not attempted (still the stub)") from None
    except NotYet as err:
        raise AssertionError(f"{ex.id} {ex.title}: not yet: {err}") from None


def status(exercise_id: str) -> str:
    """The last check of this exercise here: "not attempted", "not yet" or "correct"."""
    return _STATUS.get(get(exercise_id).id, NOT_ATTEMPTED)


def progress(lecture: str) -> dict[str, str]:
    """Print a lecture's exercises with their status (✓ correct, · not attempted, ✗ not yet);
    return id -> status."""
    marks = {CORRECT: "✓", NOT_YET: "✗", NOT_ATTEMPTED: "·"}
    result = {i: status(i) for i in exercise_ids(lecture)}
    for i, state in result.items():
        print(f"{marks[state]} {i} {_REGISTRY[i].title}: {state}")
    return result


def solved(lecture: str) -> Verdict:
    """Whether every exercise of the lecture was checked correct here (for ``claim``)."""
    left = [i for i in exercise_ids(lecture) if status(i) != CORRECT]
    return Verdict(not left, f"not correct yet: {', '.join(left)}" if left else "")


def reset() -> None:
    """Forget every status and revealed hint (a fresh start; tests use it)."""
    _STATUS.clear()
    _HINTS_SHOWN.clear()
