"""Lecture 02's pictures: attention as a soft lookup (one query scored against every key, a
softmax, a weighted sum), and the scoring functions side by side.

Public API::

    soft_lookup_diagram() -> Diagram      # s vs h_1..h_5 -> scores -> weights -> context c
    score_families_diagram() -> Diagram   # the six scoring functions, in three families
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["soft_lookup_diagram", "score_families_diagram"]


def soft_lookup_diagram() -> Diagram:
    """Attention as a soft lookup: the decoder state s (the query) is compared with every
    encoder state h_i (the keys) by a score function; the softmax turns the five scores into
    weights that sum to 1 (the lecture's dot-score weights); the context c is the weighted sum
    of the h_i (the values). Lecture 02.
    """
    d = Diagram(
        700,
        370,
        alt=(
            "Attention as a soft lookup: the decoder state s, the query, is compared with each "
            "of five encoder states h1 to h5, the keys, by a score function; a softmax turns "
            "the five scores into weights 0.295, 0.018, 0.026, 0.098 and 0.564 that sum to 1; the "
            "context c is the sum of the encoder states weighted by them, so it is mostly h5 "
            "and h1."
        ),
    )
    xs = [260 + 80 * i for i in range(5)]
    weights = [0.295, 0.018, 0.026, 0.098, 0.564]  # softmax of section 1.1's dot scores
    d.text(20, 45, "keys = values", anchor="start")
    d.text(20, 62, "(encoder states)", anchor="start", size=12)
    d.text(20, 125, "scores", anchor="start")
    d.text(20, 215, "softmax: weights", anchor="start")
    d.text(20, 232, "(sum to 1)", anchor="start", size=12)
    d.text(20, 325, "context", anchor="start")
    d.box("s", 155, 125, "query s\n(decoder state)", kind="accent", w=120, h=44)
    for i, x in enumerate(xs, start=1):
        d.box(f"h{i}", x, 45, f"h{i}", kind="input", w=50)
        d.box(f"e{i}", x, 125, f"score\n(s, h{i})", kind="op", w=66, size=12)
        d.arrow(f"h{i}", f"e{i}")
    d.arrow("s", "e1")
    d.group(220, 96, 400, 58, "")
    d.grid(
        "a",
        xs[0] - 40,
        180,
        [weights],
        cell=80,
        text=[[f"{w:.3f}" for w in weights]],
        kind="accent",
    )
    for i, x in enumerate(xs, start=1):
        d.arrow(f"e{i}", (x, 177))
    d.box("c", 420, 325, "context c = 0.295 h1 + 0.018 h2 + … + 0.564 h5", kind="output", w=360)
    for x in (xs[0], xs[4]):
        d.arrow((x, 262), "c")
    d.text(420, 290, "weighted sum of the values", size=12)
    return d


def score_families_diagram() -> Diagram:
    """The six scoring functions of the lecture side by side, each turning a query s and a key
    h into one number, grouped in three families: compare the vectors directly (dot, scaled
    dot, cosine), compare through learned weights (general, additive), and ignore the key's
    content (location). Lecture 02.
    """
    d = Diagram(
        740,
        250,
        alt=(
            "The six scoring functions side by side, each turning a query s and a key h into "
            "one score: dot, scaled dot and cosine compare the two vectors directly without "
            "parameters; general and additive compare them through learned weights W and v; "
            "location reads only the query and gives one score per source position."
        ),
    )
    d.group(15, 20, 250, 210, "compare s and h directly")
    d.box("dot", 140, 80, "dot\ns · h", kind="op", w=200, h=44)
    d.box("scaled", 140, 135, "scaled dot\ns · h / √d", kind="op", w=200, h=44)
    d.box("cos", 140, 190, "cosine\nangle between s and h", kind="op", w=200, h=44)
    d.group(280, 20, 250, 210, "compare through learned weights", kind="weight")
    d.box("gen", 405, 90, "general\ns · (W h)", kind="weight", w=210, h=44)
    d.box("add", 405, 170, "additive\nsmall network on [s; h]", kind="weight", w=210, h=44)
    d.group(545, 20, 180, 210, "ignore the key's content", kind="mask")
    d.box("loc", 635, 125, "location\nW s: one score\nper position", kind="mask", w=150, h=60)
    return d
