"""Lecture 11's pictures: which query-key pairs full, local and LSH attention compute, and
Transformer-XL's memory of the previous segment.

Public API::

    attention_patterns_diagram() -> Diagram   # full n x n grid, a local band, LSH chunks
    segment_memory_diagram() -> Diagram       # two segments, two layers, the cached memory

Lecture 11.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["attention_patterns_diagram", "segment_memory_diagram"]

_N = 8  # positions drawn in each grid


def attention_patterns_diagram() -> Diagram:
    """Three 8 x 8 grids of query-key pairs: full attention computes all of them, local
    attention a band around the diagonal, LSH attention (positions sorted by bucket, cut into
    equal chunks) only pairs of one bucket within a chunk and the chunk before it.

    Lecture 11.
    """
    alt = (
        "Three grids of eight queries by eight keys. Full attention shades all 64 query-key "
        "pairs. Local attention shades only a band of width three around the diagonal. LSH "
        "attention first hashes the positions into buckets A, B, C, sorts them by bucket and "
        "cuts them into chunks of two; a query then scores only the keys of its own bucket in "
        "its own chunk and the chunk before, so the shaded cells form small blocks near the "
        "diagonal."
    )
    d = Diagram(760, 330, alt=alt)
    cell = 22
    tops, lefts = 70, (40, 300, 560)
    full = [[1.0] * _N for _ in range(_N)]
    band = [[1.0 if abs(i - j) <= 1 else 0.0 for j in range(_N)] for i in range(_N)]
    # LSH: 8 positions hashed to buckets, sorted: A A A B B C C C; chunks of 2
    buckets = "AAABBCCC"
    order = ["3", "6", "0", "1", "7", "2", "4", "5"]  # original positions after the sort
    lsh = [
        [1.0 if buckets[i] == buckets[j] and 0 <= i // 2 - j // 2 <= 1 else 0.0 for j in range(_N)]
        for i in range(_N)
    ]
    names = [str(i) for i in range(_N)]
    d.grid("full", lefts[0], tops, full, cell=cell, row_labels=names, col_labels=names)
    d.grid("band", lefts[1], tops, band, cell=cell, row_labels=names, col_labels=names)
    labels = [f"{b}{p}" for b, p in zip(buckets, order, strict=True)]
    d.grid("lsh", lefts[2], tops, lsh, cell=cell, row_labels=labels, col_labels=labels,
           kind="accent")  # fmt: skip
    width = _N * cell
    captions = (
        ("full attention", "all n x n pairs: O(n²)"),
        ("local attention", "a band of r = 2w + 1 keys"),
        ("LSH attention", "sorted by bucket, in chunks"),
    )
    for left, (head, sub) in zip(lefts, captions, strict=True):
        d.text(left + width / 2, 28, head, size=15)
        d.text(left + width / 2, 46, sub, size=12, kind="note")
    bottom = tops + width + 26
    d.text(lefts[0] + width / 2, bottom, "every key", size=12, italic=True)
    d.text(lefts[1] + width / 2, bottom, "what is nearby", size=12, italic=True)
    d.text(lefts[2] + width / 2, bottom, "what is similar (same bucket)", size=12, italic=True)
    note = "rows: queries, columns: keys; shaded: the score q·k is computed, empty: skipped"
    d.text(380, bottom + 26, note, size=12, kind="note")
    return d


def segment_memory_diagram() -> Diagram:
    """Transformer-XL: two layers over segment τ and segment τ + 1; each layer of the new
    segment reads its own segment and the cached (stop-gradient) states of the layer below in
    the previous segment.

    Lecture 11.
    """
    alt = (
        "Two segments side by side, each with an input row and two layers. Segment tau is "
        "finished and cached as memory. In segment tau plus one, each layer's queries come from "
        "the segment itself, while its keys and values come from the layer below in both the "
        "current segment and the cached previous segment; the arrows from the memory are dashed "
        "because no gradient flows back into it."
    )
    d = Diagram(700, 300, alt=alt)
    d.group(20, 40, 300, 250, "segment τ (memory, cached)")
    d.group(380, 40, 300, 250, "segment τ + 1 (being computed)", kind="accent")
    rows = (("x", 250, "input tokens", "input"), ("h1", 170, "layer 1: h¹", "op"),
            ("h2", 90, "layer 2: h²", "output"))  # fmt: skip
    for key, y, text, kind in rows:
        d.box(f"old_{key}", 170, y, text + "  (τ)", kind=kind, w=200)
        d.box(f"new_{key}", 530, y, text + "  (τ+1)", kind=kind, w=200)
    for lower, upper in (("x", "h1"), ("h1", "h2")):
        d.arrow(f"old_{lower}", f"old_{upper}")
        d.arrow(f"new_{lower}", f"new_{upper}")
        d.arrow(f"old_{lower}", f"new_{upper}", dashed=True)
    d.text(350, 26, "dashed: read as keys and values, stop-gradient (no training signal back)",
           size=12, kind="note")  # fmt: skip
    return d
