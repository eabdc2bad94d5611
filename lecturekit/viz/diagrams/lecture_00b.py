"""Lecture 00b's picture: how far a signal travels from the first input to the last output in a
recurrent layer (n − 1 steps, one after another) and in a self-attention layer (one step).

Public API::

    path_length_diagram() -> Diagram    # n − 1 recurrent steps vs one attention step
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["path_length_diagram"]


def path_length_diagram() -> Diagram:
    """From the first input to the last output: in a recurrent layer the signal passes through
    every state in turn (n − 1 steps, each waiting for the one before); in a self-attention
    layer the last output reads every input directly, one step for all of them. Lecture 00b.
    """
    d = Diagram(
        760,
        300,
        alt=(
            "Two layers over the same five inputs x_1 to x_5. Above, a recurrent layer: the "
            "signal from x_1 reaches the last output only by passing through h_1, h_2, h_3, h_4 "
            "and h_5 in turn, four state-to-state steps, each waiting for the one before. Below, "
            "a self-attention layer: the last output z_5 reads every input directly, so the "
            "path from x_1 is one step long and all positions are computed at once."
        ),
    )
    xs = [170 + 130 * i for i in range(5)]
    d.text(20, 25, "recurrent: n − 1 steps, one after another", anchor="start", size=13)
    d.text(20, 165, "self-attention: one step, all positions at once", anchor="start", size=13)
    for i, x in enumerate(xs, start=1):
        d.box(f"h{i}", x, 60, f"h_{i}", kind="op", w=56)
        d.box(f"rx{i}", x, 120, f"x_{i}", kind="input", w=56)
        d.arrow(f"rx{i}", f"h{i}")
        if i > 1:
            d.arrow(f"h{i - 1}", f"h{i}")
        d.box(f"ax{i}", x, 270, f"x_{i}", kind="input", w=56)
    d.box("z5", xs[-1], 200, "z_5", kind="output", w=56)
    for i in range(1, 6):
        d.arrow(f"ax{i}", "z5")
    d.text(60, 64, "path:", size=12, kind="accent")
    d.text(60, 80, "4 steps", size=12, kind="accent")
    d.text(60, 204, "path:", size=12, kind="accent")
    d.text(60, 220, "1 step", size=12, kind="accent")
    return d
