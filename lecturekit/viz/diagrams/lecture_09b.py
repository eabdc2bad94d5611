"""Lecture 09b's picture: what a CNN assumes about images and a ViT must learn.

Public API::

    inductive_bias_diagram() -> Diagram   # a 3 x 3 filter slid everywhere vs patches and positions

Lecture 09b.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["inductive_bias_diagram"]


def inductive_bias_diagram() -> Diagram:
    """Left, a CNN: one 3 x 3 filter, the same weights at every place of the 8 x 8 digit, sees
    only neighbouring pixels, so a moved digit gives a moved feature map. Right, a ViT: 16
    patches, each attending to all the others from the first layer on, told where it is only
    by a learned position vector, so which patches are neighbours must be learned from data.

    Lecture 09b.
    """
    d = Diagram(
        800,
        330,
        alt=(
            "Two ways to see an 8 by 8 digit. Left, a CNN slides one 3 by 3 filter with the same "
            "weights over every place of the image, so it sees only neighbouring pixels and a "
            "moved digit gives a moved feature map: locality and weight sharing are built in. "
            "Right, a ViT cuts the digit into 16 patches; from the first layer every patch may "
            "attend to every other one, and only a learned position vector says where a patch "
            "is, so which patches are neighbours must be learned from data."
        ),
    )
    window = [[0.75 if 2 <= i <= 4 and 1 <= j <= 3 else 0.05 for j in range(8)] for i in range(8)]
    d.grid("cnn", 30, 50, window, cell=19, kind="weight")
    d.text(106, 30, "CNN: a 3 × 3 filter", 13)
    d.box("cnn_note", 312, 90, "the same weights everywhere\nsees only neighbours", kind="weight")
    d.box("cnn_out", 312, 180, "a moved digit gives\na moved feature map", kind="output")
    d.arrow((182, 90), "cnn_note")
    d.arrow("cnn_note", "cnn_out")
    d.text(200, 250, "built in: locality, weight sharing", 13, kind="accent")
    patches = [[0.45] * 4 for _ in range(4)]
    patches[1][1] = 1.0
    labels = [[str(4 * i + j + 1) for j in range(4)] for i in range(4)]
    d.grid("vit", 430, 50, patches, cell=40, text=labels, kind="input")
    d.text(510, 30, "ViT: 16 patches", 13)
    d.box("vit_note", 710, 90, "patch 6 attends to\nall 16 patches", kind="op")
    d.box("vit_pos", 710, 180, "where it is: only\na learned position", kind="weight")
    d.arrow((594, 90), "vit_note")
    d.arrow("vit_note", "vit_pos")
    d.text(600, 250, "learned from data: which patches are neighbours", 13, kind="accent")
    d.text(
        400,
        305,
        "little data favours the built-in assumptions; much data lets the ViT learn them",
        12,
        italic=True,
    )
    return d
