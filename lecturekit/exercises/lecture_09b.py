"""Lecture 09b's exercises: the ViT's inductive bias (optional notebook).

09b.1 a ViT trained without position embeddings on moved digits (the checker measures the
      student's model: blind to where the patches are, trained, and the two accuracies its own;
      it was exercise 09.6), 09b.2 write the receptive field of a stack of convolutions and
      poolings (code: run against a direct computation on several stacks, SmallCNN's among them),
      09b.3 how many ordered pairs of patches one entry of ``similarity_by_distance`` averages
      (counted by the checker).
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.exercises.core import (
    NotYet,
    PageAnswer,
    as_tensor,
    exercise,
    register_lecture,
    run_student,
)

register_lecture("09b", "09b_vit_inductive_bias")


@exercise(
    "09b.1",
    "a ViT that cannot see where",
    hints=(
        "torch.manual_seed(0); blind = ViT(config); then with torch.no_grad(): "
        "blind.pos_embed.zero_(), and blind.pos_embed.requires_grad_(False), so that training "
        "leaves it at zero.",
        "train_classifier(blind, data, **MODELS['vit_digits_moved']); then "
        "accuracy(blind, data.test_images, data.test_labels) and the same on moved.",
    ),
)
def _blind_on_moved(answer: object, *, model: object) -> str:
    from lecturekit.datasets.digits import load_digits_data, random_shift
    from lecturekit.patches import patchify, unpatchify
    from lecturekit.shipped import load_shipped
    from lecturekit.shipped.vit import accuracy

    if model is None:
        raise NotYet("pass the trained model too: check('09b.1', answer, model=blind)")
    if not isinstance(model, nn.Module):
        raise NotYet(f"model must be your trained ViT (an nn.Module), got {type(model).__name__}")
    try:
        centred, moved = (float(a) for a in answer)
    except (TypeError, ValueError):
        raise NotYet("give a pair of accuracies: answer = (centred, moved)") from None
    if not (0 <= centred <= 1 and 0 <= moved <= 1):
        raise NotYet("give both accuracies as fractions between 0 and 1, not percentages")
    data = load_digits_data()
    moved_images = random_shift(data.test_images, 2, torch.Generator().manual_seed(0))
    images = data.test_images[:64]
    perm = torch.randperm(16, generator=torch.Generator().manual_seed(9))
    shuffled = unpatchify(patchify(images, 2)[:, perm], (8, 8), 2)  # the same patches, moved
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits = _logits(run_student(model, images, what="your model"))
            other = _logits(run_student(model, shuffled, what="your model"))
        if logits.shape != (64, 10) or other.shape != (64, 10):
            raise NotYet(f"model(images) should give logits (B, 10), got {tuple(logits.shape)}")
        if not torch.allclose(logits, other, atol=1e-4, rtol=0):
            raise NotYet(
                "your model still knows where each patch is: its logits change when the patches "
                "of a digit are shuffled. Zero pos_embed, and freeze it, before you train"
            )
        truth = (accuracy(model, data.test_images, data.test_labels),
                 accuracy(model, moved_images, data.test_labels))  # fmt: skip
    finally:
        model.train(was_training)
    if truth[0] < 0.25:
        raise NotYet("the model does not look trained: train it (15 epochs) before you measure it")
    if truth[0] - truth[1] > 0.12:
        raise NotYet(
            "it loses many more points on the moved digits than a model trained on them: was "
            "every training image moved by up to 2 pixels (the augment of vit_digits_moved)?"
        )
    tolerance = 1.5 / len(data.test_labels)  # one digit
    right = [abs(a - t) <= tolerance for a, t in zip((centred, moved), truth, strict=True)]
    if not all(right):
        if abs(centred - truth[1]) <= tolerance and abs(moved - truth[0]) <= tolerance:
            raise NotYet("the two numbers are swapped: answer = (centred, moved)")
        which = "centred test digits" if not right[0] else "moved test digits"
        raise NotYet(
            f"the accuracy on the {which} is not this model's yet: accuracy(blind, images, "
            "data.test_labels) on the 359 test digits (moved: random_shift(data.test_images, 2, "
            "torch.Generator().manual_seed(0)))"
        )
    seeing = load_shipped("vit_digits_moved")
    with_positions = (accuracy(seeing, data.test_images, data.test_labels),
                      accuracy(seeing, moved_images, data.test_labels))  # fmt: skip
    return (
        f"{truth[0]:.1%} on centred and {truth[1]:.1%} on moved digits, against "
        f"{with_positions[0]:.1%} and {with_positions[1]:.1%} for vit_digits_moved (the same "
        "recipe, with positions). The moves cost the blind model little, but it is worse on "
        "both: a bag of 2 x 2 pieces of ink says little about which digit it is, and only moves "
        "by whole patches leave the bag unchanged (a 1-pixel move changes every piece). Where "
        "the pieces are is most of what the ViT knows, and E_pos is how it learns it"
    )


def _logits(out: object) -> torch.Tensor:
    """model(images) as logits: the notebook's ViT returns (logits, weights)."""
    out = out[0] if isinstance(out, tuple) else out
    return as_tensor(out, "model(images)", dims="(B, 10)")


