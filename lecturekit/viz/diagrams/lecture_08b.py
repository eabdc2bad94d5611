"""Lecture 08b's pictures: what the blank can see in BERT and in a left-to-right language model,
and the masked-LM head that turns the [MASK] vector into a word.

Public API::

    two_models_diagram() -> Diagram   # "i think teddy ___ make great presents": both sides or left
    fill_mask_diagram() -> Diagram    # h at [MASK] -> dense, GELU, LayerNorm -> E (tied) -> softmax
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["two_models_diagram", "fill_mask_diagram"]

_WORDS = ("i", "think", "teddy", "[MASK]", "make", "great", "presents")


def two_models_diagram() -> Diagram:
    """The same blank in two models of the same size: in BERT the [MASK] position attends to
    the words on both sides, so "make great presents" decides it (bears); a left-to-right
    language model predicts the word after "i think teddy" from the left only, the causal mask
    hides the rest, so its guess is the same whatever follows. Lecture 08b.
    """
    x0, dx = 150, 92
    d = Diagram(
        x0 + len(_WORDS) * dx,
        330,
        alt=(
            "The same blank, i think teddy blank make great presents, in two models of the same "
            "size. Top: in BERT the blank is a [MASK] token that attends to every word, to its "
            "left and to its right, so make great presents decides it: bears. Bottom: a "
            "left-to-right language model predicts the word after teddy from i think teddy "
            "alone; the causal mask hides make great presents, so its guess is the same whatever "
            "follows, roosevelt or bears by frequency."
        ),
    )
    d.text(12, 62, "BERT", size=14, anchor="start")
    d.text(12, 80, "(both sides)", size=12, anchor="start")
    d.text(12, 232, "left-to-right", size=14, anchor="start")
    d.text(12, 250, "LM (left only)", size=12, anchor="start")
    blank_x = x0 + 3 * dx
    for i, w in enumerate(_WORDS):
        x = x0 + i * dx
        d.box(f"b{i}", x, 120, w, kind="accent" if i == 3 else "input", w=dx - 12)
        if i != 3:
            d.arrow(f"b{i}", (blank_x + (i - 3) * 8, 42))
        hidden = i > 3
        d.box(
            f"l{i}",
            x,
            290,
            "?" if i == 3 else w,
            kind="note" if hidden else ("accent" if i == 3 else "input"),
            w=dx - 12,
        )
        if i < 3:
            d.arrow(f"l{i}", (blank_x - 30 + i * 10, 212))
    d.box("bout", blank_x, 25, "bears", kind="output", w=90)
    d.arrow("b3", "bout")
    d.box("lout", blank_x, 195, "? (same for any ending)", kind="mask", w=200)
    d.text(x0 + 5 * dx, 252, "hidden by the causal mask", size=12, kind="mask", italic=True)
    return d


def fill_mask_diagram() -> Diagram:
    """The masked-LM head: the last layer's vector h at the [MASK] position goes through a dense
    layer, GELU and LayerNorm, is scored against every row of the token-embedding matrix E (the
    same matrix that embeds the input, tied) plus a bias, and a softmax turns the 450 scores into
    a distribution over the vocabulary. Lecture 08b.
    """
    d = Diagram(
        860,
        150,
        alt=(
            "The masked-LM head, left to right. The final hidden vector h at the [MASK] position "
            "goes through a dense layer with GELU and LayerNorm; the result is multiplied by the "
            "token-embedding matrix E, the same matrix that embeds the input words (tied), plus "
            "a bias, giving one score per vocabulary entry, 450 in all; a softmax turns the "
            "scores into probabilities, and the most probable word fills the blank."
        ),
    )
    d.box("h", 60, 70, "h at [MASK]\n(64 numbers)", kind="input", w=110)
    d.box("t", 240, 70, "dense, GELU,\nLayerNorm", kind="weight", w=130)
    d.box("e", 430, 70, "x Eᵀ + bias\n(E tied: the\ninput embeddings)", kind="weight", w=150)
    d.box("s", 610, 70, "450 scores\nsoftmax", kind="op", w=110)
    d.box("p", 770, 70, "p(word)\nroosevelt 0.998", kind="output", w=130)
    for a, b in (("h", "t"), ("t", "e"), ("e", "s"), ("s", "p")):
        d.arrow(a, b)
    return d
