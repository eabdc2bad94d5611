"""Lecture 11b's code exercises: the checkers accept a right answer and refuse the near misses a
student writes (a transposed or non-causal mask, a missing diagonal, the whole causal triangle,
a compressed length that goes negative), with a message that does not show the answer."""

import pytest
import torch

from lecturekit.exercises import check, status


def logsparse(n):
    gap = torch.arange(n)[:, None] - torch.arange(n)[None, :]
    return (gap == 0) | ((gap > 0) & ((gap & (gap - 1)) == 0))


def test_logsparse_mask_checker(capsys):
    check("11b.1", logsparse)
    assert status("11b.1") == "correct"
    check("11b.1", lambda n: logsparse(n).T)
    assert status("11b.1") == "not yet" and "transposed" in capsys.readouterr().out
    check("11b.1", lambda n: logsparse(n) & ~torch.eye(n, dtype=torch.bool))
    assert status("11b.1") == "not yet" and "itself" in capsys.readouterr().out
    check("11b.1", lambda n: torch.ones(n, n, dtype=torch.bool).tril())
    assert status("11b.1") == "not yet" and "too many" in capsys.readouterr().out
    check("11b.1", lambda n: logsparse(n).int())
    assert status("11b.1") == "not yet"


def test_compressed_length_checker(capsys):
    check("11b.3", lambda n, s, k: 0 if n < k else (n - k) // s + 1)
    assert status("11b.3") == "correct"
    check("11b.3", lambda n, s, k: (n - k) // s + 1)  # negative for short sequences
    out = capsys.readouterr().out
    assert status("11b.3") == "not yet" and "short sequence" in out
    check("11b.3", lambda n, s, k: n // s)
    assert status("11b.3") == "not yet"
    check("11b.3", lambda n, s, k: float(max(0, (n - k) // s + 1)))
    assert status("11b.3") == "not yet" and "int" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("11b.2", [65, 10241], [65, 10240]),
        ("11b.4", [3.2, 4.4, 2.0], [3.2, 4.4, 1.0]),
        ("11b.5", 9, 10),
    ],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"
