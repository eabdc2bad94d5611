"""Lecture 04's pictures: multi-head attention as one projection cut into H slices, the heads
attending side by side, their outputs concatenated and mixed by W^O.

Public API::

    heads_diagram() -> Diagram   # X -> Q, K, V -> 8 heads of 64 dims -> Concat -> W^O

Lecture 04.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["heads_diagram"]


def heads_diagram() -> Diagram:
    """The five steps of multi-head attention as boxes: the words' vectors X (T x 512) are
    projected to queries, keys and values, cut into 8 slices of 64 dimensions (one per head),
    each head attends on its own slice, the 8 outputs are put side by side again (T x 512) and
    W^O mixes them into the output, the input's shape.

    Lecture 04.
    """
    d = Diagram(
        820,
        330,
        alt=(
            "Multi-head attention in five steps: the words' vectors X, T by 512, are projected to "
            "queries, keys and values; these are cut into 8 slices of 64 dimensions, one per head; "
            "each head runs attention on its own slice, in parallel; the 8 outputs are "
            "concatenated back to T by 512 and multiplied by W^O, giving an output of the "
            "input's shape."
        ),
    )
    d.box("x", 60, 165, "X\n(T × 512)\none row\nper word", kind="input")
    d.box("proj", 190, 165, "q = X W^Q\nk = X W^K\nv = X W^V\n(T × 512)", kind="weight")
    heads = [
        ("h1", "head 1: dims 0-63", 50),
        ("h2", "head 2: dims 64-127", 120),
        ("h8", "head 8: dims 448-511", 280),
    ]
    for name, label, y in heads:
        d.box(name, 400, y, label + "\nattention on 64 dims", kind="op", w=190)
        d.arrow("proj", name)
    d.text(400, 205, "⋮  heads 3 to 7", size=14)
    d.box("cat", 600, 165, "Concat\n(T × 512)", kind="op")
    for name, _, _ in heads:
        d.arrow(name, "cat")
    d.box("wo", 690, 165, "× W^O", kind="weight")
    d.box("out", 775, 165, "output\n(T × 512)", kind="output")
    d.arrow("x", "proj")
    d.arrow("cat", "wo")
    d.arrow("wo", "out")
    d.text(400, 322, "8 heads in parallel, each with its own 64-dim slice", size=12, italic=True)
    return d
