"""Lecture 09a's exercises: attention that captions.

09a.1 the soft-attention context from the features and the scores (code: run against
``lecturekit.masking.masked_softmax`` and the weighted sum on random feature maps), 09a.2 a
localisation hit (code: run against ``lecturekit.datasets.scenes.box_cells`` on random maps and
boxes, several grids), 09a.3 the annotation vectors of Xu et al.'s VGG map (hashed), 09a.4 the
chance rate of a taller box (hashed), 09a.5 soft attention is hard attention's expectation
(hashed).
"""

from __future__ import annotations

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

register_lecture("09a", "09a_attention_captioning")


@exercise(
    "09a.1",
    "the soft-attention context",
    hints=(
        "The weights are the softmax of the scores over the N cells (the last dimension).",
        "The context is the weighted sum of the cells' vectors: sum over i of a_i h_i, for each "
        "scene of the batch. The weights already sum to 1: no 1/N (the CMU deck's slip).",
    ),
)
def _context(answer: object) -> str:
    import torch

    from lecturekit.masking import masked_softmax

    generator = torch.Generator().manual_seed(9)
    for B, N, D in ((1, 4, 3), (2, 64, 32), (3, 9, 5)):
        features = torch.randn(B, N, D, generator=generator)
        scores = 3 * torch.randn(B, N, generator=generator)
        what = f"your function on features ({B}, {N}, {D}) and scores ({B}, {N})"
        got = run_student(answer, features.clone(), scores.clone(), what=what)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise NotYet(f"{what}: return a pair (context, weights)")
        weights = masked_softmax(scores)  # (B, N)
        context = (weights[:, :, None] * features).sum(1)  # (B, N, D) -> (B, D)
        got_w = as_tensor(got[1], "the weights", shape=(B, N), dims="(B, N)", dtype=torch.float32)
        got_c = as_tensor(got[0], "the context", shape=(B, D), dims="(B, D)", dtype=torch.float32)
        if torch.allclose(got_c, context / N, atol=1e-5) and N > 1:
            raise NotYet(f"{what}: your context is 1/N of the right one: the weights already "
                         "sum to 1, so the weighted sum needs no 1/N")  # fmt: skip
        if torch.allclose(got_w, scores, atol=1e-5):
            raise NotYet(f"{what}: your weights are the raw scores: take the softmax over the "
                         "cells first")  # fmt: skip
        same_values(got_w, weights, f"{what}: the weights", dims="(B, N)")
        same_values(got_c, context, f"{what}: the context", dims="(B, D)")
    return (
        "your context equals lecturekit's on three feature maps: the decoder reads one "
        "D-vector per word, a convex combination of the cells, and the weights say where it "
        "looked"
    )


@exercise(
    "09a.2",
    "did the word look at its object?",
    hints=(
        "The attended cell is the argmax of the weights; cell k is at row k // grid, column "
        "k % grid of the feature map (row-major).",
        "Each cell covers canvas / grid pixels; its centre is at ((row + 0.5) * stride, "
        "(col + 0.5) * stride). It is a hit when that centre is inside the box: top <= y < "
        "bottom and left <= x < right.",
    ),
)
def _hit(answer: object) -> str:
    import torch

    from lecturekit.datasets.scenes import box_cells

    generator = torch.Generator().manual_seed(19)
    cases, hits = [], 0
    for grid, canvas in ((8, 32), (4, 32), (7, 28)):
        for _ in range(8):
            weights = torch.rand(grid * grid, generator=generator) ** 8
            top, left = torch.randint(0, canvas - 8, (2,), generator=generator).tolist()
            size = torch.randint(4, 12, (2,), generator=generator).tolist()
            box = (top, left, min(top + size[0], canvas), min(left + size[1], canvas))
            if _ < 3:  # make sure some maps do point into the box
                inside = box_cells(torch.tensor(box), canvas, grid)
                if inside.any():
                    weights[inside.nonzero()[0, 0]] = 2.0
            cases.append((weights, box, grid, canvas))
    for weights, box, grid, canvas in cases:
        what = f"your function on a {grid} x {grid} map over a {canvas}-pixel canvas, box {box}"
        got = run_student(answer, weights.clone(), box, grid, canvas, what=what)
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if not isinstance(got, (bool, int)) or got not in (0, 1):
            raise NotYet(f"{what}: return True or False, got {type(got).__name__}")
        want = bool(box_cells(torch.tensor(box), canvas, grid)[weights.argmax()])
        if bool(got) != want:
            raise NotYet(f"{what}: wrong verdict")
        hits += want
    return (
        f"your verdicts equal lecturekit's on {len(cases)} maps ({hits} hits): the lecture's "
        "localisation accuracy is this test, counted over every digit word of the held-out "
        "captions"
    )


register(
    Exercise(
        "09a.3",
        "the annotation vectors of Show, attend and tell",
        hints=(
            "Xu et al. take VGG's 4th convolutional block before the last max-pool: a 224 x 224 "
            "image becomes a 14 x 14 x 512 feature map.",
            "Each cell is one annotation vector a_i of D = 512 numbers. Answer two numbers: "
            "how many vectors L the decoder attends over, then how many numbers they hold in "
            "all.",
        ),
        expected=Expected("floats", ("c883af6a7fc60c5a4001", "9f404a98988a30b6df1a"), 0),
        correct="{answer}: one soft-attention step scores all of them and reads a 512-d "
        "average; the caption needs one such step per word",
    )
)

register(
    Exercise(
        "09a.4",
        "the chance rate of a taller box",
        hints=(
            "On a 32-pixel canvas with an 8 x 8 grid each cell is 4 x 4 pixels; a cell belongs "
            "to a box when its centre is inside the box.",
            "A box 12 pixels high and 8 wide holds 12 / 4 rows and 8 / 4 columns of centres, "
            "wherever it is placed. Answer two numbers: the box's cells, then the chance that "
            "a cell drawn uniformly from the 64 is one of them (3 decimals).",
        ),
        expected=Expected("floats", ("1fbdf4dc1033c4fef3b9", "bdcb3bfa9b9985774c0d"), 3),
        correct="{answer}: a measured hit rate means something only next to this rate",
    )
)

register(
    Exercise(
        "09a.5",
        "soft attention is hard attention's expectation",
        hints=(
            "Soft attention reads c = sum_i a_i h_i. Hard attention reads h_i for one cell i "
            "drawn with probability a_i.",
            "For a = (0.5, 0.3, 0.2) and scalar cells h = (1, 4, 10), answer three numbers: the "
            "soft context, the mean of the hard context over many draws, and its variance "
            "(E[c^2] - E[c]^2), to 2 decimals.",
        ),
        expected=Expected(
            "floats", ("2a455994f5014231f844", "e27b72abbe49241fa608", "93177bdbf34f1f03e2b9"), 2
        ),
        correct="{answer}: soft attention is the expected value of hard attention's read; "
        "the variance is the noise a REINFORCE-trained hard model has to live with",
    )
)