def _field(layers: list[tuple[int, int]]) -> int:
    """The receptive field's width, by following one output unit back to the input."""
    lo, hi = 0, 0  # the input pixels one unit of the current layer depends on
    for kernel, stride in reversed(layers):
        lo, hi = lo * stride, hi * stride + kernel - 1
    return hi - lo + 1


_STACKS = [
    ("one 3 x 3 convolution", [(3, 1)]),
    ("two 3 x 3 convolutions", [(3, 1), (3, 1)]),
    ("a 2 x 2 max-pool then a 3 x 3 convolution", [(2, 2), (3, 1)]),
    ("lecture 09's patch embedding (kernel = stride = 2)", [(2, 2)]),
    (
        "a ResNet-like stem: 7 x 7 stride 2, 3 x 3 pool stride 2, two 3 x 3",
        [(7, 2), (3, 2), (3, 1), (3, 1)],
    ),
    ("SmallCNN: conv 3, pool 2, conv 3, conv 3", [(3, 1), (2, 2), (3, 1), (3, 1)]),
]


@exercise(
    "09b.2",
    "what one CNN feature sees",
    hints=(
        "One 3 x 3 convolution: 3 pixels. A second one on top: each of its 3 inputs sees 3 "
        "pixels, shifted by 1, so 5.",
        "After a layer with stride s, one step in the next layer is s pixels of the input: a "
        "kernel k adds (k - 1) times the product of all the strides below it.",
    ),
)
def _receptive_field(answer: object) -> str:
    for name, layers in _STACKS:
        got = run_student(answer, list(layers), what=f"receptive_field on {name}")
        try:
            value = int(got)
        except (TypeError, ValueError):
            raise NotYet(f"receptive_field should return a whole number, got {got!r}") from None
        if value != got or value != _field(layers):
            raise NotYet(f"receptive_field on {name} ({layers}) is not the width in pixels yet")
    return (
        f"one unit of SmallCNN's last convolution sees {_field(_STACKS[-1][1])} x "
        f"{_field(_STACKS[-1][1])} pixels, more than the whole 8 x 8 digit; it is built from "
        "neighbourhoods, though: locality first, the whole image only at the top. A ViT's [CLS] "
        "sees every patch from the first layer on"
    )


def _pairs(grid: int, dr: int, dc: int) -> int:
    cells = [(r, c) for r in range(grid) for c in range(grid)]
    return sum(abs(a[0] - b[0]) == dr and abs(a[1] - b[1]) == dc and a != b
               for a in cells for b in cells)  # fmt: skip


def _pairs_page() -> PageAnswer:
    truth = _pairs(4, 1, 1)
    return PageAnswer("int", truth, traps=(truth // 2,))


@exercise(
    "09b.3",
    "the pairs behind one entry",
    hints=(
        "Count the rows first: how many ordered pairs of rows (r, r') of a 4-row grid have "
        "|r - r'| = 1? Then the columns the same way.",
        "A pair of patches is a pair of rows and a pair of columns, chosen independently: "
        "multiply the two counts.",
    ),
    page=_pairs_page,
)
def _pairs_count(answer: object) -> str:
    try:
        value = int(answer)
    except (TypeError, ValueError):
        raise NotYet(f"give a whole number of pairs, got {type(answer).__name__}") from None
    if value != answer:
        raise NotYet(f"give a whole number, got {answer!r}")
    truth = _pairs(4, 1, 1)
    if value == truth // 2:
        raise NotYet("count ordered pairs: (i, j) and (j, i) are two")
    if value != truth:
        raise NotYet("not the number of ordered pairs at row distance 1 and column distance 1 yet")
    return (
        f"{truth} pairs: 6 ordered pairs of rows times 6 of columns. The entry for distance "
        f"(3, 3) averages only {_pairs(4, 3, 3)}, so the far corners of the table are noisier"
    )
