"""Lecture 15's code exercises: the checkers accept a right answer and refuse the near misses a
student writes (a missing final sentinel, the content mask instead of the query mask, a
transposed mask), with a message that does not show the answer."""

import pytest
import torch

from lecturekit.exercises import check, status


def corrupt(words, spans, sentinels, final=True):
    inputs, targets, start = [], [], 0
    for k, (a, b) in enumerate(spans):
        inputs += [*words[start:a], sentinels[k]]
        targets += [sentinels[k], *words[a:b]]
        start = b
    inputs += words[start:]
    return inputs, targets + ([sentinels[len(spans)]] if final else [])


def query_mask(order):
    rank = torch.empty_like(order)
    rank[order] = torch.arange(len(order))
    return rank[None, :] < rank[:, None]


def test_span_corruption_checker(capsys):
    check("15.1", corrupt)
    assert status("15.1") == "correct"
    check("15.1", lambda w, s, t: corrupt(w, s, t, final=False))
    out = capsys.readouterr().out
    assert status("15.1") == "not yet" and "targets have" in out and "<Z>" not in out
    check("15.1", lambda w, s, t: (w, w))
    assert status("15.1") == "not yet"


def test_query_stream_checker(capsys):
    check("15.2", query_mask)
    assert status("15.2") == "correct"
    check("15.2", lambda order: query_mask(order).T)
    assert status("15.2") == "not yet" and "transposed" in capsys.readouterr().out
    check("15.2", lambda order: query_mask(order) | torch.eye(len(order), dtype=torch.bool))
    assert status("15.2") == "not yet" and "its own token" in capsys.readouterr().out
    check("15.2", lambda order: query_mask(order).int())
    assert status("15.2") == "not yet"


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("15.3", [19.2, 128], [19.2, 109]),
        ("15.4", [0, 0, 0, 1, 0, 0, 0, 0, 1], [0, 1, 0, 1, 0, 1, 0, 0, 1]),
        ("15.5", [23_040_000, 3_938_304], [23_040_000, 3_840_000]),
        ("15.6", [720, 3], [720, 4]),
    ],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"
