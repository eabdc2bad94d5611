"""Lecture 09's exercises: the Vision Transformer.

09.1 ViT-Huge's sequence (checked against patchify), 09.2 write patchify yourself (code: run
against lecturekit on several image and patch sizes), 09.3 a higher resolution, a longer
sequence (hashed), 09.4 rollout of uniform attention (hashed), 09.5 the shipped ViT without its
position embeddings (checked against the shipped model), 09.6 the notebook's ViT trained without
position embeddings on moved digits (the checker measures the student's model: blind to where
the patches are, trained, and the two accuracies its own).
"""

from __future__ import annotations

import torch
from torch import nn

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    as_tensor,
    exercise,
    register,
    register_lecture,
    run_student,
    same_values,
)

register_lecture("09", "09_vision_transformer")


def _int_pair(answer: object, what: str) -> tuple[int, int]:
    try:
        first, second = answer
        pair = (int(first), int(second))
    except (TypeError, ValueError):
        raise NotYet(f"give a pair of whole numbers: answer = ({what})") from None
    if pair != (first, second):
        raise NotYet(f"give whole numbers, got {answer!r}")
    return pair


@exercise(
    "09.1",
    "ViT-Huge's sequence",
    hints=(
        "Section 1: N = HW / P^2 patches, each flattened to P * P * C numbers.",
        "An RGB image has C = 3 channels; ViT-H/14 cuts it into 14 x 14 patches.",
    ),
)
def _sequence(answer: object) -> str:
    from lecturekit.patches import patchify

    n, dim = _int_pair(answer, "N, patch_dim")
    want_n, want_dim = patchify(torch.zeros(1, 3, 224, 224), 14).shape[1:]
    if n != want_n:
        raise NotYet("N, the number of patches, is not right yet (the first number)")
    if dim != want_dim:
        raise NotYet("patch_dim, the length of one flattened patch, is not right yet")
    return (
        f"N = 224 * 224 / 14^2 = {n} patches of 14 * 14 * 3 = {dim} values: with [CLS], "
        f"ViT-H/14 reads {n + 1} tokens; smaller patches, a longer sequence"
    )


@exercise(
    "09.2",
    "patchify, yourself",
    hints=(
        "Cut the grid with a reshape: (B, C, H, W) -> (B, C, H/P, P, W/P, P).",
        "Then put the grid dimensions first and each patch's (C, P, P) last: "
        "permute(0, 2, 4, 1, 3, 5), and reshape to (B, N, C*P*P).",
        "Row-major order means the grid row changes slowest: patch 1 is the top-left one, "
        "patch 2 its right neighbour.",
    ),
)
def _patchify(answer: object) -> str:
    from lecturekit.patches import patchify

    g = torch.Generator().manual_seed(9)
    for B, C, H, W, P in [(1, 1, 8, 8, 2), (2, 3, 12, 12, 4), (3, 2, 6, 10, 2), (1, 3, 16, 16, 16)]:
        images = torch.randn(B, C, H, W, generator=g)  # (B, C, H, W)
        got = run_student(answer, images, P, what=f"your function on images {tuple(images.shape)}")
        want = patchify(images, P)  # (B, N, C*P*P)
        what = f"for images {tuple(images.shape)} and P = {P} the patch tensor"
        got = as_tensor(got, what, shape=want.shape, dims="(B, N, C*P*P)")
        if torch.equal(got, want):
            continue
        if torch.equal(got.sort(dim=-1).values.sort(dim=1).values,
                       want.sort(dim=-1).values.sort(dim=1).values):  # fmt: skip
            raise NotYet(f"{what} holds the right numbers, in another order: patches row by "
                         "row, each flattened as (C, P, P)")  # fmt: skip
        same_values(got, want, what)  # the largest difference
    return (
        "your function equals lecturekit.patches.patchify, for grey and colour images, "
        "square and not, and one patch covering the whole image"
    )


register(
    Exercise(
        "09.3",
        "a higher resolution, a longer sequence",
        hints=(
            "The number of tokens is N + 1: the patches and [CLS]. Count both resolutions.",
            "One layer's attention scores form a (tokens x tokens) matrix per head: "
            "the ratio is (tokens at 384 / tokens at 224)^2.",
        ),
        expected=Expected("float", ("a18b44133a5a5c18ef29",), 2),
        correct="{answer} times the scores: the number of tokens grows with the image's area, "
        "and attention with the square of the number of tokens",
    )
)

register(
    Exercise(
        "09.4",
        "rollout of uniform attention",
        hints=(
            "With one layer, R = A~ = (W + I) / 2, where W is the head's weight matrix.",
            "R[0, 0] is half of W[0, 0] plus half of I[0, 0]: W[0, 0] = 1/17 and I[0, 0] = 1.",
        ),
        expected=Expected("float", ("aa39b2a4685b6b2fb6fc",), 4),
        correct="R[0, 0] = {answer}: the residual connection keeps half of [CLS] in place, "
        "the other half is spread over all 17 tokens",
    )
)


@exercise(
    "09.5",
    "the shipped ViT without its position embeddings",
    hints=(
        "vit = load_shipped('vit_digits'); then, inside torch.no_grad(), vit.pos_embed.zero_().",
        "accuracy(vit, data.test_images, data.test_labels) from lecturekit.shipped.vit gives "
        "the share of test digits right, a float between 0 and 1.",
    ),
)
def _no_positions(answer: object) -> str:
    from lecturekit.datasets.digits import load_digits_data
    from lecturekit.shipped import load_shipped
    from lecturekit.shipped.vit import accuracy

    try:
        value = float(answer)
    except (TypeError, ValueError):
        raise NotYet(f"give the accuracy as a number, got {type(answer).__name__}") from None
    if not 0 <= value <= 1:
        raise NotYet(f"give the accuracy as a share between 0 and 1, got {value:g}")
    data = load_digits_data()
    vit = load_shipped("vit_digits")
    trained = accuracy(vit, data.test_images, data.test_labels)
    with torch.no_grad():
        vit.pos_embed.zero_()
    truth = accuracy(vit, data.test_images, data.test_labels)
    n = len(data.test_labels)
    if abs(value - truth) > 1 / n:
        if abs(value - trained) <= 1 / n:
            raise NotYet("that is the accuracy WITH the position embeddings: zero them first")
        raise NotYet(f"not the accuracy of the shipped ViT without positions (on the {n} test "
                     "digits) yet")  # fmt: skip
    return (
        f"{truth:.1%} instead of {trained:.1%}: without E_pos the model sees a bag of patches, "
        "and the digits it was trained on can no longer be told apart by where their strokes "
        "are (chance would be 10 %)"
    )


@exercise(
    "09.6",
    "a ViT that cannot see where",
    hints=(
        "torch.manual_seed(0); blind = ViT(); then with torch.no_grad(): blind.pos_embed.zero_(), "
        "and blind.pos_embed.requires_grad_(False), so that training leaves it at zero.",
        "train(blind, data, epochs=15, augment=lambda x, g: random_shift(x, 2, g)); then "
        "accuracy(blind, data.test_images, data.test_labels) and the same on moved.",
    ),
)
def _blind_on_moved(answer: object, *, model: object) -> str:
    from lecturekit.datasets.digits import load_digits_data, random_shift
    from lecturekit.patches import patchify, unpatchify
    from lecturekit.shipped import load_shipped
    from lecturekit.shipped.vit import accuracy

    if model is None:
        raise NotYet("pass the trained model too: check('09.6', answer, model=blind)")
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
