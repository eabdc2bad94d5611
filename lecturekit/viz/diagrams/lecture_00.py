"""Lecture 00's pictures: one-hot against dense word vectors, and a recurrent network unrolled
over a sentence with its hidden state carried along (and the long path a gradient takes back).

Public API::

    word_vectors_diagram() -> Diagram   # one-hot rows (all equally far) vs dense rows (dog ~ cat)
    rnn_unrolled_diagram() -> Diagram   # x_t -> h_t, h_{t-1} -> h_t by W_hh, the loss at the end
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["word_vectors_diagram", "rnn_unrolled_diagram"]

_WORDS = ("dog", "cat", "milk")
# dense vectors drawn as shades in 0..1 (illustrative: dog and cat alike, milk different)
_DENSE = ((0.9, 0.2, 0.7, 0.1, 0.5), (0.8, 0.3, 0.6, 0.1, 0.4), (0.1, 0.8, 0.2, 0.9, 0.3))


def word_vectors_diagram() -> Diagram:
    """Three words as one-hot vectors (a row of V numbers with a single 1: every two words are
    equally far apart) and as dense vectors of d numbers looked up in a learned table (dog and
    cat, used in the same contexts, get similar rows; milk a different one). Lecture 00.
    """
    d = Diagram(
        720,
        250,
        alt=(
            "Three words, dog, cat and milk, drawn two ways. On the left as one-hot vectors: "
            "rows of V numbers, each with a single 1, so every two words are equally far apart. "
            "On the right as dense vectors of d numbers looked up in a learned embedding table: "
            "dog and cat, which appear in the same contexts, get similar rows, milk a different "
            "one."
        ),
    )
    v = 10  # columns shown of the one-hot rows
    hot = [[1.0 if j == k else 0.0 for j in range(v)] for k in (2, 5, 8)]
    text = [["1" if x else "0" for x in row] for row in hot]
    d.text(150, 30, "one-hot: V numbers, a single 1", size=13)
    d.grid("onehot", 40, 60, hot, cell=22, row_labels=_WORDS, text=text)
    d.text(150, 150, "every two words equally far apart", size=12, italic=True)
    d.text(150, 170, "(cosine 0: dog is as unlike cat as milk)", size=12, italic=True)
    d.box("table", 400, 93, "embedding table\n(learned, V × d)", kind="weight", w=150, h=48)
    d.arrow((268, 93), "table", label="look up")
    d.text(600, 30, "dense: d numbers", size=13)
    d.grid("dense", 545, 60, _DENSE, cell=22, row_labels=_WORDS)
    d.arrow("table", (505, 93))
    d.text(600, 150, "dog ≈ cat: they share contexts", size=12, italic=True, kind="accent")
    d.text(600, 170, '("my ___ is cute")', size=12, italic=True)
    d.text(
        360,
        225,
        "Word2vec learns the table from raw text; one row per word, whatever its sense.",
        size=12,
    )
    return d


def rnn_unrolled_diagram() -> Diagram:
    """A recurrent network unrolled over "i think teddy roosevelt is": each word x_t enters the
    cell, the hidden state h_t is carried to the next step by W_hh (the same weights at every
    step), and a loss read at the last position sends its gradient back along the chain, one
    Jacobian per step, so the first word is five multiplications away. Lecture 00.
    """
    words = ("i", "think", "teddy", "roosevelt", "is")
    d = Diagram(
        760,
        300,
        alt=(
            "A recurrent network unrolled over the words i, think, teddy, roosevelt, is. Each "
            "word x_t enters a cell that computes the hidden state h_t from x_t and the previous "
            "state, which is carried along by the same weights W_hh at every step. A loss read "
            "at the last word sends its gradient back along the chain of states: it reaches the "
            "first word only through five step Jacobians multiplied together."
        ),
    )
    xs = [130 + 125 * i for i in range(5)]
    d.box("h0", 40, 130, "h_0", kind="plain", w=44)
    prev = "h0"
    for i, (x, w) in enumerate(zip(xs, words, strict=True), start=1):
        d.box(f"x{i}", x, 220, f"{w}\nx_{i}", kind="input", w=96, h=44)
        d.box(f"h{i}", x, 130, f"h_{i}", kind="op", w=60)
        d.arrow(f"x{i}", f"h{i}")
        d.arrow(prev, f"h{i}", label="W_hh" if i == 2 else None)
        prev = f"h{i}"
    d.box("loss", xs[-1], 40, "loss at the last word", kind="output", w=170)
    d.arrow("h5", "loss")
    d.text(
        330,
        45,
        "gradient back to x_1: five Jacobians multiplied",
        size=12,
        kind="accent",
        italic=True,
    )
    d.arrow((560, 62), (130, 62), dashed=True)
    d.text(380, 285, "the same cell and the same weights at every step", size=12, italic=True)
    return d
