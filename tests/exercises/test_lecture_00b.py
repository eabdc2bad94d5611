"""Lecture 00b's exercises: the hashed answers, and the code checker of 00b.3 accepts the right
layer_flops(n, d) and refuses the near misses a student writes (the pair swapped, multiply-adds
instead of FLOPs, one attention product, the projections counted, one recurrent matrix), with a
message that names the mistake and does not show the answer; the notebook's stub is "not
attempted yet"."""

import json
from pathlib import Path

import pytest

from lecturekit.exercises import check, status

ROOT = Path(__file__).resolve().parents[2]


def layer_flops(n, d):
    return 4 * n * n * d, 4 * n * d * d


@pytest.mark.parametrize(
    ("exercise", "right", "wrong"),
    [
        ("00b.1", [15_728_640, 3_932_160], [7_864_320, 3_932_160]),
        ("00b.2", [16, 3, 63], [16, 3, 64]),
    ],
)
def test_hashed_answers(exercise, right, wrong):
    check(exercise, wrong)
    assert status(exercise) == "not yet"
    check(exercise, right)
    assert status(exercise) == "correct"


def test_layer_flops_checker_accepts_the_formula(capsys):
    check("00b.3", layer_flops)
    out = capsys.readouterr().out
    assert status("00b.3") == "correct" and "ratio is n/d" in out
    check("00b.3", lambda n, d: [float(c) for c in layer_flops(n, d)])  # floats, a list
    assert status("00b.3") == "correct"


@pytest.mark.parametrize(
    ("wrong", "words"),
    [
        (lambda n, d: layer_flops(n, d)[::-1], "swapped"),
        (lambda n, d: (2 * n * n * d, 2 * n * d * d), "multiply-adds"),
        (lambda n, d: (2 * n * n * d, 4 * n * d * d), "one product"),
        (lambda n, d: (4 * n * n * d + 8 * n * d * d, 4 * n * d * d), "projections"),
        (lambda n, d: (4 * n * n * d, 2 * n * d * d), "one matrix per step"),
        (lambda n, d: (4 * 50 * 50 * 512, 4 * 50 * 512 * 512), "layer_flops(7, 3)"),  # constants
        (lambda n, d: 4 * n * n * d, "two numbers"),
    ],
)
def test_layer_flops_checker_names_near_misses_without_the_answer(capsys, wrong, words):
    check("00b.3", wrong)
    out = capsys.readouterr().out
    assert status("00b.3") == "not yet" and words in out, out
    for n, d in ((50, 512), (7, 3)):
        for count in layer_flops(n, d):
            assert str(count) not in out and f"{count:,}" not in out


def test_layer_flops_stub_is_not_attempted(capsys):
    def stub(n, d):
        raise NotImplementedError

    check("00b.3", stub)
    assert status("00b.3") == "not attempted"
    nb = json.loads((ROOT / "notebooks" / "00b_recurrence_measured.ipynb").read_text())
    cell = next(c for c in nb["cells"] if 'check("00b.3", layer_flops)' in "".join(c["source"]))
    assert "raise NotImplementedError" in "".join(cell["source"])
    out = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    assert "00b.3" in out and "not attempted yet" in out
