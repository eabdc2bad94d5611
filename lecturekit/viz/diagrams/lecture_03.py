"""Lecture 03's pictures: self-attention's four steps on "Thinking Machines", and the same
computation for all words at once as a product of matrices.

Public API::

    four_steps_diagram() -> Diagram    # x -> q, k, v; scores 112, 96; / 8; softmax; z1
    matrix_form_diagram() -> Diagram   # Q K^T as a grid, softmax by rows, times V = Z
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["four_steps_diagram", "matrix_form_diagram"]


def four_steps_diagram() -> Diagram:
    """The four steps of self-attention for the query *Thinking*, with the worked example's
    numbers: each word's vector x gives a query, a key and a value (by W^Q, W^K, W^V); the query
    q1 scores both keys (112, 96); the scores are divided by 8 (14, 12); the softmax turns them
    into weights (0.88, 0.12); the weighted sum of the values is z1. Lecture 03.
    """
    d = Diagram(
        720,
        470,
        alt=(
            "The four steps of self-attention for the word Thinking: the vectors x1 of "
            "Thinking and x2 of Machines each give a query, a key and a value through W^Q, "
            "W^K and W^V; the query q1 is compared with both keys, scores 112 and 96; dividing "
            "by 8, the square root of d_k = 64, gives 14 and 12; the softmax turns them into "
            "the weights 0.88 and 0.12; the output z1 is 0.88 times v1 plus 0.12 times v2."
        ),
    )
    left, right = 330, 580  # the columns of the two words
    steps = [
        (40, "the words"),
        (115, "Step 1: query, key, value"),
        (200, "Step 2: score q1 · k"),
        (270, "Step 3: divide by √d_k = 8"),
        (340, "Step 4: softmax"),
        (410, "weighted sum of values"),
    ]
    for y, label in steps:
        d.text(16, y + 5, label, anchor="start", size=13)
    for col, i, word in ((left, 1, "Thinking"), (right, 2, "Machines")):
        d.box(f"x{i}", col, 40, f"{word}\nx{i}", kind="input", w=120, h=44)
        for dx, role in ((-55, "q"), (0, "k"), (55, "v")):
            d.box(f"{role}{i}", col + dx, 115, f"{role}{i}", kind="weight", w=42)
            d.arrow(f"x{i}", f"{role}{i}")
    d.text(455, 72, "× W^Q, W^K, W^V (learned)", size=12)
    d.box("s1", left, 200, "q1 · k1 = 112", kind="op", w=130)
    d.box("s2", right, 200, "q1 · k2 = 96", kind="op", w=130)
    d.arrow("q1", "s1")
    d.arrow("k1", "s1")
    d.arrow("q1", "s2")
    d.arrow("k2", "s2")
    d.box("d1", left, 270, "112 / 8 = 14", kind="op", w=130)
    d.box("d2", right, 270, "96 / 8 = 12", kind="op", w=130)
    d.box("a1", left, 340, "0.88", kind="accent", w=130)
    d.box("a2", right, 340, "0.12", kind="accent", w=130)
    d.group(250, 318, 410, 44, "")
    for i in (1, 2):
        d.arrow(f"s{i}", f"d{i}")
        d.arrow(f"d{i}", f"a{i}")
    d.box("z1", 455, 410, "z1 = 0.88 · v1 + 0.12 · v2", kind="output", w=250)
    d.arrow("a1", "z1")
    d.arrow("a2", "z1")
    return d


def matrix_form_diagram() -> Diagram:
    """All the words at once: the rows of Q (one query per word) times the columns of K^T (one
    key per word) give the grid of scores, one row per query; divided by 8 and through a softmax
    by rows they become weights whose rows sum to 1; the weights times V give Z, one output
    row per word. The numbers are the worked example's. Lecture 03.
    """
    d = Diagram(
        760,
        250,
        alt=(
            "The matrix form of self-attention on Thinking Machines: Q, one row per word, "
            "times K transposed, one column per word, gives a 2 by 2 grid of scores (112 and "
            "96 in the Thinking row, -102 and -45 in the Machines row); divided by 8 and put "
            "through a softmax row by row it becomes the weights 0.88, 0.12 and 0.00, 1.00; "
            "the weights times V give Z, one output row per word."
        ),
    )
    words = ["Thinking", "Machines"]
    shade = [[0.55, 0.2, 0.7, 0.35], [0.3, 0.8, 0.15, 0.6]]  # stand-ins for 64 numbers
    c = 24
    d.grid("Q", 90, 100, shade, cell=c, row_labels=words, kind="input")
    d.text(90 + 2 * c, 85, "Q  (2 × 64)", size=12)
    d.text(205, 130, "×", size=18)
    kt = [list(col) for col in zip(*shade[::-1], strict=True)]
    d.grid("K", 225, 80, kt, cell=c, col_labels=["k1", "k2"], kind="input")
    d.text(225 + c, 196, "Kᵀ  (64 × 2)", size=12)
    d.text(295, 130, "=", size=18)
    d.grid(
        "S",
        315,
        100,
        [[1.0, 0.9], [0.0, 0.35]],
        cell=40,
        col_labels=["k1", "k2"],
        text=[["112", "96"], ["-102", "-45"]],
        kind="op",
    )
    d.text(355, 195, "scores QKᵀ", size=12)
    d.arrow((402, 140), (472, 140))
    d.text(437, 128, "÷ 8, softmax", size=11)
    d.text(437, 158, "row by row", size=11)
    d.grid(
        "A",
        480,
        100,
        [[0.88, 0.12], [0.0, 1.0]],
        cell=40,
        col_labels=["k1", "k2"],
        text=[["0.88", "0.12"], ["0.00", "1.00"]],
        kind="accent",
    )
    d.text(520, 195, "weights (rows sum to 1)", size=12)
    d.text(598, 146, "× V =", size=16)
    d.grid("Z", 635, 116, shade, cell=c, row_labels=None, kind="output")
    d.text(635 + 2 * c, 101, "Z  (2 × 64)", size=12)
    d.text(635 + 2 * c, 184, "z1, z2", size=12)
    return d
