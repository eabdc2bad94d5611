"""The exercise helper: answers compared through salted hashes (canonical forms), checkers that
compute the truth, one hint at a time, and nothing that prints the expected answer."""

import pytest
import torch

from lecturekit.exercises import core
from lecturekit.exercises.cli import main
from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    answer_hashes,
    as_mask,
    as_tensor,
    canonical,
    check,
    hint,
    progress,
    register,
    register_lecture,
    run_student,
    same_values,
    solved,
    status,
)

register_lecture("99", "99_test_lecture")


def _exercise(number, kind, value, precision=0, **kw):
    ex = Exercise(f"99.{number}", f"test {kind}", ("first hint", "second hint"),
                  expected=Expected(kind, answer_hashes(f"99.{number}", kind, value, precision),
                                    precision), **kw)  # fmt: skip
    return register(ex)


INT = _exercise(1, "int", 256)
FLOAT = _exercise(2, "float", 0.8808, 4)
FLOATS = _exercise(3, "floats", [0.8808, 0.1192], 4)
TEXT = _exercise(4, "text", "Locality-sensitive hashing")
WORDS = _exercise(5, "words", ["les", "chats", "noirs"])
SET = _exercise(6, "set", ["e s", "s t"])


@core.exercise("99.7", "a function", hints=("write it",))
def _checker(answer, *, n):
    got = run_student(answer, n, what=f"your f({n})")
    if got != n * n:
        raise NotYet(f"f({n}) is not right yet")
    return "f squares"


@pytest.fixture(autouse=True)
def fresh():
    core.reset()


def _out(capsys):
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "ex, good, bad",
    [
        (INT, [256, 256.0, torch.tensor(256)], [255, "256", 256.5]),
        (FLOAT, [0.8808, 0.88079, 0.88084, 0.880799, torch.tensor(0.8808)], [0.8810, 0.88, 1]),
        (FLOATS, [(0.8808, 0.1192), torch.tensor([0.88079, 0.11921])], [(0.1192, 0.8808), (0.88,)]),
        (TEXT, ["locality-sensitive hashing", "  Locality-Sensitive   HASHING. "], ["lsa", 3]),
        (
            WORDS,
            [["les", "chats", "noirs"], "Les chats  noirs", ("les", "chats", "noirs")],
            [["les", "noirs", "chats"], ["les", "chats"]],
        ),
        (SET, [["s t", "e s"], {"e s", "s t"}, ["e s", "s t", "s t"]], [["e s"], ["e s", "t s"]]),
    ],
)
def test_hashed_answers_accept_equivalent_forms_and_refuse_others(ex, good, bad, capsys):
    for answer in good:
        check(ex.id, answer)
        assert status(ex.id) == "correct", (answer, _out(capsys))
    for answer in bad:
        check(ex.id, answer)
        assert status(ex.id) == "not yet", (answer, _out(capsys))


def test_the_expected_value_is_never_printed_nor_stored(capsys):
    check(INT.id, 255)
    out = _out(capsys)
    assert "not yet" in out and "256" not in out and "first hint" in out
    assert "256" not in repr(INT.expected)
    check(FLOATS.id, (0.8808, 0.5))
    assert "number 2 of 2 is not right (to 4 decimals)" in _out(capsys)


def test_states_and_messages(capsys):
    check(INT.id, None)
    assert status(INT.id) == "not attempted" and "not attempted yet" in _out(capsys)
    check(FLOAT.id, 0.88079)
    assert "99.2 test float: correct: 0.8808" in _out(capsys)
    check(INT.id, "a lot")
    assert "not yet: expected a number, got str" in _out(capsys)
    assert not solved("99") and "99.1" in solved("99").reason
    assert progress("99")["99.2"] == "correct" and "✓ 99.2 test float: correct" in _out(capsys)


def test_hints_come_one_at_a_time_then_point_to_the_solution(capsys):
    hint(INT.id)
    hint(INT.id)
    hint(INT.id)
    out = _out(capsys).splitlines()
    assert out[0] == "99.1 hint 1 of 2: first hint" and out[1] == "99.1 hint 2 of 2: second hint"
    assert (
        out[2] == "99.1: no more hints; the worked solution is in solutions/99_test_lecture.ipynb"
    )


def test_a_wrong_answer_shows_the_first_hint_once(capsys):
    check(INT.id, 1)
    check(INT.id, 2)
    out = _out(capsys)
    assert out.count("hint 1 of 2: first hint") == 1 and 'hint("99.1") shows hint 2 of 2' in out


