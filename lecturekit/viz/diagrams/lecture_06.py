"""Lecture 06's pictures: the padding and causal masks as grids of allowed and blocked cells, and
the encoder layer built from two Add & Norm steps.

Public API::

    masks_diagram() -> Diagram           # padding mask and causal mask, query rows x key columns
    encoder_layer_diagram() -> Diagram   # attention, add & norm, feed-forward, add & norm

Lecture 06.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["encoder_layer_diagram", "masks_diagram"]


def masks_diagram() -> Diagram:
    """Two grids of query rows by key columns: the padding mask of "hello world" padded to 5
    tokens (the pad columns blocked) and the causal mask of "<bos> the cat sat down" (every key
    after the query blocked).

    Lecture 06.
    """
    d = Diagram(
        720,
        330,
        alt=(
            "Two masks as grids, one row per query and one column per key: in the padding mask "
            "of hello world followed by three pad tokens, the three pad columns are blocked for "
            "every query; in the causal mask of bos the cat sat down, each row may attend only to "
            "its own word and the words before it, so every cell above the diagonal is blocked."
        ),
    )
    cell = 40
    pad_words = ["hello", "world", "<pad>", "<pad>", "<pad>"]
    cau_words = ["<bos>", "the", "cat", "sat", "down"]
    pad = [[0.55 if j < 2 else 0.0 for j in range(5)] for _ in range(5)]
    cau = [[0.55 if j <= i else 0.0 for j in range(5)] for i in range(5)]

    def marks(grid: list[list[float]]) -> list[list[str]]:
        return [["✓" if v else "×" for v in row] for row in grid]

    for name, x0, words, grid, title in (
        ("padding", 80, pad_words, pad, "padding mask: no query looks at <pad>"),
        ("causal", 440, cau_words, cau, "causal mask: no query looks ahead"),
    ):
        d.grid(
            name,
            x0,
            60,
            grid,
            cell=cell,
            row_labels=words,
            col_labels=[w.strip("<>")[:5] for w in words],
            text=marks(grid),
            kind="output",
        )
        d.text(x0 + 2.5 * cell, 18, title, 13)
        d.text(x0 + 2.5 * cell, 285, "rows: queries · columns: keys", 12)
    d.text(360, 318, "✓ may attend (weight > 0) · × blocked (weight exactly 0)", 12, kind="accent")
    return d


def encoder_layer_diagram() -> Diagram:
    """The encoder layer: multi-head self-attention, Add & Norm (the input added back, then
    LayerNorm), the position-wise feed-forward network, Add & Norm again.

    Lecture 06.
    """
    d = Diagram(
        880,
        230,
        alt=(
            "The encoder layer from left to right: the input x goes through multi-head "
            "self-attention, then Add and Norm adds x back and applies LayerNorm; the result goes "
            "through the feed-forward network, applied to each position on its own, and a second "
            "Add and Norm adds its input back; the output has the input's shape."
        ),
    )
    top, low = 70, 160
    d.box("x", 55, top, "x\n(B, T, D)", kind="input")
    d.box("attn", 205, low, "multi-head\nself-attention", kind="op")
    d.box("an1", 355, top, "Add & Norm", kind="accent")
    d.box("ffn", 505, low, "feed-forward\n(each position)", kind="op")
    d.box("an2", 660, top, "Add & Norm", kind="accent")
    d.box("out", 800, top, "out\n(B, T, D)", kind="output")
    d.arrow("x", "attn", label="mask")
    d.arrow("attn", "an1")
    d.arrow("x", "an1", label="residual: + x", dashed=True)
    d.arrow("an1", "ffn")
    d.arrow("ffn", "an2")
    d.arrow("an1", "an2", label="residual", dashed=True)
    d.arrow("an2", "out")
    d.text(440, 222, "Add & Norm = LayerNorm(input + sublayer(input))", 12, italic=True)
    return d
