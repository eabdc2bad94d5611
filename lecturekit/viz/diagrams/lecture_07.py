"""Lecture 07's pictures: beam search as a tree that keeps the k best partial translations at
every step, and the two ways a decoded translation can be wrong.

Public API::

    beam_tree_diagram() -> Diagram      # k = 2 on "he hit me with a pie": expand, keep, prune
    error_kinds_diagram() -> Diagram    # wrong output: search error or model error?
"""

from __future__ import annotations

from lecturekit.viz.diagram import Diagram

__all__ = ["beam_tree_diagram", "error_kinds_diagram"]

# (name, column, y, label, parent, kept): the lecture's pie table, scores = sum of log-probs
_TREE = (
    ("i", 1, 80, "I  -0.69", "s", True),
    ("he", 1, 200, "he  -0.92", "s", True),
    ("it", 1, 280, "it  -2.30", "s", False),
    ("i_was", 2, 40, "was  -1.49", "i", True),
    ("i_got", 2, 90, "got  -1.74", "i", False),
    ("i_hit", 2, 140, "hit  -2.30", "i", False),
    ("he_hit", 2, 200, "hit  -1.14", "he", True),
    ("he_struck", 2, 250, "struck  -2.53", "he", False),
    ("was_hit", 3, 40, "hit  -1.72", "i_was", True),
    ("was_struck", 3, 90, "struck  -3.10", "i_was", False),
    ("hit_me", 3, 200, "me  -1.24", "he_hit", True),
    ("hit_a", 3, 250, "a  -3.44", "he_hit", False),
)
_X = (50, 185, 345, 505)


def beam_tree_diagram() -> Diagram:
    """Beam search with k = 2 on the lecture's hand-written model of "il m'a entarté": at each
    step every kept partial translation is extended by its possible next words, each scored by
    its sum of log-probabilities, and only the 2 best of all candidates stay in the beam (solid);
    the others are pruned (dashed). Greedy search (k = 1) would keep only "I" at step 1 and end
    with the less probable "I was hit with a pie". Lecture 07.
    """
    d = Diagram(
        860,
        350,
        alt=(
            "Beam search with beam size k = 2 drawn as a tree, one column per step. From the "
            "start symbol the words I (score -0.69), he (-0.92) and it (-2.30) are candidates; "
            "the two best, I and he, are kept and it is pruned. Each kept hypothesis is extended "
            "by its next words and again only the two best of all candidates survive: I was "
            "(-1.49) and he hit (-1.14), then I was hit (-1.72) and he hit me (-1.24). The beam "
            "ends with he hit me with a pie, log P -2.36, beating I was hit with a pie, -2.58, "
            "which is what greedy search (k = 1, only I kept at step 1) returns."
        ),
    )
    for col, label in enumerate(("", "step 1", "step 2", "step 3")):
        if label:
            d.text(_X[col], 14, label, size=12, italic=True)
    d.text(720, 14, "... until </s>", size=12, italic=True)
    d.box("s", _X[0], 200, "<s>", kind="op", w=52)
    for name, col, y, label, parent, kept in _TREE:
        d.box(name, _X[col], y, label, kind="input" if kept else "note", w=120, size=12)
        d.arrow(parent, name, dashed=not kept)
    d.box("best", 720, 200, "... with a pie </s>\nlog P = -2.36  (best)", kind="accent", w=190)
    d.box("runner", 720, 40, "... with a pie </s>\nlog P = -2.58  (greedy's)", kind="output", w=190)
    d.arrow("hit_me", "best", dashed=True)
    d.arrow("was_hit", "runner", dashed=True)
    d.text(
        430,
        312,
        "solid: kept in the beam (the k = 2 best of all candidates);  dashed: pruned",
        size=12,
    )
    d.text(
        430,
        336,
        "score = sum of the log-probs so far; k = 1 keeps one word per step: greedy search",
        size=12,
        kind="accent",
    )
    return d


def error_kinds_diagram() -> Diagram:
    """A decoded translation that is wrong is either a search error (the model gives the
    reference a higher score than what the search returned: a better search could fix it) or a
    model error (the model itself prefers the wrong output: no search can fix it). Lecture 07.
    """
    d = Diagram(
        780,
        230,
        alt=(
            "How to tell whose fault a wrong translation is. Score the reference with the model "
            "and compare it with the score of the returned translation. If the reference scores "
            "higher, it is a search error: the model prefers the right answer and a better search, "
            "such as a wider beam, can find it. If the returned translation scores at least as "
            "high, it is a model error: the model prefers a wrong answer and no search can fix it."
        ),
    )
    d.box(
        "out", 120, 50, "returned translation (wrong)\nscore log P(returned)", kind="output", w=220
    )
    d.box("ref", 120, 170, "reference (right)\nscore log P(reference)", kind="input", w=220)
    d.box("cmp", 375, 110, "which does the\nmodel score higher?", kind="op", w=170)
    d.arrow("out", "cmp")
    d.arrow("ref", "cmp")
    d.box(
        "search",
        635,
        50,
        "the reference:\nsearch error,\na wider beam can fix it",
        kind="accent",
        w=210,
    )
    d.box(
        "model",
        635,
        170,
        "the returned one:\nmodel error,\nno search can fix it",
        kind="mask",
        w=210,
    )
    d.arrow("cmp", "search")
    d.arrow("cmp", "model")
    return d
