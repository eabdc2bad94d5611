"""Lecture 14's pictures: the decoder-only stack and the loop that makes it write.

Public API::

    decoder_loop_diagram() -> Diagram   # tokens -> embeddings -> N causal blocks -> tied output
                                        # -> next-token distribution -> choose -> append -> again

Lecture 14.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["decoder_loop_diagram"]


def decoder_loop_diagram() -> Diagram:
    """GPT as a stack read bottom to top, and generation as a loop: the tokens so far, token and
    position embeddings, N causal blocks, the output layer tied to the token embedding, the
    next-token distribution, a choice, the chosen token appended, and round again.

    Lecture 14.
    """
    d = Diagram(
        780,
        440,
        alt=(
            "The decoder-only stack read from the bottom up: the tokens so far ([CLS] my dog) "
            "become token embeddings plus position embeddings, pass through N causal blocks of "
            "masked self-attention and an MLP, then a final LayerNorm and the output layer tied "
            "to the token embedding give the next-token distribution; a strategy (greedy or "
            "sampling with temperature, top-k, top-p) chooses one token, which is appended to "
            "the text, and the loop runs again."
        ),
    )
    d.box("tokens", 220, 400, "tokens so far: [CLS] my dog", "input", w=300)
    d.box("embed", 220, 325, "token embedding W_e[y] + position W_p[t]", "weight", w=340)
    d.box(
        "blocks",
        220,
        245,
        "N causal blocks: masked self-attention + MLP\n(position t sees positions 0 ... t only)",
        "op",
        w=340,
        h=44,
    )
    d.box("out", 220, 165, "final LayerNorm, then × W_eᵀ (tied output)", "weight", w=340)
    d.box(
        "dist",
        220,
        85,
        "next-token distribution at the last position\n"
        "P(is), P(was), P(likes) ... over the vocabulary",
        "output",
        w=340,
        h=44,
    )
    d.box(
        "choose",
        590,
        85,
        "choose one token:\ngreedy, or sample with\ntemperature, top-k, top-p",
        "accent",
        w=240,
    )
    d.box("append", 590, 400, "append it: [CLS] my dog is", "input", w=240)
    d.arrow("tokens", "embed")
    d.arrow("embed", "blocks", label="h_0")
    d.arrow("blocks", "out", label="h_N")
    d.arrow("out", "dist", label="logits")
    d.arrow("dist", "choose")
    d.arrow("choose", "append", label="'is'")
    d.arrow("append", "tokens", label="again", dashed=True)
    d.text(575, 235, "the generation loop:", size=12, anchor="end", italic=True)
    d.text(575, 253, "one token per step", size=12, anchor="end", italic=True)
    return d
