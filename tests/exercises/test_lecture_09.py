"""Lecture 09's exercises: the checkers accept a right answer and refuse the near misses a student
writes, with a message that does not show the answer. (The blind ViT of 09.6 is now 09b.1:
tests/exercises/test_lecture_09b.py.)"""

import torch

from lecturekit.exercises import check, status
from lecturekit.shipped import load_shipped
from lecturekit.shipped.vit import accuracy


def _blind(name: str) -> torch.nn.Module:
    model = load_shipped(name)
    with torch.no_grad():
        model.pos_embed.zero_()
    return model.requires_grad_(False)


def test_shipped_without_positions(capsys):
    from lecturekit.datasets.digits import load_digits_data

    data = load_digits_data()
    check("09.5", accuracy(_blind("vit_digits"), data.test_images, data.test_labels))
    assert status("09.5") == "correct"
    vit = load_shipped("vit_digits")
    check("09.5", accuracy(vit, data.test_images, data.test_labels))
    out = capsys.readouterr().out
    assert status("09.5") == "not yet" and "WITH the position embeddings" in out
    check("09.5", 20.9)
    assert status("09.5") == "not yet" and "between 0 and 1" in capsys.readouterr().out


def test_the_notebooks_stubs_are_not_attempted(capsys):
    check("09.5", None)
    assert status("09.5") == "not attempted" and "not attempted yet" in capsys.readouterr().out
