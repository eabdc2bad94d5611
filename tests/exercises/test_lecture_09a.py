"""Lecture 09a's code exercises: the checkers accept a right answer and refuse the near misses a
student writes (the deck's 1/N, raw scores as weights, a transposed grid, a box end included),
with a message that does not show the answer."""

import pytest
import torch

from lecturekit.exercises import check, status


def context(features, scores):
    weights = torch.softmax(scores, -1)
    return (weights[:, :, None] * features).sum(1), weights


def hit(weights, box, grid, canvas, transposed=False, closed=False):
    row, col = divmod(int(weights.argmax()), grid)
    if transposed:
        row, col = col, row
    stride = canvas / grid
    y, x = (row + 0.5) * stride, (col + 0.5) * stride
    top, left, bottom, right = box
    if closed:
        return top <= y <= bottom + 2 and left <= x <= right + 2
    return top <= y < bottom and left <= x < right


def test_context_checker(capsys):
    check("09a.1", context)
    assert status("09a.1") == "correct"
    check("09a.1", lambda f, s: (context(f, s)[0] / f.shape[1], context(f, s)[1]))
    assert status("09a.1") == "not yet" and "1/N" in capsys.readouterr().out
    check("09a.1", lambda f, s: ((s[:, :, None] * f).sum(1), s))
    assert status("09a.1") == "not yet" and "raw scores" in capsys.readouterr().out
    check("09a.1", lambda f, s: context(f, s)[0])
    assert status("09a.1") == "not yet"


def test_hit_checker(capsys):
    check("09a.2", hit)
    assert status("09a.2") == "correct"
    check("09a.2", lambda w, b, g, c: hit(w, b, g, c, transposed=True))
    assert status("09a.2") == "not yet" and "wrong verdict" in capsys.readouterr().out
    check("09a.2", lambda w, b, g, c: hit(w, b, g, c, closed=True))
    assert status("09a.2") == "not yet"
    check("09a.2", lambda w, b, g, c: "yes")
    assert status("09a.2") == "not yet"


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("09a.3", [196, 100_352], [196, 512]),
        ("09a.4", [6, 0.094], [4, 0.0625]),
        ("09a.5", [3.7, 3.7, 11.61], [3.7, 5.0, 11.61]),
    ],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"
