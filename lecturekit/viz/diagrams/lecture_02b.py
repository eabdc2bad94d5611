"""Lecture 02b's picture: why the additive score needs its tanh. With it, the query and the key
mix inside the nonlinearity; without it, the score splits into a query part, the same for every
key, and a key part, and the softmax cancels the query part.

Public API::

    additive_vs_linear_diagram() -> Diagram   # v·tanh(W_s s + W_h h) vs w_q·s + w_k·h
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["additive_vs_linear_diagram"]


def additive_vs_linear_diagram() -> Diagram:
    """Two rows: the additive score (s and h projected, added, through a tanh, then v: the
    weights depend on the query and the key together) and the same without the tanh (a query
    part, equal for every key and cancelled by the softmax, plus a key part: the weights
    depend on the keys alone). Lecture 02b.
    """
    d = Diagram(
        760,
        270,
        alt=(
            "Two rows compare the additive score with its linear version: on top, the query s "
            "and a key h are projected, added and passed through a tanh before the vector v "
            "gives the score, so the weights depend on both; below, without the tanh, the "
            "score is a query part, the same number for every key and cancelled by the "
            "softmax, plus a key part, so the weights depend on the keys alone."
        ),
    )
    d.text(20, 30, "additive", anchor="start", size=14)
    d.box("s1", 60, 70, "query s", kind="accent", w=80)
    d.box("h1", 60, 120, "key h", kind="input", w=80)
    d.box("sum1", 240, 95, "W_s s + W_h h", kind="weight", w=130)
    d.box("tanh", 390, 95, "tanh", kind="op", w=60)
    d.box("v", 510, 95, "v · (...)", kind="weight", w=90)
    d.box("out1", 665, 95, "weights depend\non s and h", kind="output", w=150, h=44)
    d.arrow("s1", "sum1")
    d.arrow("h1", "sum1")
    d.arrow("sum1", "tanh")
    d.arrow("tanh", "v")
    d.arrow("v", "out1")
    d.text(20, 160, "without the tanh", anchor="start", size=14)
    d.box("s2", 60, 195, "query s", kind="accent", w=80)
    d.box("h2", 60, 235, "key h", kind="input", w=80)
    d.box("wq", 240, 195, "w_q · s: same for every key", kind="mask", w=210)
    d.box("wk", 240, 235, "w_k · h", kind="weight", w=80)
    d.box(
        "out2",
        610,
        215,
        "softmax cancels w_q · s:\nweights depend on h alone",
        kind="mask",
        w=220,
        h=44,
    )
    d.arrow("s2", "wq")
    d.arrow("h2", "wk")
    d.arrow("wq", "out2")
    d.arrow("wk", "out2")
    return d
