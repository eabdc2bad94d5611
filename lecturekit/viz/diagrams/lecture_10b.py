"""Lecture 10b's pictures: two models scored sentence by sentence, and the steps an RNN takes one
after the other against the Transformer's layers.

Public API::

    paired_comparison_diagram() -> Diagram   # both right / only one / neither: what moves the gap
    sequential_steps_diagram() -> Diagram    # RNN: a chain over the words; Transformer: layers

Lecture 10b.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["paired_comparison_diagram", "sequential_steps_diagram"]


def paired_comparison_diagram() -> Diagram:
    """The same test sentences translated by both models and sorted into a 2 x 2 table (both
    right, only the Transformer, only the RNN, neither); only the two off-diagonal counts move
    the difference, and a sign test asks whether their split could be a fair coin's.

    Lecture 10b.
    """
    d = Diagram(
        780,
        300,
        alt=(
            "Two models scored on the same test sentences: each sentence goes through both and "
            "lands in one cell of a 2 by 2 table, both right, only the Transformer right, only "
            "the RNN right, or neither; the sentences both get right or both get wrong cannot "
            "move the difference, only the disagreements can, and a sign test asks whether "
            "their split is more uneven than tosses of a fair coin would give."
        ),
    )
    d.box("test", 90, 140, "each test\nsentence", kind="input")
    d.box("tr", 250, 80, "Transformer:\nright or wrong?", kind="op")
    d.box("rnn", 250, 200, "RNN + attention:\nright or wrong?", kind="op")
    d.arrow("test", "tr")
    d.arrow("test", "rnn")
    shades = [[0.15, 0.9], [0.9, 0.15]]
    text = [["both right", "only Transf."], ["only RNN", "neither"]]
    d.grid(
        "table",
        420,
        60,
        shades,
        cell=100,
        text=text,
        kind="accent",
        col_labels=["RNN right", "RNN wrong"],
    )
    d.text(415, 114, "Tr. right", 12, anchor="end")
    d.text(415, 214, "Tr. wrong", 12, anchor="end")
    d.arrow("tr", (348, 104))
    d.arrow("rnn", (348, 204))
    d.text(520, 290, "only the disagreements (bright cells) move the difference", 12, kind="accent")
    d.box("coin", 700, 140, "sign test:\nis their split\na fair coin's?", kind="output")
    d.arrow((624, 130), "coin")
    return d


def sequential_steps_diagram() -> Diagram:
    """Top: the RNN's encoder states h_1 ... h_S, each waiting for the one before it. Bottom: a
    Transformer layer computing every position at once from the layer below, so the steps one
    after the other are the layers, whatever the length.

    Lecture 10b.
    """
    d = Diagram(
        780,
        330,
        alt=(
            "Steps one after the other. Top, the RNN: the state of word 2 needs the state of "
            "word 1, word 3 needs word 2, and so on, so a sentence of S source words and T "
            "target words takes S plus T steps in a chain. Bottom, the Transformer: layer 1 "
            "computes all positions at once from the embeddings, layer 2 all positions from "
            "layer 1, so the chain is as long as the number of layers, whatever the length."
        ),
    )
    d.text(20, 26, "RNN: each state waits for the one before it (S + T steps)", 13, anchor="start")
    words = ["the", "small", "red", "tree", "…"]
    for k, w in enumerate(words):
        x = 80 + 150 * k
        d.box(f"h{k}", x, 70, f"h_{k + 1}" if w != "…" else "h_S", kind="op", w=60)
        d.box(f"w{k}", x, 130, w, kind="input", w=70)
        d.arrow(f"w{k}", f"h{k}")
        if k:
            d.arrow(f"h{k - 1}", f"h{k}", label=f"step {k + 1}")
    d.text(
        20,
        186,
        "Transformer: a layer computes every position at once (2N steps)",
        13,
        anchor="start",
    )
    d.box(
        "emb",
        380,
        300,
        "the      small      red      tree      …   (all positions)",
        kind="input",
        w=620,
    )
    d.box("l1", 380, 250, "layer 1: self-attention + feed-forward, all positions", kind="op", w=620)
    d.box("l2", 380, 210, "layer 2 … layer 2N", kind="op", w=620, h=26)
    d.arrow("emb", "l1")
    d.arrow("l1", "l2")
    return d
