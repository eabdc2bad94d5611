"""Lecture 05's pictures: why attention alone is blind to word order, and the sinusoid table whose
row t is added to the word vector at position t.

Public API::

    order_blind_diagram() -> Diagram      # dog bites man / man bites dog: the same outputs
    sinusoid_table_diagram() -> Diagram   # the table as a grid; word vector + PE_t

Lecture 05.
"""

from __future__ import annotations

import math

from lecturekit.viz.diagram import Diagram

__all__ = ["order_blind_diagram", "sinusoid_table_diagram"]


def order_blind_diagram() -> Diagram:
    """Two sentences with the same words in another order go through self-attention: each word
    gets the same output vector in both, only the rows are shuffled.

    Lecture 05.
    """
    d = Diagram(
        640,
        250,
        alt=(
            "The sentences dog bites man and man bites dog go through the same self-attention "
            "layer; each word comes out with the same vector in both sentences, only listed in "
            "another order, so without positions the layer cannot tell who bites whom."
        ),
    )
    for row, (y, words) in enumerate(
        ((55, ("dog", "bites", "man")), (195, ("man", "bites", "dog")))
    ):
        for j, w in enumerate(words):
            d.box(f"in{row}{j}", 50 + 70 * j, y, w, kind="input", w=60)
            d.box(f"out{row}{j}", 420 + 80 * j, y, f"out({w})", kind="output", w=74)
        d.box(f"sa{row}", 300, y, "self-attention", kind="op")
        d.arrow(f"in{row}2", f"sa{row}")
        d.arrow(f"sa{row}", f"out{row}0")
    d.text(500, 130, "the same three vectors, shuffled", size=13, kind="accent")
    d.text(120, 130, "the same words, another order", size=13)
    return d


def sinusoid_table_diagram() -> Diagram:
    """The sinusoid table as a grid (8 positions by 8 dimensions, sine and cosine pairs,
    fast-turning on the left, slow on the right) and a word's vector plus its position's row.

    Lecture 05.
    """
    d = Diagram(
        700,
        320,
        alt=(
            "The positional table as a grid of shaded cells: one row per position 0 to 7, one "
            "column per dimension, sine and cosine pairs whose left columns change quickly from "
            "row to row and right columns slowly; the word dog at position 2 gets its word vector "
            "plus row 2 of the table as its input."
        ),
    )
    n_pos, n_dim = 8, 8
    values, text = [], []
    for t in range(n_pos):
        row, row_text = [], []
        for j in range(n_dim):
            angle = t / 10000 ** ((j - j % 2) / n_dim)
            v = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            row.append((v + 1) / 2)
            row_text.append(f"{v:+.1f}".replace("+", "").replace("-0.0", "0.0"))
        values.append(row)
        text.append(row_text)
    cell = 30
    x0, y0 = 60, 45
    d.grid(
        "pe",
        x0,
        y0,
        values,
        cell=cell,
        row_labels=[f"t={t}" for t in range(n_pos)],
        col_labels=["sin", "cos"] * (n_dim // 2),
        text=text,
    )
    d.text(x0 + n_dim * cell / 2, y0 + n_pos * cell + 22, "fast-turning  →  slow-turning", 12)
    d.text(x0 + n_dim * cell / 2, 16, "PE: one row per position", 13)
    row2 = y0 + 2.5 * cell
    d.box("word", 450, 70, "word vector of 'dog'", kind="input")
    d.box("row", 450, 150, "row t = 2 of PE", kind="weight")
    d.box("plus", 560, 110, "+", kind="op", w=34)
    d.box("x", 640, 110, "input at\nt = 2", kind="output")
    d.arrow((x0 + n_dim * cell + 4, row2), "row")
    d.arrow("word", "plus")
    d.arrow("row", "plus")
    d.arrow("plus", "x")
    d.text(520, 225, "same word at another position:", 12)
    d.text(520, 243, "another row, another input", 12)
    return d
