"""Lecture 12's picture: byte-pair encoding learned on the dictionary low ×5, lower ×2,
newest ×6, widest ×3: split into characters, count adjacent pairs, merge the most frequent
pair, repeat.

Public API::

    bpe_merges_diagram() -> Diagram   # characters -> pair counts -> merge -> repeat

Lecture 12.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["bpe_merges_diagram"]


def bpe_merges_diagram() -> Diagram:
    """BPE's loop on the running example: the words as characters with their counts, the pair
    counts (e s 9, s t 9, w e 8, l o 7, ...), the most frequent pair e s merged into es in every
    word, then counted again (es t 9 -> est, l o 7 -> lo, ...).

    Lecture 12.
    """
    alt = (
        "Byte-pair encoding on low five times, lower twice, newest six times and widest three "
        "times. The words are split into characters; every pair of neighbouring symbols is "
        "counted, weighted by the word's count: e s 9, s t 9, w e 8, l o 7. The most frequent "
        "pair, e s, is merged into the new symbol es in every word, and the counting starts "
        "again: es t becomes est, then l o becomes lo, one new vocabulary entry per merge."
    )
    d = Diagram(760, 300, alt=alt)
    d.box("words", 120, 75, "1. characters\nl o w ×5\nl o w e r ×2\nn e w e s t ×6\n"
          "w i d e s t ×3", kind="input", w=200)  # fmt: skip
    d.box("count", 380, 75, "2. count pairs\ne s: 9 · s t: 9\nw e: 8 · l o: 7\n"
          "o w: 7 · n e: 6 ...", kind="op", w=200)  # fmt: skip
    d.box("merge", 640, 75, "3. merge the top pair\ne + s → es\n(the vocabulary\ngains es)",
          kind="accent", w=190)  # fmt: skip
    d.box("after", 380, 225, "the words now\nl o w ×5 · l o w e r ×2\nn e w es t ×6"
          " · w i d es t ×3", kind="output", w=290)  # fmt: skip
    d.box("next", 640, 225, "4. repeat\nes + t → est\nl + o → lo\nlo + w → low ...",
          kind="accent", w=190)  # fmt: skip
    d.arrow("words", "count")
    d.arrow("count", "merge")
    d.arrow("merge", "after")
    d.arrow("after", "count", label="count again")
    d.arrow("after", "next")
    d.text(120, 215, "the number of merges", size=12, kind="note")
    d.text(120, 233, "sets the vocabulary size", size=12, kind="note")
    return d
