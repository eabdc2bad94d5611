"""Lecture 09a's picture: a caption written word by word, each word reading the CNN's feature-map
cells through attention.

Public API::

    captioning_diagram() -> Diagram   # scene, CNN, 8 x 8 cells h_i, scores, weights, context, word

Lecture 09a.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["captioning_diagram"]


def captioning_diagram() -> Diagram:
    """A 32 x 32 scene goes through a CNN into an 8 x 8 feature map, 64 cells h_i; at each step
    the decoder's state s_{t-1} scores every cell, the softmax turns the scores into weights
    alpha_t (bright on the digit the next word names), the context c_t is the weighted average
    of the cells, and the decoder writes the next word from it.

    Lecture 09a.
    """
    d = Diagram(
        860,
        380,
        alt=(
            "Attention for captions: a 32 by 32 scene with a 2 and a 4 goes through a CNN into "
            "an 8 by 8 feature map, 64 cells h_i; at every step the decoder's previous state "
            "s_t-1 scores each cell, a softmax turns the scores into weights alpha_t, bright on "
            "the cells of the digit about to be named, the context c_t is the weighted average "
            "of the cells, and the decoder writes the next word of a 2 left of a 4 from it, "
            "then takes the next step with its new state."
        ),
    )
    d.box("scene", 80, 80, "scene, 32 × 32\na 2 and a 4", kind="input")
    d.box("cnn", 80, 190, "CNN", kind="weight", w=90)
    d.arrow("scene", "cnn")
    weights = [[0.0] * 8 for _ in range(8)]
    for i, j, v in ((3, 1, 1.0), (3, 2, 0.35), (4, 1, 0.35), (2, 1, 0.2), (4, 2, 0.15)):
        weights[i][j] = v
    d.grid("cells", 190, 110, weights, cell=20, kind="accent")
    d.text(270, 285, "64 cells h_1 … h_64", 12)
    d.text(270, 301, "(shade: weight α_t)", 12, kind="accent")
    d.arrow("cnn", (186, 190))
    d.box("score", 500, 90, "score every cell\ne_ti = score(s_t−1, h_i)", kind="op")
    d.box("soft", 500, 190, "softmax over the 64 cells\nweights α_t, sum 1", kind="op")
    d.box("ctx", 500, 290, "context c_t\n= Σ_i α_ti h_i", kind="output")
    d.arrow((354, 150), "score", label="h_i")
    d.arrow((354, 250), "ctx", label="h_i")
    d.arrow("score", "soft")
    d.arrow("soft", "ctx")
    d.box("dec", 740, 190, "decoder (GRU)\nstate s_t", kind="weight")
    d.box("word", 740, 300, "next word: “2”", kind="output")
    d.arrow("ctx", "dec")
    d.arrow("dec", "word")
    d.arrow("dec", "score", label="s_t−1", dashed=True)
    d.text(640, 360, "caption, one word per step: a 2 left of a 4 <eos>", 12, italic=True)
    return d
