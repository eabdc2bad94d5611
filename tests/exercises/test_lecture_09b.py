"""Lecture 09b's exercises: the checkers accept a right answer and refuse the near misses a
student writes, with a message that does not show the answer.

09b.1 gets a trained model. The stand-in for the student's blind ViT is the shipped
vit_digits_moved with its position embeddings zeroed: blind to where the patches are, trained on
moved digits, as cheap as a load. The answer is what ``accuracy`` measures on it, which is what
the student computes."""

import pytest
import torch
from torch import nn

from lecturekit.datasets.digits import load_digits_data, random_shift
from lecturekit.exercises import check, status
from lecturekit.patches import patchify
from lecturekit.shipped import load_shipped
from lecturekit.shipped.vit import accuracy


@pytest.fixture(scope="module")
def data():
    return load_digits_data()


@pytest.fixture(scope="module")
def moved(data):
    return random_shift(data.test_images, 2, torch.Generator().manual_seed(0))


def _blind(name: str = "vit_digits_moved") -> nn.Module:
    model = load_shipped(name)
    with torch.no_grad():
        model.pos_embed.zero_()
    return model.requires_grad_(False)


class KnowsOnlyTheCentredDigits(nn.Module):
    """Blind to where the patches are (it looks a digit's bag of patches up), right on every
    centred test digit and lost on the moved ones: what a blind model trained on centred
    digits would do, at the extreme."""

    def __init__(self, images: torch.Tensor, labels: torch.Tensor):
        super().__init__()
        self.unused = nn.Linear(1, 1)  # a module with parameters, as a trained model has
        self.known = {self._bag(x): int(y) for x, y in zip(images, labels, strict=True)}

    @staticmethod
    def _bag(image: torch.Tensor) -> tuple:
        patches = patchify(image[None], 2)[0]  # (16, 4)
        return tuple(sorted(tuple(p.tolist()) for p in patches))

    def forward(self, images):
        logits = torch.zeros(len(images), 10)
        for i, image in enumerate(images):
            if (label := self.known.get(self._bag(image))) is not None:
                logits[i, label] = 1.0
        return logits


def test_blind_checker_measures_the_model(data, moved, capsys):
    blind = _blind()
    truth = (accuracy(blind, data.test_images, data.test_labels),
             accuracy(blind, moved, data.test_labels))  # fmt: skip
    check("09b.1", truth, model=blind)
    out = capsys.readouterr().out
    assert status("09b.1") == "correct" and "bag of 2 x 2" in out and "vit_digits_moved" in out
    check("09b.1", (round(truth[0], 3), round(truth[1], 3)), model=blind)
    assert status("09b.1") == "correct" and "correct" in capsys.readouterr().out
    shown = [f"{t:.1%}" for t in truth] + [f"{t:.3f}" for t in truth] + [f"{t:.2f}" for t in truth]
    for wrong, says in [
        ((truth[1], truth[0]), "swapped"),
        ((100 * truth[0], 100 * truth[1]), "fractions"),
        ((truth[0], truth[1] + 0.05), "moved test digits"),
        ((truth[0] - 0.05, truth[1]), "centred test digits"),
        ((0.61, 0.54), "centred test digits"),  # vit_digits_moved's, with positions
        (0.5, "pair"),
    ]:
        check("09b.1", wrong, model=blind)
        out = capsys.readouterr().out
        assert status("09b.1") == "not yet" and says in out, (wrong, out)
        assert not any(s in out for s in shown), out  # the truth is never shown
    check("09b.1", truth, model=None)
    assert status("09b.1") == "not yet" and "model=blind" in capsys.readouterr().out
    assert blind.training is False  # the checker leaves the model's mode as it was


def test_blind_checker_refuses_a_model_that_sees_or_did_not_learn(data, moved, capsys):
    seeing = load_shipped("vit_digits_moved")  # with its position embeddings
    check("09b.1", (0.61, 0.54), model=seeing)
    assert status("09b.1") == "not yet" and "still knows where" in capsys.readouterr().out
    torch.manual_seed(0)
    untrained = _blind().apply(lambda m: m.reset_parameters() if isinstance(m, nn.Linear) else None)
    check("09b.1", (0.1, 0.1), model=untrained)
    assert status("09b.1") == "not yet" and "does not look trained" in capsys.readouterr().out
    centred_only = KnowsOnlyTheCentredDigits(data.test_images, data.test_labels)
    truth = (accuracy(centred_only, data.test_images, data.test_labels),
             accuracy(centred_only, moved, data.test_labels))  # fmt: skip
    assert truth[0] == 1.0 and truth[1] < 0.5
    check("09b.1", truth, model=centred_only)
    out = capsys.readouterr().out
    assert status("09b.1") == "not yet" and "moved by up to 2 pixels" in out, out
    check("09b.1", (0.5, 0.5), model="blind")
    assert status("09b.1") == "not yet" and "nn.Module" in capsys.readouterr().out


def _field(layers):
    width, jump = 1, 1
    for kernel, stride in layers:
        width += (kernel - 1) * jump
        jump *= stride
    return width


def test_receptive_field(capsys):
    check("09b.2", _field)
    out = capsys.readouterr().out
    assert status("09b.2") == "correct" and "12 x 12" in out
    for wrong in (
        lambda layers: sum(k for k, _ in layers),  # kernels added, strides ignored
        lambda layers: 1 + sum(k - 1 for k, _ in layers),  # strides ignored
        lambda layers: _field(layers) + 0.5,  # not a whole number
        lambda layers: None,
    ):
        check("09b.2", wrong)
        out = capsys.readouterr().out
        assert status("09b.2") == "not yet", out
        assert "12 x 12" not in out


def test_pairs_behind_one_entry(capsys):
    check("09b.3", 36)
    assert status("09b.3") == "correct" and "36 pairs" in capsys.readouterr().out
    for wrong, says in [
        (18, "ordered"),
        (16, "not the number"),
        (2.5, "whole number"),
        ("many", "whole number"),
    ]:
        check("09b.3", wrong)
        out = capsys.readouterr().out
        assert status("09b.3") == "not yet" and says in out, (wrong, out)
        assert "36" not in out


def test_the_notebooks_stubs_are_not_attempted(capsys):
    check("09b.1", None, model=None)
    assert status("09b.1") == "not attempted" and "not attempted yet" in capsys.readouterr().out
