"""Lecture 11b's picture: the Universal Transformer's one shared layer, applied again and again,
with a halting unit that decides per position when to stop (Adaptive Computation Time).

Public API::

    universal_transformer_diagram() -> Diagram   # embed, + position + step, shared layer, halt?

Lecture 11b.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["universal_transformer_diagram"]


def universal_transformer_diagram() -> Diagram:
    """The Universal Transformer as a loop over depth: the token states get the position and
    step signal, pass through the one shared encoder layer, and a halting unit emits h for each
    position; a position whose h add up to about 1 stops, the others go round again.

    Lecture 11b.
    """
    alt = (
        "A loop over depth. Token embeddings enter; at step t the position and step signal are "
        "added, the one shared encoder layer updates every position in parallel, and a halting "
        "unit gives each position a halting probability h. A position whose h values add up to "
        "one stops and its output is a weighted mix of its states; the others go round the loop "
        "again through the same layer, so harder tokens take more steps with no new weights."
    )
    d = Diagram(720, 330, alt=alt)
    d.box("x", 150, 40, "token embeddings s₀\n(one per position)", kind="input", w=190)
    d.box("signal", 150, 130, "+ position + step t", kind="op", w=190)
    d.box("layer", 150, 220, "shared encoder layer\n(the same weights each step)", kind="weight",
          w=230)  # fmt: skip
    d.box("halt", 460, 220, "halting unit\nh_t = σ(w·s_t + b)", kind="op", w=190)
    d.box("test", 460, 130, "sum of h ≥ 1 − ε ?", kind="accent", w=190)
    d.box("out", 625, 40, "output:\nmix of the states", kind="output", w=170)
    d.arrow("x", "signal")
    d.arrow("signal", "layer")
    d.arrow("layer", "halt", label="s_t")
    d.arrow("halt", "test")
    d.arrow("test", "out", label="yes: halt")
    d.arrow((365, 130), "signal", label="no: step t + 1")
    d.text(360, 290, "depth costs no parameters: one layer, up to T steps;", size=12, kind="note")
    d.text(360, 308, "each position halts on its own, so hard tokens take more steps", size=12,
           kind="note")  # fmt: skip
    return d
