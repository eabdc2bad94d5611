"""Lecture 09's exercises: the Vision Transformer.

09.1 ViT-Huge's sequence (checked against patchify), 09.2 write patchify yourself (code: run
against lecturekit on several image and patch sizes), 09.3 a higher resolution, a longer
sequence (hashed), 09.4 rollout of uniform attention (hashed), 09.5 the shipped ViT without its
position embeddings (checked against the shipped model). (09.6, the ViT trained without
position embeddings on moved digits, is now 09b.1.)
"""

from __future__ import annotations

import torch

from lecturekit.exercises.core import (
    Exercise,
    Expected,
    NotYet,
    PageAnswer,
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


def _vit_huge_sequence() -> tuple[int, int]:
    """(N, patch_dim) of a 224 x 224 RGB image cut into 14 x 14 patches."""
    from lecturekit.patches import patchify

    n, dim = patchify(torch.zeros(1, 3, 224, 224), 14).shape[1:]
    return int(n), int(dim)


def _vit_huge_page() -> PageAnswer:
    n, dim = _vit_huge_sequence()
    return PageAnswer("floats", (n, dim))


@exercise(
    "09.1",
    "ViT-Huge's sequence",
    hints=(
        "Section 1: N = HW / P^2 patches, each flattened to P * P * C numbers.",
        "An RGB image has C = 3 channels; ViT-H/14 cuts it into 14 x 14 patches.",
    ),
    page=_vit_huge_page,
)
def _sequence(answer: object) -> str:
    n, dim = _int_pair(answer, "N, patch_dim")
    want_n, want_dim = _vit_huge_sequence()
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
