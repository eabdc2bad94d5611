"""Lecture 14b's pictures: generating with and without a cache of keys and values.

Public API::

    kv_cache_diagram() -> Diagram   # without a cache every step feeds the whole prefix; with one,
                                    # only the new token, reading the stored keys and values

Lecture 14b.
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["kv_cache_diagram"]


def kv_cache_diagram() -> Diagram:
    """One generation step twice: without a cache the whole prefix goes through every layer
    again; with a cache only the new token does, its query reading the keys and values the
    earlier steps stored, and its own key and value are appended to the cache.

    Lecture 14b.
    """
    d = Diagram(
        800,
        300,
        alt=(
            "One generation step drawn twice. Without a cache, the whole prefix [CLS] my dog is "
            "goes through every layer again to get the last position's logits. With a cache, "
            "only the new token is goes through the layers; its query reads the keys and values "
            "of the earlier positions stored in the cache, one pair of tensors per layer, and "
            "its own key and value are appended to the cache for the next step."
        ),
    )
    d.text(20, 30, "without a cache", size=13, anchor="start", kind="accent")
    d.box("prefix", 130, 70, "[CLS] my dog is\n(all 4 positions)", "input", w=200)
    d.box("layers1", 400, 70, "every layer, every position\n(the prefix recomputed)", "op", w=250)
    d.box("out1", 680, 70, "logits of\nthe last position", "output", w=170)
    d.arrow("prefix", "layers1")
    d.arrow("layers1", "out1")
    d.text(20, 150, "with a cache", size=13, anchor="start", kind="accent")
    d.box("new", 130, 190, "is\n(the new token only)", "input", w=200)
    d.box(
        "layers2", 400, 190, "every layer, one position:\nits q reads the cached k, v", "op", w=250
    )
    d.box("out2", 680, 190, "the same logits", "output", w=170)
    d.box("cache", 400, 270, "cache: k, v of [CLS] my dog, per layer", "weight", w=330)
    d.arrow("new", "layers2")
    d.arrow("layers2", "out2")
    d.arrow((360, 253), (360, 212), label="read")
    d.arrow((440, 212), (440, 253), label="append")
    return d
