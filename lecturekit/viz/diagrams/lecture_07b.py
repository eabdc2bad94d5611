"""Lecture 07b's picture: why a wide beam prefers short outputs. Every token multiplies the
probability by a number below 1, so a longer hypothesis has a lower log P even when each of its
tokens is more probable; dividing by the length (alpha = 1) ranks them per token.

Public API::

    length_bias_diagram() -> Diagram    # a short and a long hypothesis, raw vs per-token score
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["length_bias_diagram"]

# illustrative per-token log-probabilities (not a model's): the long output is better per token
_SHORT = (("he", -0.4), ("left", -0.6), ("</s>", -0.5))
_LONG = (("he", -0.4), ("left", -0.6), ("the", -0.2), ("room", -0.2), ("early", -0.3),
         ("</s>", -0.1))  # fmt: skip


def length_bias_diagram() -> Diagram:
    """Two finished hypotheses as rows of tokens with their log-probabilities: the short one
    (3 tokens, log P = -1.5) beats the long one (6 tokens, log P = -1.8) on the raw score, the
    long one wins per token (-0.30 against -0.50). Lecture 07b; Wu et al. 2016, section 7.
    """
    d = Diagram(
        720,
        250,
        alt=(
            "Two finished hypotheses drawn as rows of tokens, each token with its log-probability. "
            "The short one, 'he left </s>', sums to log P = -1.5 over 3 tokens, -0.50 per token. "
            "The long one, 'he left the room early </s>', sums to -1.8 over 6 tokens, -0.30 per "
            "token. Ranked by raw log P the short one wins; divided by the length the long one "
            "wins, because every extra token can only lower the sum."
        ),
        title="Why a wide beam prefers short outputs",
    )
    for row, (name, tokens, y) in enumerate((("short", _SHORT, 50), ("long", _LONG, 130))):
        d.text(20, y + 5, name, anchor="start", size=13)
        for j, (tok, lp) in enumerate(tokens):
            kind = "output" if tok == "</s>" else "input"
            d.box(f"{name}{j}", 110 + j * 62, y, f"{tok}\n{lp:+.1f}".replace("+", ""), kind=kind,
                  w=56, h=44, size=12)  # fmt: skip
        total = sum(lp for _, lp in tokens)
        d.box(f"{name}_score", 600, y, f"log P = {total:.1f}\nper token {total / len(tokens):.2f}",
              kind="accent" if row == 1 else "op", w=170, h=44, size=12)  # fmt: skip
        d.arrow(f"{name}{len(tokens) - 1}", f"{name}_score")
    d.text(360, 190, "raw log P (alpha = 0): the short one wins, -1.5 > -1.8", size=12)
    d.text(360, 212, "divided by the length (alpha = 1): the long one wins, -0.30 > -0.50",
           size=12, kind="accent")  # fmt: skip
    return d