def test_checkers_run_the_students_code(capsys):
    check("99.7", lambda n: n * n, n=3)
    assert status("99.7") == "correct" and "correct: f squares" in _out(capsys)
    check("99.7", lambda n: n + n, n=3)
    assert status("99.7") == "not yet" and "f(3) is not right yet" in _out(capsys)
    check("99.7", lambda n: 1 / 0, n=3)
    assert "your f(3) raised ZeroDivisionError: division by zero" in _out(capsys)
    core.reset()

    def stub(n):
        raise NotImplementedError

    check("99.7", stub, n=3)
    assert status("99.7") == "not attempted" and "not attempted yet" in _out(capsys)
    check("99.7", 5, n=3)
    assert "expected a function (def ...), got int" in _out(capsys)


def test_tensor_helpers_convert_check_the_shape_and_say_what_differs():
    out = torch.ones(2, 3)
    assert as_tensor((out, "weights"), "the output") is out  # (output, weights): the output
    assert as_tensor([[1, 2]], "ids", shape=(1, 2)).dtype == torch.int64
    with pytest.raises(NotYet, match=r"^the output should be a tensor, got NoneType$"):
        as_tensor(None, "the output")
    with pytest.raises(NotYet, match=r"^x should have shape \(B, T\) = \(2, 3\), got \(3, 2\)$"):
        as_tensor(out.T, "x", shape=(2, 3), dims="(B, T)")
    with pytest.raises(NotYet, match=r"bool tensor \(True = may attend\), got dtype torch.int64"):
        as_mask([[1, 0]], "the mask")
    assert as_mask([[True, False]], "the mask", shape=(1, 2)).dtype == torch.bool

    want = torch.tensor([0.123456789, 2.0], dtype=torch.float64)
    same_values([0.123456789, 2.0], want, "s", atol=1e-9, rtol=0)  # a list, in want's dtype
    with pytest.raises(NotYet, match=r"^s is not right yet \(largest difference 0.5 at \[1\]"):
        same_values(torch.tensor([0.123456789, 2.5]), want, "s")
    mask = torch.tensor([[True, False], [True, True]])
    with pytest.raises(NotYet, match=r"^m is not right yet \(2 of 4 entries differ, the first at "
                                     r"\[0, 1\]\)$"):  # fmt: skip
        same_values(~mask | torch.eye(2, dtype=torch.bool), mask, "m")
    with pytest.raises(NotYet, match=r"^ids should have shape \(1, 2\), got \(2,\)$"):
        same_values([3, 4], torch.tensor([[3, 4]]), "ids")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: check("99.7", abs), r"check\('99.7', answer, ...\) takes n=...; got none"),
        (lambda: check("99.1", 3, n=2), r"takes no keyword arguments; got n"),
        (lambda: check("99.9", 3), r"'99.9' is not an exercise; lecture 99's are \['99.1'"),
        (lambda: check("3.1", 3), r"exercise_id must look like '03.2'"),
        (lambda: hint(31), r"exercise_id must be a string, got int"),
        (lambda: progress("98"), r"lecture must be one of"),
        (lambda: answer_hashes("99.1", "int", "x"), r"value cannot be a int answer"),
        (lambda: Expected("number", ("h",)), r"kind='number' is not one of \['int'"),
        (lambda: register(INT), r"exercise 99.1 is registered twice"),
        (lambda: Exercise("99.8", "t", ("h",)), r"give exactly one of expected= or checker="),
        (lambda: Exercise("99.8", "t", (), checker=abs), r"hints must be one or more"),
    ],
)
def test_misuse_gets_a_clear_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_canonical_forms():
    # x, x - half a unit and x + half a unit, rounded: an answer within one unit is accepted
    assert canonical("float", 0.88079, 4) == [["0.8808", "0.8807"]]
    assert canonical("float", 0.88081, 4) == [["0.8808", "0.8809"]]
    assert canonical("float", -0.0001, 3) == [["0.000", "-0.001"]]  # never "-0.000"
    assert canonical("set", [3, 1, 3]) == [["1|3"]]
    assert canonical("words", "The  Cat") == [["the cat"]]
    # a whole number is never taken for its neighbour (round-half-to-even made 1 match 0 and 2)
    assert canonical("floats", [0, 1, 720], 0) == [["0"], ["1"], ["720"]]
    assert canonical("float", 0.125, 2) == [["0.12", "0.13"]]  # on a boundary: either way


def test_command_line_hashes_and_lists(capsys):
    assert main(["hash", "99.1", "int", "256"]) == 0
    assert f"Expected('int', {INT.expected.hashes!r})" in _out(capsys)
    assert main(["hash", "99.3", "floats", "0.8808", "0.1192", "--precision", "4"]) == 0
    assert repr(FLOATS.expected.hashes) in _out(capsys)
    assert main(["list", "99"]) == 0 and "99.7   checker" in _out(capsys)
    with pytest.raises(SystemExit) as err:
        main(["hash", "99.1", "int", "2", "3"])
    assert (
        err.value.code == 2 and "error: a int answer is one value, got 2" in capsys.readouterr().err
    )
