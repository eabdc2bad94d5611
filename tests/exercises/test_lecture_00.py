"""Lecture 00's exercises: the code checkers accept a right answer and refuse the near misses a
student writes (pairs across the centre itself, a wrong order, the GRU's reset gate applied
after the bias or z and 1 - z swapped), with a message that does not show the answer."""

import pytest
import torch

from lecturekit.exercises import check, status


def pairs(words, window):
    return [(words[i], words[j]) for i in range(len(words))
            for j in range(max(0, i - window), min(len(words), i + window + 1)) if j != i]  # fmt: skip


def gru(x, h, w_ih, w_hh, b_ih, b_hh, swap=False, reset_after_bias=True):
    i_r, i_z, i_n = (x @ w_ih.T + b_ih).chunk(3, dim=-1)
    h_r, h_z, h_n = (h @ w_hh.T + b_hh).chunk(3, dim=-1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    if reset_after_bias:
        n = torch.tanh(i_n + r * h_n)
    else:  # r multiplies W_hn h only, the bias added after (cuDNN-free variant)
        n = torch.tanh(i_n + r * (h @ w_hh.T).chunk(3, dim=-1)[2] + b_hh.chunk(3)[2])
    return z * n + (1 - z) * h if swap else (1 - z) * n + z * h


def test_skipgram_checker(capsys):
    check("00.1", pairs)
    assert status("00.1") == "correct"
    check("00.1", lambda w, k: [(w[i], w[j]) for i in range(len(w))
                                for j in range(len(w)) if abs(i - j) <= k])  # fmt: skip
    assert status("00.1") == "not yet" and "number of" in capsys.readouterr().out
    check("00.1", lambda w, k: sorted(pairs(w, k), key=lambda p: p[1]))
    out = capsys.readouterr().out
    assert status("00.1") == "not yet" and "order" in out
    check("00.1", lambda w, k: "pairs")
    assert status("00.1") == "not yet"


def test_gru_checker(capsys):
    check("00.2", gru)
    assert status("00.2") == "correct"
    check("00.2", lambda *a: gru(*a, swap=True))
    assert status("00.2") == "not yet"
    check("00.2", lambda *a: gru(*a, reset_after_bias=False))
    assert status("00.2") == "not yet" and "largest" in capsys.readouterr().out
    check("00.2", lambda x, h, *w: h[:, :2])
    assert status("00.2") == "not yet" and "shape" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("00.3", [0.8**20, 62], [0.8**20, 61]),
    ],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"
