"""Lecture 10's picture: the encoder-decoder Transformer translating "the small red tree".

Public API::

    transformer_diagram() -> Diagram   # N encoder layers, N decoder layers, memory, softmax

Lecture 10.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["transformer_diagram"]


def transformer_diagram() -> Diagram:
    """The encoder (source words embedded with their positions, N layers of self-attention and
    feed-forward, each in Add & Norm) gives the memory; the decoder (the target so far, N layers
    of masked self-attention, cross-attention over the memory and feed-forward) ends in a linear
    map and a softmax over the target words.

    Lecture 10.
    """
    d = Diagram(
        820,
        560,
        alt=(
            "The encoder-decoder Transformer. Left, the encoder: the source words the small red "
            "tree are embedded and their positions added, then N encoder layers of "
            "self-attention and a feed-forward network, each with Add and Norm, give the memory, "
            "one vector per source word. Right, the decoder: the target so far, bos le arbre, "
            "embedded with positions, goes through N decoder layers of masked self-attention, "
            "cross-attention whose keys and values are the memory, and a feed-forward network, "
            "each with Add and Norm; a linear map and a softmax give the probabilities of the "
            "next word, rouge."
        ),
    )
    ex, dx = 200, 590
    d.box("src", ex, 520, "source: the small red tree", kind="input")
    d.box("e_emb", ex, 445, "embedding × √d + positions", kind="input")
    d.group(ex - 150, 250, 300, 160, "N encoder layers", kind="note")
    d.box("e_att", ex, 370, "self-attention\n(padding mask) + Add & Norm", kind="op")
    d.box("e_ffn", ex, 300, "feed-forward + Add & Norm", kind="op")
    d.box("memory", ex, 200, "memory: one vector\nper source word", kind="output")
    d.arrow("src", "e_emb")
    d.arrow("e_emb", "e_att")
    d.arrow("e_att", "e_ffn")
    d.arrow("e_ffn", "memory")
    d.box("tgt", dx, 520, "target so far: <bos> le arbre", kind="input")
    d.box("d_emb", dx, 445, "embedding × √d + positions", kind="input")
    d.group(dx - 170, 180, 340, 230, "N decoder layers", kind="note")
    d.box("d_self", dx, 370, "masked self-attention\n(causal mask) + Add & Norm", kind="accent")
    d.box("d_cross", dx, 295, "cross-attention\n(keys, values: memory) + Add & Norm", kind="op")
    d.box("d_ffn", dx, 225, "feed-forward + Add & Norm", kind="op")
    d.box("out", dx, 120, "linear + softmax over the target words", kind="output")
    d.box("next", dx, 45, "next word: rouge", kind="output")
    d.arrow("tgt", "d_emb")
    d.arrow("d_emb", "d_self")
    d.arrow("d_self", "d_cross", label="queries")
    d.arrow("memory", "d_cross", label="keys, values")
    d.arrow("d_cross", "d_ffn")
    d.arrow("d_ffn", "out")
    d.arrow("out", "next")
    d.text(ex, 120, "the encoder runs once per sentence;", 12, italic=True)
    d.text(ex, 137, "the decoder once per word it writes", 12, italic=True)
    return d
